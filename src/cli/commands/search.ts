import { allowQuickTiering } from '../../core/tiering.js';
import type { RowKind } from '../../indexer/rows.js';
import type { SearchOptions, SearchResult } from '../../indexer/search.js';
import { locateVault } from '../../vault/locate.js';
import { askDaemon } from '../ask-daemon.js';
import type { GlobalOptions } from '../options.js';
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
  /** false with `--no-refresh`: the index as it is, no freshness check and no index pass. */
  refresh?: boolean;
  json?: boolean;
}

export async function run(words: string[], opts: SearchCliOptions, globals: GlobalOptions): Promise<void> {
  const query = words.join(' ');
  const options: SearchOptions = {
    k: opts.k ?? 10,
    kind: opts.kind as RowKind | undefined,
    category: opts.category,
    tag: opts.tag,
    since: opts.since,
    until: opts.until,
    archived: opts.archived ?? false,
    maxChars: opts.maxChars,
    minScore: opts.minScore,
  };
  const refresh = opts.refresh ?? true;
  // A daemon keeps its index fresh from its watcher: its answer costs no check either way.
  const results = await searchWarm(query, options, globals) ?? await searchInProcess(query, options, refresh, globals);
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

/** The daemon's answer when one runs and answers quickly (the same JSON as in process), else null. */
async function searchWarm(query: string, options: SearchOptions, globals: GlobalOptions): Promise<SearchResult[] | null> {
  const root = locateVault({ vault: globals.vault });
  const debug = globals.debug ? (why: string) => note(`vaultkeeper: ${why}; searching in process`) : undefined;
  const reply = await askDaemon<SearchResult[]>(root, { op: 'search', query, options: { ...options } }, debug);
  if (reply !== null && globals.debug) note('vaultkeeper: answered by the daemon');
  return reply?.value ?? null;
}

async function searchInProcess(query: string, options: SearchOptions, refresh: boolean, globals: GlobalOptions): Promise<SearchResult[]> {
  // Most such searches answer from an unchanged index and end: in a large vault V8's optimizing compiler costs them
  // more than it saves (core/tiering.ts; the freshness check turns it off).
  allowQuickTiering();
  const { openVault } = await import('../../vault/vault.js');
  const vault = await openVault({ vault: globals.vault });
  try {
    return await vault.search(query, { ...options, refresh, onNote: (message) => note(`vaultkeeper: ${message}`) });
  } finally {
    await vault.close();
  }
}
