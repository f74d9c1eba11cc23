/**
 * The Dendron-vault section of `npm run bench`: the 1,012 notes of ../shared/data/dendron-vault copied
 * into a temp vault and measured through the built CLI: cold build, no-op update, 10-note update, CLI
 * search with and without the daemon, search in process. With QMD_BIN (a qmd executable) set, qmd runs on
 * the same notes, alternating with ours run by run, and the ratio is the median of the pairwise ratios.
 * With QMD_NODE and QMD_SDK (a Node for qmd and its dist/index.js) qmd's in-process BM25 is measured too.
 * Full text only on both sides (embedder none; qmd's `search`, its BM25 path): it is what runs offline.
 */
import { spawn } from 'node:child_process';
import { appendFile, cp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { readManifestSummary } from '#src/indexer/manifest.js';
import { openVault } from '#src/vault/vault.js';
import { runCli, type ChildResult } from './child.js';
import { progress } from './report.js';
import { markdownTable, ms, summarize, type Summary } from './stats.js';

export const DENDRON_DIR = 'dendron';
/** Words a person looks up in the Dendron docs: one to three words, as an agent would search. */
export const QUERIES = [
  'wikilinks', 'publish site', 'vault config', 'lookup hierarchy', 'git', 'schema templates', 'backlinks',
  'refactor hierarchy', 'markdown preview', 'workspace sync', 'seeds', 'pods export', 'note references',
  'daily journal', 'tags', 'frontmatter', 'graph view', 'keyboard shortcuts', 'rename note', 'github pages',
];

export interface Timing {
  ours: Summary;
  qmd: Summary | null;
  /** Median of ours/qmd over runs paired by order. */
  ratio: number | null;
}

export interface DendronResult {
  notes: number;
  rows: number;
  runs: number;
  cold: Timing;
  noop: Timing;
  tenNotes: Timing;
  cliSearch: Timing;
  cliSearchDaemon: Timing;
  /** After the 10-note updates, with their rows not yet folded into the full-text index (searched flat). */
  inProcessUnfolded: Timing;
  /** Once the daemon has folded them in, as a warm daemon keeps the index. */
  inProcess: Timing;
  qmd: string | null;
}

interface Qmd {
  run(args: readonly string[]): Promise<ChildResult>;
  /** A cold build: its index and config removed, then `collection add` (which indexes). */
  cold(): Promise<ChildResult>;
  dbPath: string;
}

export async function measureDendron(base: string, data: string, settings: { runs: number; env: NodeJS.ProcessEnv }): Promise<DendronResult> {
  // Both sides start without the extra CA bundle some machines set (this one does): Node 20 reads it at every
  // start, ~40 ms when quiet, which a normal machine does not pay (issue 12's figures were taken without it).
  const env = { ...settings.env };
  delete env.NODE_EXTRA_CA_CERTS;
  const options = { ...settings, env };
  const root = path.join(base, 'dendron-vault');
  await must(runCli(['init', root, '--json'], { env: options.env }), 'init');
  await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'index:\n  embedder: none\nextract:\n  sessions: []\n');
  const notesDir = path.join(root, DENDRON_DIR);
  await mkdir(notesDir, { recursive: true });
  const notes = (await readdir(data)).filter((name) => name.endsWith('.md')).sort();
  await Promise.all(notes.map((name) => cp(path.join(data, name), path.join(notesDir, name))));
  const qmd = process.env.QMD_BIN ? await setUpQmd(base, notesDir, options.env) : null;
  const vk = (args: readonly string[]): Promise<ChildResult> => runCli(['--vault', root, ...args], { env: options.env });
  const runs = options.runs;

  progress(`bench: dendron: ${notes.length} notes, ${runs} runs each${qmd ? ', alternating with qmd' : ''}`);
  const cold = await paired(runs, () => vk(['reindex', '--clear', '--json']), qmd && (() => qmd.cold()));
  const rows = (JSON.parse((await must(vk(['reindex', '--json']), 'reindex')).stdout) as { rows: number }).rows;
  const noop = await paired(runs, () => vk(['reindex', '--json']), qmd && (() => qmd.run(['update'])));
  let edit = 0;
  const tenNotes = await paired(runs, () => vk(['reindex', '--json']), qmd && (() => qmd.run(['update'])), async () => {
    edit++;
    for (const name of notes.slice(edit * 10, edit * 10 + 10)) await appendFile(path.join(notesDir, name), `\nEdited for the benchmark, round ${edit}.\n`);
  });

  const queries = Array.from({ length: Math.max(runs * 2, QUERIES.length) }, (_, i) => QUERIES[i % QUERIES.length]!);
  let q = 0;
  const nextQuery = async (): Promise<void> => {
    q++;
  };
  const cliSearch = await paired(queries.length, () => vk(['search', queries[q % queries.length]!, '--json']), qmd && (() => qmd.run(['search', queries[q % queries.length]!, '--json', '-n', '10'])), nextQuery);
  const inProcessUnfolded = await measureInProcess(root, queries, options.env, qmd);

  await must(vk(['daemon', 'start', '--background', '--json']), 'daemon start');
  let cliSearchDaemon: Timing;
  try {
    await waitForDaemon(vk);
    q = 0;
    cliSearchDaemon = await paired(queries.length, () => vk(['search', queries[q % queries.length]!, '--json']), qmd && (() => qmd.run(['search', queries[q % queries.length]!, '--json', '-n', '10'])), nextQuery);
    await waitForFold(root);
  } finally {
    await vk(['daemon', 'stop']);
  }

  const inProcess = await measureInProcess(root, queries, options.env, qmd);
  return { notes: notes.length, rows, runs, cold, noop, tenNotes, cliSearch, cliSearchDaemon, inProcessUnfolded, inProcess, qmd: process.env.QMD_BIN ?? null };
}

/** Runs ours and qmd's in turn, `runs` times, swapping which goes first each run; `before` runs ahead of each pair. */
export async function paired(
  runs: number,
  ours: () => Promise<ChildResult>,
  theirs: (() => Promise<ChildResult>) | null,
  before?: () => Promise<void>,
): Promise<Timing> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    await before?.();
    const mine = async (): Promise<void> => {
      a.push((await must(ours(), 'vaultkeeper')).wallMs);
    };
    const other = async (): Promise<void> => {
      if (theirs === null) return;
      b.push((await must(theirs(), 'qmd')).wallMs);
    };
    if (i % 2 === 0) {
      await mine();
      await other();
    } else {
      await other();
      await mine();
    }
  }
  return timing(a, b);
}

function timing(a: number[], b: number[]): Timing {
  const ratios = b.length === a.length && b.length > 0 ? a.map((x, i) => x / b[i]!) : [];
  return { ours: summarize(a), qmd: b.length > 0 ? summarize(b) : null, ratio: ratios.length > 0 ? summarize(ratios).p50 : null };
}

export async function must(result: Promise<ChildResult>, what: string): Promise<ChildResult> {
  const r = await result;
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}: ${r.stderr.trim().split('\n').at(-1)}`);
  return r;
}

async function waitForDaemon(vk: (args: readonly string[]) => Promise<ChildResult>): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const r = await vk(['search', 'wikilinks', '--json', '--debug']);
    if (r.stderr.includes('answered by the daemon')) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the daemon did not answer within 2 minutes');
}

/**
 * Until the daemon, quiet after its searches, has folded the rows written since the last compaction into the
 * full-text index (daemon/warm.ts): the manifest then counts no writes since. At most 30 s.
 */
async function waitForFold(root: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if ((await readManifestSummary(root))?.writes === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  progress('bench: dendron: the daemon did not fold the new rows in within 30 s; measuring as they are');
}

/** qmd with its index and config in temp folders (never the person's ~/.cache/qmd). */
export async function setUpQmd(base: string, notesDir: string, env: NodeJS.ProcessEnv): Promise<Qmd> {
  const home = path.join(base, 'qmd-home');
  await mkdir(home, { recursive: true });
  const qenv = { ...env, HOME: home, XDG_CACHE_HOME: path.join(home, 'cache'), XDG_CONFIG_HOME: path.join(home, 'config') };
  const run = (args: readonly string[]): Promise<ChildResult> => runProgram(process.env.QMD_BIN!, args, qenv);
  const qmd: Qmd = {
    dbPath: path.join(home, 'cache', 'qmd', 'index.sqlite'),
    run,
    cold: async () => {
      await rm(path.join(home, 'cache'), { recursive: true, force: true });
      await rm(path.join(home, 'config'), { recursive: true, force: true });
      return run(['collection', 'add', notesDir, '--name', 'notes']);
    },
  };
  await must(qmd.cold(), 'qmd collection add');
  return qmd;
}

function runProgram(program: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(program, [...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, wallMs: performance.now() - started, maxRssBytes: null, rssFrom: 'none' }));
  });
}

/** Rounds of in-process searches, ours and qmd's alternating, so a change in the machine's load hits both. */
const IN_PROCESS_ROUNDS = 10;
/**
 * Each side first answers every query once, unmeasured: a warm process has. Our first rounds run while V8 still
 * compiles the search path (on Dendron the first two rounds' p50 2-3 ms, later ones ~1.6 ms; docs/benchmarks.md).
 */
function warmUpQueries(queries: readonly string[]): readonly string[] {
  return [...new Set(queries)];
}

/**
 * Ours: Vault.search on a warm vault (as the daemon runs it). qmd's: its SDK's searchLex, when QMD_NODE and
 * QMD_SDK are set, in a child kept warm. Each round runs every query once on each side, in turn; the ratio
 * is the median of the rounds' p50 ratios.
 */
export async function measureInProcess(root: string, queries: readonly string[], env: NodeJS.ProcessEnv, qmd: Pick<Qmd, 'dbPath'> | null): Promise<Timing> {
  const vault = await openVault({ vault: root, env });
  const options = { k: 10, refresh: false, recordRecall: false } as const;
  const theirs = qmd !== null && process.env.QMD_NODE && process.env.QMD_SDK ? startQmdSearcher(qmd.dbPath, queries, env) : null;
  const ours: number[][] = [];
  const qmds: number[][] = [];
  try {
    for (const query of warmUpQueries(queries)) await vault.search(query, options);
    for (let round = 0; round < IN_PROCESS_ROUNDS; round++) {
      const times: number[] = [];
      for (const query of queries) {
        const started = performance.now();
        await vault.search(query, options);
        times.push(performance.now() - started);
      }
      ours.push(times);
      const other = await theirs?.round().catch((error: unknown) => {
        progress(`bench: dendron: qmd in process failed: ${String(error)}`);
        return null;
      });
      if (other) qmds.push(other);
    }
  } finally {
    await vault.close();
    theirs?.close();
  }
  const all = timing(ours.flat(), []);
  if (qmds.length !== ours.length) return all;
  const ratios = ours.map((times, i) => summarize(times).p50 / summarize(qmds[i]!).p50);
  return { ours: all.ours, qmd: summarize(qmds.flat()), ratio: summarize(ratios).p50 };
}

/** qmd's store in a child on qmd's Node: each `round()` searches every query once and returns the times. */
function startQmdSearcher(dbPath: string, queries: readonly string[], env: NodeJS.ProcessEnv): { round(): Promise<number[]>; close(): void } {
  const script = `const { createStore } = await import(${JSON.stringify(process.env.QMD_SDK)});
const store = await createStore({ dbPath: ${JSON.stringify(dbPath)} });
const queries = ${JSON.stringify(queries)};
for (const q of ${JSON.stringify(warmUpQueries(queries))}) await store.searchLex(q, { limit: 10 });
const { createInterface } = await import('node:readline');
for await (const line of createInterface({ input: process.stdin })) {
  if (line !== 'round') break;
  const times = [];
  for (const q of queries) { const t = performance.now(); await store.searchLex(q, { limit: 10 }); times.push(performance.now() - t); }
  console.log(JSON.stringify(times));
}
await store.close?.();
process.exit(0);`;
  const child = spawn(process.env.QMD_NODE!, ['--input-type=module', '-e', script], {
    env: { ...env, HOME: path.dirname(path.dirname(path.dirname(dbPath))) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const lines = createInterface({ input: child.stdout });
  const pending: Array<(line: string | null) => void> = [];
  lines.on('line', (line) => pending.shift()?.(line));
  child.on('close', () => {
    for (const resolve of pending.splice(0)) resolve(null);
  });
  return {
    round: () =>
      new Promise((resolve, reject) => {
        pending.push((line) => {
          try {
            if (line === null) throw new Error(stderr.trim().split('\n').at(-1) ?? 'exited');
            resolve(JSON.parse(line) as number[]);
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
        child.stdin.write('round\n');
      }),
    close: () => {
      child.stdin.end();
    },
  };
}

export function renderDendron(r: DendronResult): string {
  const row = (name: string, t: Timing): string[] => [
    name,
    `${ms(t.ours.p50)} / ${ms(t.ours.p95)}`,
    t.qmd === null ? '—' : `${ms(t.qmd.p50)} / ${ms(t.qmd.p95)}`,
    t.ratio === null ? '—' : `${t.ratio.toFixed(2)}×`,
  ];
  return [
    `### Side by side on the Dendron vault`,
    '',
    `${r.notes} notes of the Dendron documentation vault (${r.rows} rows; embedder \`none\`) copied into a temp vault; ` +
      (r.qmd === null ? 'qmd not run (set QMD_BIN to a qmd executable).' : `qmd (\`${r.qmd}\`, its BM25 \`search\`) on the same notes, runs alternating; ratio = median of pairwise ratios (ours / qmd).`),
    '',
    markdownTable([
      ['', 'vaultkeeper p50 / p95', 'qmd p50 / p95', 'ratio'],
      row(`cold build (\`reindex --clear\` / \`collection add\`), ${r.runs} runs`, r.cold),
      row(`no-op update (\`reindex\` / \`update\`), ${r.runs} runs`, r.noop),
      row(`update after 10 notes changed, ${r.runs} runs`, r.tenNotes),
      row(`CLI search, no daemon, ${r.cliSearch.ours.n} queries`, r.cliSearch),
      row(`CLI search, daemon running, ${r.cliSearchDaemon.ours.n} queries`, r.cliSearchDaemon),
      row(`search in process (\`Vault.search\` / qmd SDK \`searchLex\`), ${r.inProcess.ours.n} queries`, r.inProcess),
      row(`search in process, before the daemon folds the updates' rows in, ${r.inProcessUnfolded.ours.n} queries`, r.inProcessUnfolded),
    ]),
  ].join('\n');
}
