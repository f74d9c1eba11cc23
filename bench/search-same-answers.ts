/**
 * Whether a warm process answers each query as a fresh one does: one `Vault` of a build asks the generated vaults'
 * queries (benchQueries(42, 40)) twice in turn, and each answer is compared with that of a `Vault` opened for that
 * query alone (a fresh store: nothing held, nothing settled), all at one fixed clock (recency is part of a score). A
 * query's answer must not depend on what the process was asked before (ranked.ts `SettledFetches`). Prints the
 * queries answered differently and a JSON line of the counts.
 *
 *   node dist-bench/bench/search-same-answers.js --build . --vault /tmp/scale/v1000000
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type * as VaultModule from '#src/vault/vault.js';
import { benchQueries } from './generate.js';

const { values } = parseArgs({ options: { build: { type: 'string', default: '.' }, vault: { type: 'string' } } });
if (values.vault === undefined) throw new Error('--vault PATH: an indexed vault (e.g. a generated scale vault)');
const env = { ...process.env, LANCE_CPU_THREADS: process.env.LANCE_CPU_THREADS ?? '2' };
const queries = benchQueries(42, 40);
const { openVault } = (await import(pathToFileURL(path.resolve(values.build, 'dist/vault/vault.js')).href)) as typeof VaultModule;
const options = { refresh: false, recordRecall: false, now: new Date('2026-11-24T12:00:00Z') } as const;
const ask = async (vault: Awaited<ReturnType<typeof openVault>>, query: string): Promise<string> => JSON.stringify(await vault.search(query, options));
const vault = await openVault({ vault: values.vault, env });
const rounds: string[][] = [[], []];
try {
  for (const answers of rounds) for (const query of queries) answers.push(await ask(vault, query));
} finally {
  await vault.close();
}
const fresh: string[] = [];
for (const query of queries) {
  const alone = await openVault({ vault: values.vault, env });
  try {
    fresh.push(await ask(alone, query));
  } finally {
    await alone.close();
  }
}
const counts = { queries: queries.length, firstAskingDiffers: 0, secondAskingDiffers: 0, askingsDiffer: 0 };
queries.forEach((query, i) => {
  const [first, second, alone] = [rounds[0]![i]!, rounds[1]![i]!, fresh[i]!];
  if (first !== alone) counts.firstAskingDiffers++;
  if (second !== alone) counts.secondAskingDiffers++;
  if (first !== second) counts.askingsDiffer++;
  if (first !== alone || second !== alone) console.log(`answered differently warm than fresh: ${query}`);
});
console.log(JSON.stringify(counts));
