import type { RowKind } from '../../indexer/rows.js';
import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../main.js';
import { note, printJson, printLine } from '../output.js';

export interface SearchCliOptions {
  k?: number;
  kind?: string;
  category?: string;
  tag?: string;
  since?: string;
  until?: string;
  archived?: boolean;
  maxChars?: number;
  minScore?: number;
  json?: boolean;
}

export async function run(words: string[], opts: SearchCliOptions, globals: GlobalOptions): Promise<void> {
  const query = words.join(' ');
  const vault = await openVault({ vault: globals.vault });
  const results = await vault.search(query, {
    k: opts.k ?? 10,
    kind: opts.kind as RowKind | undefined,
    category: opts.category,
    tag: opts.tag,
    since: opts.since,
    until: opts.until,
    archived: opts.archived ?? false,
    maxChars: opts.maxChars,
    minScore: opts.minScore,
    onNote: (message) => note(`vaultkeeper: ${message}`),
  });
  await vault.close();
  if (opts.json) {
    printJson({ query, results });
    return;
  }
  if (results.length === 0) {
    printLine('no results');
    return;
  }
  for (const r of results) {
    const where = r.line_end > r.line ? `${r.path}:${r.line}-${r.line_end}` : `${r.path}:${r.line}`;
    const label = r.kind === 'fact' ? `[${r.category}] ${r.date}` : (r.heading_path ?? r.title ?? '').replace(/ > /g, ' › ');
    printLine(`${r.score.toFixed(2)}  ${r.kind.padEnd(4)}  ${label}  ${where}`);
    for (const line of r.text.split('\n')) {
      const text = line.replace(/\s+/g, ' ').trim();
      if (text !== '') printLine(`        ${text.length > 160 ? `${text.slice(0, 157)}...` : text}`);
    }
    printLine(`        ${r.link}`);
  }
}
