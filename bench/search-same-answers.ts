/**
 * Whether a warm process answers each query as a fresh one does: one `Vault` of a build asks the generated vaults'
 * queries (benchQueries(42, 40)) twice in turn, and each answer is compared with the built CLI's for the same query
 * (a fresh process each). A query's answer must not depend on what the process was asked before (ranked.ts
 * `SettledFetches`). Prints the queries answered differently and a JSON line of the counts.
 *
 *   node dist-bench/bench/search-same-answers.js --build . --vault /tmp/scale/v1000000
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type * as VaultModule from '#src/vault/vault.js';
import { benchQueries } from './generate.js';

const { values } = parseArgs({ options: { build: { type: 'string', default: '.' }, vault: { type: 'string' } } });
if (values.vault === undefined) throw new Error('--vault PATH: an indexed vault (e.g. a generated scale vault)');
const env = { ...process.env, LANCE_CPU_THREADS: process.env.LANCE_CPU_THREADS ?? '2' };
const queries = benchQueries(42, 40);
const build = path.resolve(values.build);
const { openVault } = (await import(pathToFileURL(path.join(build, 'dist/vault/vault.js')).href)) as typeof VaultModule;
const vault = await openVault({ vault: values.vault, env });
const rounds: string[][] = [[], []];
try {
  for (const answers of rounds) for (const query of queries) answers.push(JSON.stringify(await vault.search(query, { refresh: false, recordRecall: false })));
} finally {
  await vault.close();
}
const counts = { queries: queries.length, firstAskingDiffers: 0, secondAskingDiffers: 0, askingsDiffer: 0 };
queries.forEach((query, i) => {
  const cli = execFileSync(process.execPath, [path.join(build, 'dist/bin/vaultkeeper.js'), '--vault', values.vault!, 'search', query, '--json', '--no-refresh'], { env, encoding: 'utf8' });
  const fresh = JSON.stringify((JSON.parse(cli) as { results: unknown }).results);
  const [first, second] = [rounds[0]![i]!, rounds[1]![i]!];
  if (first !== fresh) counts.firstAskingDiffers++;
  if (second !== fresh) counts.secondAskingDiffers++;
  if (first !== second) counts.askingsDiffer++;
  if (first !== fresh || second !== fresh) console.log(`answered differently warm than fresh: ${query}`);
});
console.log(JSON.stringify(counts));
