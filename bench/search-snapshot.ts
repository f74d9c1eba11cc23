/**
 * Every answer of a fixed set of searches, as JSON lines, from any build: to show that a change to the query path
 * leaves results byte-identical (write one file with the base build, one with the new, compare them with `cmp`).
 * Each vault gets the Dendron section's 20 queries and 11 more (a phrase, an exclusion, a question, a stop word),
 * the first 40 questions of LoCoMo conversations 0 and 1 when --locomo is given, and `benchQueries(42, 50)`; each
 * with several option sets (k, kind, a character budget, dates, a minimum score, archived, tag and category); a
 * fixed clock, `refresh` off, no recall record.
 *
 *   node dist-bench/bench/search-snapshot.js --build /tmp/base --vault V [--vault V2 …] [--locomo locomo10.json] --out base.jsonl
 *
 * Two snapshots of two builds of one vault's index (copies rebuilt apart) differ in the vault's name alone when the
 * builds answer alike: `--compare A.jsonl B.jsonl` counts the searches whose answers differ, the name left out.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type * as VaultModule from '#src/vault/vault.js';
import type { SearchOptions } from '#src/indexer/search.js';
import { QUERIES } from './dendron.js';
import { benchQueries } from './generate.js';
import { readLocomo } from './locomo.js';

const { values, positionals } = parseArgs({
  options: {
    build: { type: 'string', default: '.' },
    vault: { type: 'string', multiple: true },
    locomo: { type: 'string' },
    out: { type: 'string' },
    compare: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
if (values.compare) {
  if (positionals.length !== 2) throw new Error('--compare A.jsonl B.jsonl');
  const [a, b] = await Promise.all(positionals.map(async (file) => (await readFile(file, 'utf8')).trimEnd().split('\n').map(withoutVault)));
  if (a!.length !== b!.length) throw new Error(`the snapshots hold ${a!.length} and ${b!.length} searches`);
  const differ = a!.flatMap((line, i) => (line === b![i] ? [] : [line]));
  console.log(`${a!.length} searches: ${a!.length - differ.length} identical, ${differ.length} differ`);
  for (const line of differ) {
    const { query, options } = JSON.parse(line) as { query: string; options: SearchOptions };
    console.log(`  ${query} ${JSON.stringify(options)}`);
  }
  process.exit(differ.length === 0 ? 0 : 1);
}
if (values.vault === undefined || values.out === undefined) throw new Error('--vault PATH (one or more) and --out FILE are needed');
const { openVault } = (await import(pathToFileURL(path.resolve(values.build, 'dist/vault/vault.js')).href)) as typeof VaultModule;

const MORE = ['how do I publish my notes to github pages?', '"note reference"', 'hierarchy -schema', 'dendron', 'the', 'vscode extension install', 'pod', 'templates "schema"', 'link', 'preview markdown', 'search notes'];
const questions = values.locomo === undefined ? [] : (await readLocomo(values.locomo)).slice(0, 2).flatMap((conv) => conv.questions.slice(0, 40).map((q) => q.question));
const queries = [...QUERIES, ...MORE, ...questions, ...benchQueries(42, 50)];
const OPTION_SETS: SearchOptions[] = [
  {}, { k: 25 }, { kind: 'page', k: 5 }, { kind: 'fact', k: 8 }, { maxChars: 400 }, { k: 50 }, { since: '2023-06-01', until: '2024-03-01' },
  { minScore: 0.3 }, { archived: true }, { k: 1 }, { tag: 'books' }, { category: 'preference' },
];
const now = new Date('2026-11-24T12:00:00Z');
const lines: string[] = [];
for (const root of values.vault) {
  const vault = await openVault({ vault: root, env: process.env });
  try {
    for (const options of OPTION_SETS) {
      for (const query of queries) {
        const results = await vault.search(query, { ...options, refresh: false, recordRecall: false, now });
        lines.push(JSON.stringify({ vault: path.basename(root), query, options, results }));
      }
    }
  } finally {
    await vault.close();
  }
}
await writeFile(values.out, `${lines.join('\n')}\n`);

/** A snapshot's line without the vault's folder name, the one field two copies of a vault differ in. */
function withoutVault(line: string): string {
  const { vault: _vault, ...rest } = JSON.parse(line) as { vault: string };
  return JSON.stringify(rest);
}
console.log(`${lines.length} searches written to ${values.out}`);
