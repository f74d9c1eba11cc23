/**
 * What a rebuild leaves, as digests: the table's rows (every column, in table order), the row-hash shards, the log
 * facts and the manifest (less `pass` and `indexFiles`, which differ from one run to the next). Run it after a
 * `reindex --clear` by each build on one vault: the same line twice says both builds left the same index.
 *
 *   LANCE_CPU_THREADS=2 node dist-bench/bench/rebuild-outputs.js V
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const vault = process.argv[2];
if (vault === undefined) throw new Error('usage: rebuild-outputs.js VAULT');
const state = path.join(vault, '.vaultkeeper');
const short = (hash: ReturnType<typeof createHash>): string => hash.digest('hex').slice(0, 16);

/** Every file under `dir`, by path (sorted by code unit), hashed with its bytes. */
function folderDigest(dir: string): string {
  const hash = createHash('sha256');
  const walk = (at: string): void => {
    const entries = readdirSync(at, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const file = path.join(at, entry.name);
      if (entry.isDirectory()) walk(file);
      else hash.update(`${path.relative(dir, file)}\u0000`).update(readFileSync(file));
    }
  };
  walk(dir);
  return short(hash);
}

const lancedb = await import('@lancedb/lancedb');
const db = await lancedb.connect(path.join(state, 'index'));
const table = await db.openTable('rows');
const rows = createHash('sha256');
let count = 0;
for await (const batch of table.query()) {
  for (const row of batch.toArray() as Array<{ toJSON(): Record<string, unknown> }>) {
    rows.update(JSON.stringify(row.toJSON(), (_, value: unknown) => (typeof value === 'bigint' ? String(value) : value)));
    count++;
  }
}
table.close();
db.close();
const manifest = JSON.parse(readFileSync(path.join(state, 'index-manifest.json'), 'utf8')) as Record<string, unknown>;
delete manifest.pass;
delete manifest.indexFiles;
console.log(
  JSON.stringify({
    rows: count,
    table: short(rows),
    shards: folderDigest(path.join(state, 'index-rows')),
    logFacts: folderDigest(path.join(state, 'log-facts')),
    manifest: short(createHash('sha256').update(JSON.stringify(manifest))),
  }),
);
