/**
 * A warm `Vault.search` timed in one process, as the Dendron section's in-process step runs it (refresh off, no
 * recall record, k 10, the section's 20 queries after five to warm up), for any build: prints one JSON line of the
 * p50, the mean and the CPU (main thread and LanceDB's together) per search. Run builds alternately in child
 * processes with bench/alternate-warm.py to compare them on a shared machine.
 *
 *   node dist-bench/bench/search-warm.js --build /tmp/base --vault V [--rounds 10] [--queries generated]
 *
 * `--queries generated`: search-scale.ts's queries (benchQueries(42, 40)) for the generated vaults, instead of Dendron's.
 * `--refresh`: each search makes its freshness check first, as an MCP `memory_search` does (fresh.ts).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type * as VaultModule from '#src/vault/vault.js';
import { QUERIES as DENDRON_QUERIES } from './dendron.js';
import { benchQueries } from './generate.js';

const { values } = parseArgs({ options: { build: { type: 'string', default: '.' }, vault: { type: 'string' }, rounds: { type: 'string', default: '10' }, queries: { type: 'string', default: 'dendron' }, refresh: { type: 'boolean', default: false } } });
const QUERIES = values.queries === 'generated' ? benchQueries(42, 40) : DENDRON_QUERIES;
if (values.vault === undefined) throw new Error('--vault PATH: an indexed vault (e.g. the Dendron notes built as the bench builds them)');
const { openVault } = (await import(pathToFileURL(path.resolve(values.build, 'dist/vault/vault.js')).href)) as typeof VaultModule;
const vault = await openVault({ vault: values.vault, env: process.env });
const options = { k: 10, refresh: values.refresh, recordRecall: false } as const;
try {
  for (const query of QUERIES.slice(0, 5)) await vault.search(query, options);
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const query of QUERIES) {
      const started = performance.now();
      await vault.search(query, options);
      times.push(performance.now() - started);
    }
  }
  const used = process.cpuUsage(cpu);
  const sorted = [...times].sort((a, b) => a - b);
  const p50 = sorted[Math.floor(sorted.length / 2)]!;
  console.log(JSON.stringify({ p50, mean: times.reduce((a, b) => a + b, 0) / times.length, cpu: (used.user + used.system) / 1000 / times.length }));
} finally {
  await vault.close();
}
