/**
 * Search at scale (issue 31): generated vaults of 10k to 1M facts (200 a day, 200 pages, seed 42, embedder none),
 * each built once through the CLI and kept in --dir, then measured side by side, alternating:
 * - in process: `Vault.search` warm (k 10, no refresh, no recall record) / the in-memory floor (bm25.ts's postings
 *   over the index's own two term fields, in the same process) / qmd's SDK `searchLex` in a warm child;
 * - the CLI without a daemon: `vaultkeeper search --json` / `qmd search --json -n 10`;
 * - MCP on a warm server: `memory_search` over stdio (k 10), p50 and the server's RSS afterwards, for questions asked
 *   before (the 40 queries again, as an agent repeats itself) and for new ones (each asked once of each server, taken in
 *   turn with the repeated ones: a server's kept rows and tie depths help both, only the repeated ones can be remembered);
 * - the cold build, ours and qmd's, wall time and peak RSS (scale-build.ts): measured when the vault or qmd's index is
 *   first built and kept beside the vault, measured again on a copy with `--rebuild`.
 * qmd runs when QMD_BIN, QMD_NODE and QMD_SDK are set (docs/benchmarks.md says how to install it). The vaults of an
 * earlier run are used as they are (`--dir`; a vault is whole once `.scale-ready` is in it), so a run over built
 * vaults takes minutes, not the hour their builds took. `npm run bench -- --only scaling` adds the offline dream's
 * backlog (dream-backlog.ts) and writes the one table into docs/benchmarks.md.
 *
 *   node dist-bench/bench/search-scale.js --facts 10000,100000 --dir /tmp/scale [--rounds 5] [--cli-runs 10] [--mcp-runs 60] [--rebuild] [--prepare] [--out FILE]
 *
 * `--mcp-builds A,B [--mcp-rounds 3]`: only the MCP step, for builds A and B (folders holding dist/ and package.json),
 * a fresh server of each in turn each round (the order rotating): p50, p95, RSS and CPU per call, and B's p50 / A's.
 * `--inprocess-builds A,B`: only the in-process step, builds A and B side by side in one process with the floor and
 * qmd, each round every side in turn (the order rotating): p50 and CPU per query of each, and the ratios of each round.
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
import { must, paired, type setUpQmd, type Timing } from './dendron.js';
import { benchQueries, generateVault } from './generate.js';
import { progress } from './report.js';
import { commitOf, figureOf, measureBuilds, qmdColdBuild, qmdEnv, readBuild, recordBuild, type BuildFigure, type ScaleBuild } from './scale-build.js';
import { markdownTable, ms, summarize, type Summary } from './stats.js';
import type { BacklogRun } from './dream-backlog.js';
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
  /** Measure both cold builds again (on a copy of the vault), not only read what an earlier run recorded. */
  rebuild?: boolean;
}

const FACTS_PER_DAY = 200;
const QUERIES = benchQueries(42, 40);
/** Questions no server was asked before: distinct generated queries outside QUERIES (1,646 of them), each asked once per server. */
const NEW_QUERIES = [...new Set(benchQueries(4242, 3000))].filter((q) => !QUERIES.includes(q));
const env: NodeJS.ProcessEnv = { ...process.env, LANCE_CPU_THREADS: process.env.LANCE_CPU_THREADS ?? '2' };
delete env.NODE_EXTRA_CA_CERTS;
const withQmd = Boolean(process.env.QMD_BIN && process.env.QMD_NODE && process.env.QMD_SDK);

export interface ScaleRow {
  facts: number;
  rows: number;
  inProcess: { ours: Summary; floor: Summary; qmd: Summary | null; vsQmd: number | null; vsFloor: number };
  cli: Timing;
  mcp: McpFigures;
  build: ScaleBuild;
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
  const built = await must(runCli(['--vault', root, 'reindex', '--clear', '--json'], { env, measureRss: true }), 'reindex');
  await recordBuild(root, 'ours', figureOf(built, commitOf()));
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
function startQmdSearcher(dbPath: string): { round(): Promise<number[]>; close(): void; pid: number | undefined } {
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
    pid: child.pid,
  };
}

/** CPU seconds (user + system) a child has used so far, from /proc (Linux; 0 elsewhere). */
function childCpuMs(pid: number | undefined): number {
  if (pid === undefined || process.platform !== 'linux') return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    // utime and stime are the 12th and 13th fields after the command, in clock ticks (100 a second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/**
 * The in-process column for several builds at once (`--inprocess-builds`): each build's `Vault.search` warm in this
 * process, the floor and qmd's `searchLex` in a warm child, every side in turn each round (the order rotating), so
 * the builds meet the same load. Per side: the median of the rounds' p50s and CPU per query (this process's CPU
 * over its round, qmd's child's from /proc); per build, the median of its rounds' p50 ratios to qmd, the floor and
 * the first build.
 */
export async function inProcessAlternating(root: string, qmdDb: string | null, builds: readonly string[], rounds: number): Promise<string> {
  const options = { k: 10, refresh: false, recordRecall: false } as const;
  const vaults = [];
  for (const build of builds) {
    const { openVault: open } = (await import(pathToFileURL(path.resolve(build, 'dist/vault/vault.js')).href)) as { openVault: typeof openVault };
    vaults.push(await open({ vault: root, env }));
  }
  const fields = await readIndexFields(path.join(root, '.vaultkeeper', 'index'));
  const floor = buildPostings(fields, 0.85);
  const qmd = qmdDb === null ? null : startQmdSearcher(qmdDb);
  const names = [...builds, 'floor', ...(qmd === null ? [] : ['qmd'])];
  const p50s = names.map(() => [] as number[]);
  const cpus = names.map(() => [] as number[]);
  const timed = async (side: number, run: (q: string) => unknown): Promise<void> => {
    const times: number[] = [];
    const cpu = process.cpuUsage();
    for (const query of QUERIES) {
      const started = performance.now();
      await run(query);
      times.push(performance.now() - started);
    }
    const used = process.cpuUsage(cpu);
    p50s[side]!.push(summarize(times).p50);
    cpus[side]!.push((used.user + used.system) / 1000 / QUERIES.length);
  };
  try {
    for (const vault of vaults) for (let i = 0; i < 2; i++) for (const query of QUERIES) await vault.search(query, options);
    for (const query of QUERIES) floor.search(query, 10);
    await qmd?.round();
    const sides = [
      ...vaults.map((vault, i) => () => timed(i, (q) => vault.search(q, options))),
      () => timed(vaults.length, (q) => floor.search(q, 10)),
      ...(qmd === null
        ? []
        : [
            async () => {
              const before = childCpuMs(qmd.pid);
              p50s[vaults.length + 1]!.push(summarize(await qmd.round()).p50);
              cpus[vaults.length + 1]!.push((childCpuMs(qmd.pid) - before) / QUERIES.length);
            },
          ]),
    ];
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < sides.length; i++) await sides[(i + round) % sides.length]!();
    }
  } finally {
    for (const vault of vaults) await vault.close();
    qmd?.close();
  }
  const median = (xs: readonly number[]): number => summarize(xs).p50;
  const ratio = (a: number, b: number): string => `${median(p50s[a]!.map((x, i) => x / p50s[b]![i]!)).toFixed(2)}×`;
  const load = os.loadavg().map((x) => x.toFixed(1)).join(' / ');
  return [
    `In process, ${fields.keys.length.toLocaleString('en-US')} rows, ${rounds} rounds of ${QUERIES.length} queries, load ${load} at the end:`,
    '',
    markdownTable([
      ['side', 'p50 per round', 'median p50', 'CPU per query', '× qmd', '× floor', `× ${builds[0]}`],
      ...names.map((name, i) => [
        name,
        p50s[i]!.map((x) => x.toFixed(2)).join(', '),
        ms(median(p50s[i]!)),
        `${median(cpus[i]!).toFixed(2)} ms`,
        qmd === null || i === names.length - 1 ? '—' : ratio(i, names.length - 1),
        i === vaults.length ? '—' : ratio(i, vaults.length),
        i < vaults.length && i > 0 ? ratio(i, 0) : '—',
      ]),
    ]),
  ].join('\n');
}

/** A warm server's figures: questions asked before (`p50`, `p95`, `cpuMs`) and new ones (`fresh`), its RSS at the end. */
export interface McpFigures {
  p50: number;
  p95: number;
  cpuMs: number;
  rssMb: number;
  /** Questions this server was never asked (NEW_QUERIES), one of them after each repeated call; absent in earlier runs. */
  fresh?: { p50: number; p95: number; cpuMs: number };
}

/**
 * A warm MCP server over stdio: every query once to warm it, then `runs` memory_search calls of questions asked before,
 * each followed by one of a question never asked (NEW_QUERIES in order, so every server gets the same ones); p50, p95
 * and the CPU time per call of each kind (user and system, from /proc: wall time alone means little on a loaded
 * machine), and the server's RSS at the end.
 */
async function mcp(root: string, runs: number, cli = CLI): Promise<McpFigures> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, '--vault', root, 'mcp'], env: env as Record<string, string>, stderr: 'ignore' });
  const client = new Client({ name: 'bench-search-scale', version: '1.0.0' });
  await client.connect(transport);
  try {
    for (const query of QUERIES) await client.callTool({ name: 'memory_search', arguments: { query, k: 10 } });
    const pid = transport.pid;
    const asked = { times: [] as number[], ticks: 0 };
    const fresh = { times: [] as number[], ticks: 0 };
    const call = async (query: string, into: typeof asked): Promise<void> => {
      const ticks = cpuTicks(pid);
      const started = performance.now();
      await client.callTool({ name: 'memory_search', arguments: { query, k: 10 } });
      into.times.push(performance.now() - started);
      into.ticks += cpuTicks(pid) - ticks;
    };
    for (let i = 0; i < runs; i++) {
      await call(QUERIES[i % QUERIES.length]!, asked);
      await call(NEW_QUERIES[i % NEW_QUERIES.length]!, fresh);
    }
    // Clock ticks of 10 ms (USER_HZ 100 on Linux).
    const rssKb = pid === null ? 0 : Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    const s = summarize(asked.times);
    const f = summarize(fresh.times);
    return { p50: s.p50, p95: s.p95, rssMb: rssKb / 1024, cpuMs: (asked.ticks * 10) / runs, fresh: { p50: f.p50, p95: f.p95, cpuMs: (fresh.ticks * 10) / runs } };
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
  const kinds = [
    ['asked before', (r: McpFigures) => r],
    ['new', (r: McpFigures) => r.fresh!],
  ] as const;
  return [
    `${path.basename(root)}: ${rounds} rounds × ${runs} calls of questions asked before and ${runs} of new ones (taken in turn), ${new Date().toISOString().slice(0, 16)} UTC, load ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')} at the end`,
    markdownTable([
      ['build', 'questions', 'p50 per round', 'p50 (median)', 'p95 (median)', 'CPU per call', 'RSS', '× first'],
      ...kinds.flatMap(([kind, of]) => {
        const p50s = byBuild.map((runsOf) => median(runsOf.map((r) => of(r).p50)));
        return builds.map((build, i) => [
          build,
          kind,
          byBuild[i]!.map((r) => ms(of(r).p50)).join(', '),
          ms(p50s[i]!),
          ms(median(byBuild[i]!.map((r) => of(r).p95))),
          ms(median(byBuild[i]!.map((r) => of(r).cpuMs))),
          `${Math.round(median(byBuild[i]!.map((r) => r.rssMb)))} MB`,
          `${(p50s[i]! / p50s[0]!).toFixed(2)}×`,
        ]);
      }),
    ]),
  ].join('\n');
}

/** Each size in turn: its vault (generated and indexed once), then in process, the CLI and MCP; `onRow` after each. */
export async function measureSearchScale(settings: ScaleSettings, onRow: (rows: readonly ScaleRow[]) => void = () => undefined): Promise<ScaleRow[]> {
  const rows: ScaleRow[] = [];
  for (const facts of settings.facts) {
    const root = await vaultOf(settings.dir, facts);
    const qmdBuiltBefore = withQmd && existsSync(qmdDbOf(root));
    const qmd = withQmd ? await qmdFor(root) : null;
    // qmd's cold build was just measured when its index had to be built. The order alternates from one size to the next.
    if (settings.rebuild) await measureBuilds(root, env, { qmd: qmdBuiltBefore, qmdFirst: rows.length % 2 === 1 });
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
    rows.push({ facts, rows: count, inProcess: inProc, cli, mcp: server, build: await readBuild(root) });
    onRow(rows);
  }
  return rows;
}

/** qmd over the vault's logs and pages, its index kept beside the vault (built once). */
const qmdDbOf = (root: string): string => path.join(`${root}-qmd`, 'qmd-home', 'cache', 'qmd', 'index.sqlite');

async function qmdFor(root: string): Promise<Awaited<ReturnType<typeof setUpQmd>>> {
  const base = `${root}-qmd`;
  const qmd = setUpQmdLazily(base, root);
  if (existsSync(qmdDbOf(root))) return qmd;
  progress(`bench: scale: qmd indexing ${path.basename(root)}`);
  await recordBuild(root, 'qmd', await qmdColdBuild(root, path.join(base, 'qmd-home'), env));
  return qmd;
}

/** setUpQmd without its cold build, for an index built by an earlier run. */
function setUpQmdLazily(base: string, root: string): Awaited<ReturnType<typeof setUpQmd>> {
  const home = path.join(base, 'qmd-home');
  const qenv = qmdEnv(env, home);
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

/** When the table was measured: the commit, and the load average (1 / 5 / 15 min) as the run began. */
export interface ScaleRun {
  started: Date;
  commit: string;
  loadAtStart: readonly number[];
}

export function scaleRunNow(): ScaleRun {
  return { started: new Date(), commit: commitOf(), loadAtStart: os.loadavg() };
}

/**
 * The one scaling table (issue 31): a row per vault size measured, and per dream backlog size; search, the cold build
 * and the offline dream side by side. A build figure an earlier run recorded says when it was measured.
 */
export function renderSearchScale(all: readonly ScaleRow[], settings: ScaleSettings, run: ScaleRun = scaleRunNow(), dream: readonly BacklogRun[] = []): string {
  const ratio = (x: number | null): string => (x === null ? '—' : `${x.toFixed(2)}×`);
  const loads = (l: readonly number[]): string => l.map((x) => x.toFixed(1)).join(' / ');
  const sizes = [...new Set([...all.map((r) => r.facts), ...dream.map((d) => d.facts)])].sort((a, b) => a - b);
  const stamp = (f: BuildFigure): string => `${f.at.slice(0, 16).replace('T', ' ')}, load ${f.load}${f.by === 'qmd' ? '' : `, ${f.by}`}`;
  const builds: string[] = [];
  const buildCells = (b: ScaleBuild | undefined): string[] => {
    if (b === undefined || b.ours === null) return ['—', '—'];
    const note = (): string => {
      builds.push(`ours ${stamp(b.ours!)}${b.qmd === null ? '' : `; qmd ${stamp(b.qmd)}`}`);
      return `${'¹²³⁴⁵⁶⁷⁸⁹'[builds.length - 1] ?? ''}`;
    };
    const mb = (bytes: number | null): string => (bytes === null ? '—' : `${Math.round(bytes / 1024 / 1024)}`);
    const time = `${(b.ours.ms / 1000).toFixed(0)} s / ${b.qmd === null ? '—' : `${(b.qmd.ms / 1000).toFixed(0)} s (${ratio(b.ours.ms / b.qmd.ms)})`}`;
    const rss = `${mb(b.ours.rssBytes)} / ${b.qmd === null ? '—' : mb(b.qmd.rssBytes)} MiB${b.qmd?.rssBytes && b.ours.rssBytes ? ` (${ratio(b.ours.rssBytes / b.qmd.rssBytes)})` : ''}`;
    return [`${time}${note()}`, rss];
  };
  const dreamCell = (d: BacklogRun | undefined): string => {
    if (d === undefined) return '—';
    const first = dream[0]!;
    const growth = d === first ? '' : `, ${(d.ms / first.ms).toFixed(1)}× the ${first.facts.toLocaleString('en-US')}'s`;
    return `${(d.ms / 1000).toFixed(1)} s (${d.ok}/${d.runs} runs ok, ${d.skipped} skipped${growth})`;
  };
  const rows = sizes.map((facts) => {
    const r = all.find((row) => row.facts === facts);
    const d = dream.find((x) => x.facts === facts);
    if (r === undefined) return [facts.toLocaleString('en-US'), '—', '—', '—', '—', '—', '—', '—', '—', dreamCell(d)];
    return [
      `${r.facts.toLocaleString('en-US')} (${r.rows.toLocaleString('en-US')})`,
      `${ms(r.inProcess.ours.p50)} / ${ms(r.inProcess.floor.p50)} / ${r.inProcess.qmd === null ? '—' : ms(r.inProcess.qmd.p50)}`,
      ratio(r.inProcess.vsQmd),
      ratio(r.inProcess.vsFloor),
      `${ms(r.cli.ours.p50)} / ${r.cli.qmd === null ? '—' : ms(r.cli.qmd.p50)}`,
      ratio(r.cli.ratio),
      `${ms(r.mcp.p50)} / ${ms(r.mcp.p95)}; new ${r.mcp.fresh === undefined ? '—' : `${ms(r.mcp.fresh.p50)} / ${ms(r.mcp.fresh.p95)}`}; ${Math.round(r.mcp.rssMb)} MB`,
      ...buildCells(r.build),
      dreamCell(d),
    ];
  });
  return [
    `Measured ${run.started.toISOString().slice(0, 16).replace('T', ' ')}–${new Date().toISOString().slice(11, 16)} UTC, commit ${run.commit}, ${os.cpus().length} cores, ` +
      `load average (1 / 5 / 15 min) ${loads(run.loadAtStart)} at the start, ${loads(os.loadavg())} at the end; ` +
      `${QUERIES.length} queries (benchQueries(42, 40)), ${settings.rounds} in-process rounds, ${settings.cliRuns} CLI pairs, ` +
      `${settings.mcpRuns} MCP calls of those queries again and ${settings.mcpRuns} of new ones, each asked once of the server, in turn` +
      `${dream.length === 0 ? '' : `; the offline dream of a backlog of ${dream.map((d) => d.facts.toLocaleString('en-US')).join(' and ')} facts (200 a day, default limits, dream-backlog.ts)`}.`,
    '',
    markdownTable([
      [
        'facts (rows)',
        'in process p50: ours / floor / qmd',
        '× qmd',
        '× floor',
        'CLI no daemon p50: ours / qmd',
        '× qmd',
        'MCP warm p50 / p95: asked before; new; RSS',
        'cold build: ours / qmd (× qmd)',
        'build peak RSS: ours / qmd',
        'offline dream of this many facts',
      ],
      ...rows,
    ]),
    ...(builds.length === 0 ? [] : ['', `Cold builds measured ${builds.map((b, i) => `${'¹²³⁴⁵⁶⁷⁸⁹'[i] ?? ''} ${b}`).join('; ')} (ours: \`reindex --clear\`; qmd: a cold \`collection add\`; peak RSS by GNU time).`]),
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
      rebuild: { type: 'boolean', default: false },
      'mcp-builds': { type: 'string' },
      'mcp-rounds': { type: 'string', default: '3' },
      'inprocess-builds': { type: 'string' },
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
    rebuild: values.rebuild,
  };
  if (values['inprocess-builds'] !== undefined) {
    const tables: string[] = [];
    for (const facts of settings.facts) {
      const root = await vaultOf(settings.dir, facts);
      const qmdDb = qmdDbOf(root);
      tables.push(await inProcessAlternating(root, existsSync(qmdDb) && process.env.QMD_SDK !== undefined ? qmdDb : null, values['inprocess-builds'].split(','), settings.rounds));
      process.stdout.write(`${tables.at(-1)!}\n\n`);
    }
    if (values.out !== undefined) await writeFile(values.out, tables.join('\n\n'));
  } else if (values['mcp-builds'] === undefined) {
    const run = scaleRunNow();
    const rows = await measureSearchScale(settings, (sofar) => process.stdout.write(`${renderSearchScale(sofar, settings, run)}\n`));
    if (values.out !== undefined) await writeFile(values.out, renderSearchScale(rows, settings, run));
  } else {
    const tables: string[] = [];
    for (const facts of settings.facts) {
      tables.push(await mcpAlternating(await vaultOf(settings.dir, facts), values['mcp-builds'].split(','), settings.mcpRuns, Number(values['mcp-rounds'])));
      process.stdout.write(`${tables.at(-1)!}\n\n`);
    }
    if (values.out !== undefined) await writeFile(values.out, tables.join('\n\n'));
  }
}
