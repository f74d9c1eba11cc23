/**
 * A CLI search without a daemon, two builds of vaultkeeper and qmd side by side (issue 31): `search Q --json` on one
 * vault, the arms taken in turn and in the reverse order every other round, each run's wall time and CPU time (user
 * and system, its children included: `find` among them, through /usr/bin/time). Prints the p50s, their ratios, and
 * whether the two builds printed the same bytes for every query. Each build searches with its own config cache (below).
 *
 *   node dist-bench/bench/search-cli-pairs.js --vault /tmp/scale/v1000000 --base /work/main [--build .] [--pairs 12]
 *     [--arms base,build,qmd,stale] [--env-build VAULTKEEPER_NO_FIND=1]
 *
 * `stale` is the build with `--no-refresh`: the index as it is, no freshness check, as qmd's search reads no file.
 *
 * qmd answers from `<vault>-qmd/qmd-home` (search-scale.ts builds it) when QMD_BIN is set.
 */
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CONFIG_CACHE_FILE } from '#src/core/config-cache.js';
import { runProgram } from './child.js';
import { benchQueries } from './generate.js';
import { qmdEnv } from './scale-build.js';

const { values } = parseArgs({
  options: {
    vault: { type: 'string' },
    base: { type: 'string' },
    build: { type: 'string', default: '.' },
    pairs: { type: 'string', default: '12' },
    arms: { type: 'string', default: 'base,build,qmd' },
    'env-build': { type: 'string', multiple: true, default: [] },
  },
});
if (values.vault === undefined || values.base === undefined) throw new Error('usage: --vault V --base REPO [--build REPO] [--pairs N] [--arms base,build,qmd]');
const vault = path.resolve(values.vault);
const QUERIES = benchQueries(42, 40);
const env: NodeJS.ProcessEnv = { ...process.env, LANCE_CPU_THREADS: process.env.LANCE_CPU_THREADS ?? '2' };
delete env.NODE_EXTRA_CA_CERTS;
const buildEnv = { ...env, ...Object.fromEntries(values['env-build'].map((kv) => kv.split('=', 2) as [string, string])) };
const cli = (repo: string): string => path.join(path.resolve(repo), 'dist', 'bin', 'vaultkeeper.js');

type Arm = (query: string) => [string, string[], NodeJS.ProcessEnv];
const ARMS: Record<string, Arm> = {
  base: (q) => [process.execPath, [cli(values.base!), '--vault', vault, 'search', q, '--json'], env],
  build: (q) => [process.execPath, [cli(values.build), '--vault', vault, 'search', q, '--json'], buildEnv],
  stale: (q) => [process.execPath, [cli(values.build), '--vault', vault, 'search', q, '--json', '--no-refresh'], buildEnv],
  qmd: (q) => [process.env.QMD_BIN ?? 'qmd', ['search', q, '--json', '-n', '10'], qmdEnv(env, path.join(`${vault}-qmd`, 'qmd-home'))],
};
const arms = values.arms.split(',');
for (const arm of arms) if (ARMS[arm] === undefined) throw new Error(`unknown arm ${arm}`);

interface Run {
  wallMs: number;
  cpuS: number;
  stdout: string;
}

/** One run through GNU time (child.ts): its wall time, and its CPU with its children's. */
async function run([program, args, runEnv]: [string, string[], NodeJS.ProcessEnv]): Promise<Run> {
  const r = await runProgram(program, args, { env: runEnv, measureRss: true });
  if (r.code !== 0) throw new Error(`${program} exited ${r.code}: ${r.stderr.slice(0, 300)}`);
  return { wallMs: r.wallMs, cpuS: r.cpuSeconds ?? NaN, stdout: r.stdout };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * Each build's own config cache, put back before its runs. The cache in the vault (core/config-cache.ts) is keyed by
 * the validator's path and bytes, so two builds taking turns on one vault found each other's entry at every turn and
 * parsed the YAML and loaded zod again: ~110 ms of CPU a search at 100k, which a person's searches never pay (one
 * build, its entry kept), and which made a build's ratio to qmd depend on the arm before it.
 */
const cacheFile = path.join(vault, CONFIG_CACHE_FILE);
const cached = new Map<string, string>();
async function runArm(arm: string, query: string): Promise<Run> {
  if (arm === 'qmd') return run(ARMS[arm]!(query));
  const own = cached.get(arm);
  if (own !== undefined) await writeFile(cacheFile, own);
  const result = await run(ARMS[arm]!(query));
  const after = await readFile(cacheFile, 'utf8').catch(() => undefined);
  if (after !== undefined) cached.set(arm, after);
  return result;
}

const pairs = Number(values.pairs);
const runs: Record<string, Run[]> = Object.fromEntries(arms.map((arm) => [arm, []]));
// One untimed search a build first, so that each has its config cache entry.
for (const arm of arms) if (arm !== 'qmd') await runArm(arm, QUERIES[0]!);
const loadBefore = os.loadavg();
const started = new Date();
for (let i = 0; i < pairs; i++) {
  const query = QUERIES[i % QUERIES.length]!;
  for (const arm of i % 2 === 0 ? arms : [...arms].reverse()) runs[arm]!.push(await runArm(arm, query));
}
const loads = (l: readonly number[]): string => l.map((x) => x.toFixed(1)).join(' / ');
const wall = (arm: string): number => median(runs[arm]!.map((r) => r.wallMs));
const cpu = (arm: string): number => median(runs[arm]!.map((r) => r.cpuS));
console.log(`${started.toISOString()} ${vault}: ${pairs} rounds, load ${loads(loadBefore)} -> ${loads(os.loadavg())}`);
for (const arm of arms) console.log(`  ${arm}: wall p50 ${wall(arm).toFixed(0)} ms, CPU p50 ${cpu(arm).toFixed(2)} s`);
for (const [a, b] of [['build', 'base'], ['build', 'qmd'], ['base', 'qmd'], ['stale', 'build'], ['stale', 'qmd']] as const) {
  if (!arms.includes(a) || !arms.includes(b)) continue;
  const perRound = median(runs[a]!.map((r, i) => r.wallMs / runs[b]![i]!.wallMs));
  console.log(`  ${a} / ${b}: wall ${(wall(a) / wall(b)).toFixed(2)}× (per round ${perRound.toFixed(2)}×), CPU ${(cpu(a) / cpu(b)).toFixed(2)}×`);
}
if (arms.includes('base') && arms.includes('build')) {
  console.log(`  the two builds printed the same bytes for every query: ${runs.base!.every((r, i) => r.stdout === runs.build![i]!.stdout)}`);
}
if (arms.includes('stale') && arms.includes('build')) {
  console.log(`  with and without --no-refresh the same bytes for every query: ${runs.stale!.every((r, i) => r.stdout === runs.build![i]!.stdout)}`);
}
