/**
 * Search at scale (issue 31): generated vaults of 10k to 1M facts (200 a day, 200 pages, seed 42, embedder none),
 * each built once through the CLI and kept in --dir, then measured side by side, alternating:
 * - in process: `Vault.search` warm (k 10, no refresh, no recall record) / the in-memory floor (bm25.ts's postings
 *   over the index's own two term fields, in the same process) / qmd's SDK `searchLex` in a warm child;
 * - the CLI without a daemon: `vaultkeeper search --json` / `qmd search --json -n 10`;
 * - MCP on a warm server: `memory_search` over stdio (k 10), p50 and the server's RSS afterwards.
 * qmd runs when QMD_BIN, QMD_NODE and QMD_SDK are set (docs/benchmarks.md says how to install it).
 *
 *   node dist-bench/bench/search-scale.js --facts 10000,100000 --dir /tmp/scale [--rounds 5] [--cli-runs 10] [--mcp-runs 60] [--prepare] [--out FILE]
 *
 * `--mcp-builds A,B [--mcp-rounds 3]`: only the MCP step, for builds A and B (folders holding dist/ and package.json),
 * a fresh server of each in turn each round (the order rotating): p50, p95, RSS and CPU per call, and B's p50 / A's.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openVault } from '#src/vault/vault.js';
import { buildPostings, readIndexFields } from './bm25.js';
import { CLI, runCli } from './child.js';
import { must, paired, setUpQmd, type Timing } from './dendron.js';
import { benchQueries, generateVault } from './generate.js';
import { progress } from './report.js';
import { markdownTable, ms, summarize, type Summary } from './stats.js';
import { setEmbedder } from './vaults.js';

/** What a run measures: the vault sizes, where the vaults are kept, and how many runs each step takes. */
export interface ScaleSettings {
  facts: number[];
  dir: string;
  rounds: number;
  cliRuns: number;
  mcpRuns: number;
  /** Only generate and index the vaults (ours and qmd's), measuring nothing: to prepare the large ones ahead. */
  prepare?: boolean;
}

const FACTS_PER_DAY = 200;
const QUERIES = benchQueries(42, 40);
const env: NodeJS.ProcessEnv = { ...process.env, LANCE_CPU_THREADS: process.env.LANCE_CPU_THREADS ?? '2' };
delete env.NODE_EXTRA_CA_CERTS;
const withQmd = Boolean(process.env.QMD_BIN && process.env.QMD_NODE && process.env.QMD_SDK);

export interface ScaleRow {
  facts: number;
  rows: number;
  inProcess: { ours: Summary; floor: Summary; qmd: Summary | null; vsQmd: number | null; vsFloor: number };
  cli: Timing;
  mcp: { p50: number; p95: number; rssMb: number };
}

/** A vault of `facts` facts, generated, committed and indexed once (a marker file says it is whole). */
async function vaultOf(dir: string, facts: number): Promise<string> {
  const root = path.join(dir, `v${facts}`);
  if (existsSync(path.join(root, '.scale-ready'))) return root;
  progress(`bench: scale: generating ${facts} facts`);
  execFileSync('rm', ['-rf', root]);
  await generateVault(root, { days: Math.ceil(facts / FACTS_PER_DAY), factsPerDay: FACTS_PER_DAY, pages: 200, seed: 42 });
  await setEmbedder(root, 'none');
  const git = (args: string[]): void => void execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd: root, stdio: 'ignore' });
  git(['add', '--all']);
  git(['commit', '-q', '-m', 'generated vault']);
  progress(`bench: scale: indexing ${facts} facts`);
  await must(runCli(['--vault', root, 'reindex', '--clear', '--json'], { env }), 'reindex');
  await writeFile(path.join(root, '.scale-ready'), '');
  return root;
}

/** In process: ours, the floor and qmd's in turn each round (the order rotates), every query once per round. */
async function inProcess(root: string, qmdDb: string | null, rounds: number): Promise<ScaleRow['inProcess'] & { rows: number }> {
  const vault = await openVault({ vault: root, env });
  const options = { k: 10, refresh: false, recordRecall: false } as const;
  const fields = await readIndexFields(path.join(root, '.vaultkeeper', 'index'));
  const floor = buildPostings(fields, 0.85);
  const qmd = qmdDb === null ? null : startQmdSearcher(qmdDb);
  const ours: number[][] = [];
  const floors: number[][] = [];
  const qmds: number[][] = [];
  const time = async (run: (q: string) => unknown): Promise<number[]> => {
    const times: number[] = [];
    for (const query of QUERIES) {
      const started = performance.now();
      await run(query);
      times.push(performance.now() - started);
    }
    return times;
  };
  try {
    for (const query of QUERIES) {
      await vault.search(query, options);
      floor.search(query, 10);
    }
    await qmd?.round();
    const sides = [
      async () => ours.push(await time((q) => vault.search(q, options))),
      async () => floors.push(await time((q) => floor.search(q, 10))),
      async () => qmd !== null && qmds.push(await qmd.round()),
    ];
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < sides.length; i++) await sides[(i + round) % sides.length]!();
    }
  } finally {
    await vault.close();
    qmd?.close();
  }
  const p50s = (runs: number[][]): number[] => runs.map((times) => summarize(times).p50);
  const median = (xs: number[]): number => summarize(xs).p50;
  return {
    rows: fields.keys.length,
    ours: summarize(ours.flat()),
    floor: summarize(floors.flat()),
    qmd: qmds.length === 0 ? null : summarize(qmds.flat()),
    vsQmd: qmds.length === 0 ? null : median(p50s(ours).map((x, i) => x / p50s(qmds)[i]!)),
    vsFloor: median(p50s(ours).map((x, i) => x / p50s(floors)[i]!)),
  };
}

/** qmd's store in a child on qmd's Node: each `round()` searches every query once and returns the times. */
function startQmdSearcher(dbPath: string): { round(): Promise<number[]>; close(): void } {
  const script = `const { createStore } = await import(${JSON.stringify(process.env.QMD_SDK)});
const store = await createStore({ dbPath: ${JSON.stringify(dbPath)} });
const queries = ${JSON.stringify(QUERIES)};
const { createInterface } = await import('node:readline');
for await (const line of createInterface({ input: process.stdin })) {
  if (line !== 'round') break;
  const times = [];
  for (const q of queries) { const t = performance.now(); await store.searchLex(q, { limit: 10 }); times.push(performance.now() - t); }
  console.log(JSON.stringify(times));
}
await store.close?.();
process.exit(0);`;
  const child = spawn(process.env.QMD_NODE!, ['--input-type=module', '-e', script], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const pending: Array<(line: string | null) => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => pending.shift()?.(line));
  child.on('close', () => pending.splice(0).forEach((resolve) => resolve(null)));
  return {
    round: () =>
      new Promise((resolve, reject) => {
        pending.push((line) => (line === null ? reject(new Error(`qmd: ${stderr.trim().split('\n').at(-1)}`)) : resolve(JSON.parse(line) as number[])));
        child.stdin.write('round\n');
      }),
    close: () => child.stdin.end(),
  };
}

/**
 * A warm MCP server over stdio: every query once to warm it, then `runs` memory_search calls; p50, p95, its RSS and
 * its CPU time per call (user and system, from /proc: wall time alone means little on a loaded machine).
 */
async function mcp(root: string, runs: number, cli = CLI): Promise<ScaleRow['mcp'] & { cpuMs: number }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, '--vault', root, 'mcp'], env: env as Record<string, string>, stderr: 'ignore' });
  const client = new Client({ name: 'bench-search-scale', version: '1.0.0' });
  await client.connect(transport);
  try {
    for (const query of QUERIES) await client.callTool({ name: 'memory_search', arguments: { query, k: 10 } });
    const cpuBefore = cpuTicks(transport.pid);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      await client.callTool({ name: 'memory_search', arguments: { query: QUERIES[i % QUERIES.length]!, k: 10 } });
      times.push(performance.now() - started);
    }
    const pid = transport.pid;
    // Clock ticks of 10 ms (USER_HZ 100 on Linux).
    const cpuMs = ((cpuTicks(pid) - cpuBefore) * 10) / runs;
    const rssKb = pid === null ? 0 : Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    const s = summarize(times);
    return { p50: s.p50, p95: s.p95, rssMb: rssKb / 1024, cpuMs };
  } finally {
    await client.close();
  }
}

/** A process's user and system CPU time so far, in clock ticks (0 without /proc). */
function cpuTicks(pid: number | null): number {
  if (pid === null) return 0;
  try {
    // The fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** The MCP step alone for two or more builds, alternating: each round a fresh server of each, the order rotating. */
export async function mcpAlternating(root: string, builds: readonly string[], runs: number, rounds: number): Promise<string> {
  const byBuild = builds.map(() => [] as Array<Awaited<ReturnType<typeof mcp>>>);
  for (let round = 0; round < rounds; round++) {
    for (let j = 0; j < builds.length; j++) {
      const i = (round + j) % builds.length;
      progress(`bench: scale: MCP ${path.basename(root)} round ${round + 1} ${builds[i]}`);
      byBuild[i]!.push(await mcp(root, runs, path.join(path.resolve(builds[i]!), 'dist', 'bin', 'vaultkeeper.js')));
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const p50s = byBuild.map((runsOf) => median(runsOf.map((r) => r.p50)));
  return [
    `${path.basename(root)}: ${rounds} rounds × ${runs} calls, ${new Date().toISOString().slice(0, 16)} UTC, load ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')} at the end`,
    markdownTable([
      ['build', 'p50 per round', 'p50 (median)', 'p95 (median)', 'CPU per call', 'RSS', '× first'],
      ...builds.map((build, i) => [
        build,
        byBuild[i]!.map((r) => ms(r.p50)).join(', '),
        ms(p50s[i]!),
        ms(median(byBuild[i]!.map((r) => r.p95))),
        ms(median(byBuild[i]!.map((r) => r.cpuMs))),
        `${Math.round(median(byBuild[i]!.map((r) => r.rssMb)))} MB`,
        `${(p50s[i]! / p50s[0]!).toFixed(2)}×`,
      ]),
    ]),
  ].join('\n');
}

/** Each size in turn: its vault (generated and indexed once), then in process, the CLI and MCP; `onRow` after each. */
export async function measureSearchScale(settings: ScaleSettings, onRow: (rows: readonly ScaleRow[]) => void = () => undefined): Promise<ScaleRow[]> {
  const rows: ScaleRow[] = [];
  for (const facts of settings.facts) {
    const root = await vaultOf(settings.dir, facts);
    const qmd = withQmd ? await qmdFor(root) : null;
    if (settings.prepare) continue;
    progress(`bench: scale: ${facts} facts in process`);
    const { rows: count, ...inProc } = await inProcess(root, qmd?.dbPath ?? null, settings.rounds);
    progress(`bench: scale: ${facts} facts CLI`);
    let q = 0;
    const cli = await paired(
      settings.cliRuns,
      () => runCli(['--vault', root, 'search', QUERIES[q % QUERIES.length]!, '--json'], { env }),
      qmd && (() => qmd.run(['search', QUERIES[q % QUERIES.length]!, '--json', '-n', '10'])),
      async () => void q++,
    );
    progress(`bench: scale: ${facts} facts MCP`);
    const server = await mcp(root, settings.mcpRuns);
    rows.push({ facts, rows: count, inProcess: inProc, cli, mcp: server });
    onRow(rows);
  }
  return rows;
}

/** qmd over the vault's logs and pages, its index kept beside the vault (built once). */
async function qmdFor(root: string): Promise<Awaited<ReturnType<typeof setUpQmd>>> {
  const base = `${root}-qmd`;
  const dbPath = path.join(base, 'qmd-home', 'cache', 'qmd', 'index.sqlite');
  if (existsSync(dbPath)) {
    const qmd = await setUpQmdLazily(base, root);
    return qmd;
  }
  progress(`bench: scale: qmd indexing ${path.basename(root)}`);
  return setUpQmd(base, root, env);
}

/** setUpQmd without its cold build, for an index built by an earlier run. */
async function setUpQmdLazily(base: string, root: string): Promise<Awaited<ReturnType<typeof setUpQmd>>> {
  const home = path.join(base, 'qmd-home');
  const qenv = { ...env, HOME: home, XDG_CACHE_HOME: path.join(home, 'cache'), XDG_CONFIG_HOME: path.join(home, 'config') };
  const run = (args: readonly string[]): ReturnType<typeof runCli> =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const child = spawn(process.env.QMD_BIN!, [...args], { env: qenv, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, wallMs: performance.now() - started, maxRssBytes: null, rssFrom: 'none' }));
    });
  return { run, cold: () => run(['collection', 'add', root, '--name', 'notes']), dbPath: path.join(home, 'cache', 'qmd', 'index.sqlite') };
}

export function renderSearchScale(all: readonly ScaleRow[], settings: ScaleSettings): string {
  const ratio = (x: number | null): string => (x === null ? '—' : `${x.toFixed(2)}×`);
  return [
    `Measured ${new Date().toISOString().slice(0, 16)} UTC, ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')} at the end; ` +
      `${QUERIES.length} queries (benchQueries(42, 40)), ${settings.rounds} in-process rounds, ${settings.cliRuns} CLI pairs, ${settings.mcpRuns} MCP calls.`,
    '',
    markdownTable([
      ['facts (rows)', 'in process p50: ours / floor / qmd', '× qmd', '× floor', 'CLI no daemon p50: ours / qmd', '× qmd', 'MCP warm p50 / p95, RSS'],
      ...all.map((r) => [
        `${r.facts.toLocaleString('en-US')} (${r.rows.toLocaleString('en-US')})`,
        `${ms(r.inProcess.ours.p50)} / ${ms(r.inProcess.floor.p50)} / ${r.inProcess.qmd === null ? '—' : ms(r.inProcess.qmd.p50)}`,
        ratio(r.inProcess.vsQmd),
        ratio(r.inProcess.vsFloor),
        `${ms(r.cli.ours.p50)} / ${r.cli.qmd === null ? '—' : ms(r.cli.qmd.p50)}`,
        ratio(r.cli.ratio),
        `${ms(r.mcp.p50)} / ${ms(r.mcp.p95)}, ${Math.round(r.mcp.rssMb)} MB`,
      ]),
    ]),
  ].join('\n');
}

/** Run as a script (not imported by bench.ts): the flags above, the table to stdout and to --out. */
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      facts: { type: 'string', default: '10000,100000' },
      dir: { type: 'string' },
      rounds: { type: 'string', default: '5' },
      'cli-runs': { type: 'string', default: '10' },
      'mcp-runs': { type: 'string', default: '60' },
      out: { type: 'string' },
      prepare: { type: 'boolean', default: false },
      'mcp-builds': { type: 'string' },
      'mcp-rounds': { type: 'string', default: '3' },
    },
  });
  if (values.dir === undefined) throw new Error('--dir PATH: where the generated vaults are kept between runs');
  const settings: ScaleSettings = {
    facts: values.facts.split(',').map(Number),
    dir: values.dir,
    rounds: Number(values.rounds),
    cliRuns: Number(values['cli-runs']),
    mcpRuns: Number(values['mcp-runs']),
    prepare: values.prepare,
  };
  if (values['mcp-builds'] === undefined) {
    const rows = await measureSearchScale(settings, (sofar) => process.stdout.write(`${renderSearchScale(sofar, settings)}\n`));
    if (values.out !== undefined) await writeFile(values.out, renderSearchScale(rows, settings));
  } else {
    const tables: string[] = [];
    for (const facts of settings.facts) {
      tables.push(await mcpAlternating(await vaultOf(settings.dir, facts), values['mcp-builds'].split(','), settings.mcpRuns, Number(values['mcp-rounds'])));
      process.stdout.write(`${tables.at(-1)!}\n\n`);
    }
    if (values.out !== undefined) await writeFile(values.out, tables.join('\n\n'));
  }
}
