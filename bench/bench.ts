/**
 * `npm run bench`: indexing and search speed on synthetic vaults (see docs/benchmarks.md). Flags:
 *   --quick            small sizes, for a smoke run
 *   --sizes 10000,100000   facts per rebuild vault      --facts-per-day 500
 *   --embedder hash    any embedder the config accepts  --seed 42
 *   --queries 200 --cli-runs 20 --trials 10 --append-day 500
 *   --no-models        skip measuring use-lite's throughput
 *   --no-write         print only (no docs/benchmarks.md, no bench-results.json)
 *   --keep             keep the temporary vaults (their folder is printed)
 *   --only dendron     only the Dendron-vault section (side by side with qmd when QMD_BIN is set; see dendron.ts)
 *   --dendron-runs 10  runs per step there      --dendron-data PATH  the notes (default ../shared/data/dendron-vault)
 *   --only large       only the 100k-fact vault's remember and rebuild (against qmd with QMD_BIN; see large.ts)
 *   --large-runs 3 --large-remembers 15
 *   --only scaling     the scaling table, 10k-1M facts: search in process beside the floor and qmd, the CLI, warm MCP,
 *                      the cold build and its peak RSS beside qmd's, and the offline dream of a backlog (search-scale.ts,
 *                      scale-build.ts, dream-backlog.ts); `--only search-scale` is the same table
 *   --scale-facts 10000,100000,300000,1000000 --scale-dir PATH (keeps the generated vaults for the next run: point it
 *                      at built vaults and a run takes minutes)  --scale-rebuild (measure the cold builds again)
 *   --backlog-sizes 1000,10000 (the dream column; 0 leaves it out)
 *   --only fsync       only remember and forget timed with fsync on and off (see fsync-cost.ts)   --fsync-runs 20
 *   --only server-load  the hosted server under load, then crashes and checks (see server-load.ts)
 *   --vaults 200 --clients 50 --seconds 120 --workers 4
 * Progress goes to stderr, the table to stdout. Figures are measured, never assumed.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '#src/core/errors.js';
import { readJournal } from '#src/dream/journal.js';
import { createEmbedder } from '#src/embed/embedder.js';
import type { Embedder } from '#src/embed/embedder.js';
import { projectFile } from '#src/indexer/projection.js';
import type { ReindexResult } from '#src/indexer/reindex.js';
import { IndexStore } from '#src/indexer/store.js';
import { logRelPath } from '#src/logs/factlog.js';
import { readTombstones } from '#src/tombstones/tombstones.js';
import { openVault, type Vault } from '#src/vault/vault.js';
import { runCli, startCli, stopChild } from './child.js';
import { measureDendron, renderDendron } from './dendron.js';
import { benchQueries, generateVault, syntheticFact } from './generate.js';
import { measureLarge, renderLarge } from './large.js';
import { measureSearchScale, renderSearchScale, scaleRunNow } from './search-scale.js';
import { measureDreamBacklog, renderDreamBacklog } from './dream-backlog.js';
import { measureFsync, renderFsync } from './fsync-cost.js';
import { measureServerLoad, renderServerLoad } from './server-load.js';
import { createRandom } from './random.js';
import { BENCHMARKS_DOC, REPO_ROOT, print, progress, writeSection } from './report.js';
import { duration, machineInfo, markdownTable, mib, ms, summarize, type MachineInfo, type Summary } from './stats.js';
import { appendFacts, cleanEnv, setEmbedder } from './vaults.js';

const TARGETS = { rebuildSeconds: 60, rebuildFacts: 100_000, searchP50Ms: 50, watcherMs: 2_000 };

interface Settings {
  quick: boolean;
  sizes: number[];
  factsPerDay: number;
  embedder: string;
  seed: number;
  queries: number;
  cliRuns: number;
  trials: number;
  appendDay: number;
  models: boolean;
  write: boolean;
  keep: boolean;
  only: string | null;
  dendronRuns: number;
  dendronData: string;
  largeRuns: number;
  largeRemembers: number;
  fsyncRuns: number;
  backlogSizes: number[];
  scaleFacts: number[];
  scaleDir: string | null;
  scaleRebuild: boolean;
  serverLoad: { vaults: number; clients: number; seconds: number; workers: number };
}

interface Failure {
  error: string;
}

interface RebuildRun {
  cache: 'cold' | 'warm';
  wallMs: number;
  indexerMs: number;
  factsPerSecond: number;
  maxRssBytes: number | null;
  rssFrom: string;
  rows: number;
  embedded: number;
}

interface RebuildResult {
  facts: number;
  pages: number;
  days: number;
  generateMs: number;
  runs: RebuildRun[];
}

interface SearchResultSummary {
  rows: number;
  queries: number;
  vaultSearch: Summary;
  openStore: Summary;
  firstQueryMs: number;
  meanResults: number;
}

interface CliSearchSummary {
  rows: number;
  runs: number;
  search: Summary;
  startup: Summary;
}

interface IncrementalResult {
  dayFacts: number;
  appended: number;
  embedded: number;
  requested: number;
  added: number;
  ms: number;
  pass: boolean;
}

interface WatcherResult {
  facts: number;
  trials: number;
  latency: Summary;
  missed: number;
}

interface AppendPatternResult {
  dayFacts: number;
  ours: { embedCalls: number; embedded: number; totalMs: number; perAppend: Summary };
  naive: { embedCalls: number; embedMs: number; totalMs: number; perAppend: Summary };
  useLite: { textsPerSecond: number; model: string } | Failure | null;
}

interface BenchResults {
  machine: MachineInfo;
  settings: Settings;
  embedder: string;
  rebuild: Array<RebuildResult | (Failure & { facts: number })>;
  incremental: IncrementalResult | Failure;
  search: SearchResultSummary | Failure;
  cliSearch: CliSearchSummary | Failure;
  watcher: Array<WatcherResult | (Failure & { facts: number })>;
  appendPattern: AppendPatternResult | Failure;
  targets: Record<string, string>;
  /** 1-minute load average when the measurements ended. */
  loadEnd: number | null;
}

function settings(): Settings {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      sizes: { type: 'string' },
      'facts-per-day': { type: 'string', default: '500' },
      embedder: { type: 'string', default: 'hash' },
      seed: { type: 'string', default: '42' },
      queries: { type: 'string' },
      'cli-runs': { type: 'string' },
      trials: { type: 'string' },
      'append-day': { type: 'string' },
      'no-models': { type: 'boolean', default: false },
      'no-write': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      only: { type: 'string' },
      'dendron-runs': { type: 'string' },
      'dendron-data': { type: 'string' },
      'large-runs': { type: 'string' },
      'large-remembers': { type: 'string' },
      'fsync-runs': { type: 'string' },
      'backlog-sizes': { type: 'string' },
      'scale-facts': { type: 'string' },
      'scale-dir': { type: 'string' },
      'scale-rebuild': { type: 'boolean', default: false },
      vaults: { type: 'string' },
      clients: { type: 'string' },
      seconds: { type: 'string' },
      workers: { type: 'string' },
    },
  });
  const quick = values.quick;
  const int = (value: string | undefined, fallback: number, name: string): number => {
    if (value === undefined) return fallback;
    const n = Number(value.replace(/_/g, ''));
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive whole number, got '${value}'`);
    return n;
  };
  const sizes = (values.sizes ?? (quick ? '1000,5000' : '10000,100000')).split(',').map((s) => int(s.trim(), 0, 'sizes'));
  return {
    quick,
    sizes,
    factsPerDay: int(values['facts-per-day'], 500, 'facts-per-day'),
    embedder: values.embedder,
    seed: int(values.seed, 42, 'seed'),
    queries: int(values.queries, quick ? 50 : 200, 'queries'),
    cliRuns: int(values['cli-runs'], quick ? 5 : 20, 'cli-runs'),
    trials: int(values.trials, quick ? 3 : 10, 'trials'),
    appendDay: int(values['append-day'], quick ? 100 : 500, 'append-day'),
    models: !values['no-models'],
    write: !values['no-write'],
    keep: values.keep,
    only: values.only ?? null,
    dendronRuns: int(values['dendron-runs'], quick ? 3 : 10, 'dendron-runs'),
    dendronData: path.resolve(values['dendron-data'] ?? path.join(REPO_ROOT, '..', 'shared', 'data', 'dendron-vault')),
    largeRuns: int(values['large-runs'], 3, 'large-runs'),
    largeRemembers: int(values['large-remembers'], 15, 'large-remembers'),
    fsyncRuns: int(values['fsync-runs'], 20, 'fsync-runs'),
    backlogSizes: values['backlog-sizes'] === '0' ? [] : (values['backlog-sizes'] ?? '1000,10000').split(',').map((v) => int(v.trim(), 0, 'backlog-sizes')),
    scaleFacts: (values['scale-facts'] ?? '10000,100000,300000,1000000').split(',').map((v) => int(v.trim(), 0, 'scale-facts')),
    scaleDir: values['scale-dir'] ?? null,
    scaleRebuild: values['scale-rebuild'],
    serverLoad: {
      vaults: int(values.vaults, quick ? 20 : 200, 'vaults'),
      clients: int(values.clients, quick ? 10 : 50, 'clients'),
      seconds: int(values.seconds, quick ? 20 : 120, 'seconds'),
      workers: int(values.workers, quick ? 2 : 4, 'workers'),
    },
  };
}

async function attempt<T>(what: string, fn: () => Promise<T>): Promise<T | Failure> {
  try {
    return await fn();
  } catch (error) {
    progress(`bench: ${what} failed: ${errorMessage(error)}`);
    return { error: errorMessage(error).split('\n')[0]! };
  }
}

const failed = (value: object): value is Failure => 'error' in value;

async function main(): Promise<void> {
  const s = settings();
  const env = cleanEnv();
  const base = await mkdtemp(path.join(os.tmpdir(), 'vk-bench-'));
  try {
    progress(`bench: working in ${base}`);
    const parts = ['dendron', 'large', 'dream-backlog', 'search-scale', 'scaling', 'fsync', 'server-load'];
    if (s.only !== null && !parts.includes(s.only)) throw new Error(`--only takes one of ${parts.join(', ')}, got '${s.only}'`);
    if (s.only === 'search-scale' || s.only === 'scaling') {
      const scale = { facts: s.scaleFacts, dir: s.scaleDir ?? path.join(base, 'scale'), rounds: 5, cliRuns: 8, mcpRuns: 60, rebuild: s.scaleRebuild };
      const run = scaleRunNow();
      const rows = await measureSearchScale(scale, (sofar) => progress(renderSearchScale(sofar, scale, run)));
      const dream = s.backlogSizes.length === 0 ? [] : await measureDreamBacklog(base, { sizes: s.backlogSizes, perDay: 200, env });
      const markdown = `### The scaling table: 10k to 1M facts\n\n${renderSearchScale(rows, scale, run, dream)}`;
      print(markdown);
      if (s.write) await writeSection(BENCHMARKS_DOC, 'bench-scaling', markdown);
      return;
    }
    if (s.only === 'fsync' || s.only === null) {
      const fsyncMachine = machineInfo();
      const fsync = await attempt('fsync on and off', () => measureFsync(base, { runs: s.quick ? 4 : s.fsyncRuns, env }));
      const fsyncMarkdown = failed(fsync) ? `### What durability costs: fsync on and off\n\nNot measured: ${fsync.error}` : `${renderFsync(fsync)}\n\n${machineLine(fsyncMachine, os.loadavg()[0]!)}`;
      print(fsyncMarkdown);
      if (s.write) await writeSection(BENCHMARKS_DOC, 'bench-fsync', fsyncMarkdown);
      if (s.only === 'fsync') return;
    }
    if (s.only === 'server-load') {
      const loadMachine = machineInfo();
      const load = await attempt('the server under load', () => measureServerLoad(base, { ...s.serverLoad, seed: s.seed, env }));
      const loadMarkdown = failed(load)
        ? `### The hosted server under load\n\nNot measured: ${load.error}`
        : `${renderServerLoad(load)}\n\n${machineLine(loadMachine, os.loadavg()[0]!)}`;
      print(loadMarkdown);
      if (s.write) await writeSection(BENCHMARKS_DOC, 'bench-server-load', loadMarkdown);
      return;
    }
    if (s.only === 'dream-backlog') {
      const backlogMachine = machineInfo();
      const backlog = await attempt('the dream backlog', () => measureDreamBacklog(base, { sizes: s.backlogSizes, perDay: 200, env }));
      const backlogMarkdown = failed(backlog)
        ? `### The offline dream over a backlog\n\nNot measured: ${backlog.error}`
        : `${renderDreamBacklog(backlog)}\n\n${machineLine(backlogMachine, os.loadavg()[0]!)}`;
      print(backlogMarkdown);
      if (s.write) await writeSection(BENCHMARKS_DOC, 'bench-dream-backlog', backlogMarkdown);
      return;
    }
    if (s.only === 'large') {
      const largeMachine = machineInfo();
      const large = await attempt('the 100k-fact vault', () => measureLarge(base, { runs: s.largeRuns, remembers: s.largeRemembers, env }));
      const largeMarkdown = failed(large)
        ? `### The 100k-fact vault: remember and rebuild\n\nNot measured: ${large.error}`
        : `${renderLarge(large)}\n\n${machineLine(largeMachine, os.loadavg()[0]!)}`;
      print(largeMarkdown);
      if (s.write) await writeSection(BENCHMARKS_DOC, 'bench-large', largeMarkdown);
      return;
    }
    const dendronMachine = machineInfo();
    const dendron = await attempt('the Dendron vault', () => measureDendron(base, s.dendronData, { runs: s.dendronRuns, env }));
    const dendronMarkdown = failed(dendron)
      ? `### Side by side on the Dendron vault\n\nNot measured: ${dendron.error}`
      : `${renderDendron(dendron)}\n\n${machineLine(dendronMachine, os.loadavg()[0]!)}`;
    print(dendronMarkdown);
    if (s.write) await writeSection(BENCHMARKS_DOC, 'bench-dendron', dendronMarkdown);
    if (s.only === 'dendron') return;
    const machine = machineInfo();
    let embedderModel = s.embedder;
    const vaults: Array<{ facts: number; root: string; lastDate: string }> = [];

    const rebuild: BenchResults['rebuild'] = [];
    for (const size of s.sizes) {
      const result = await attempt(`rebuild at ${size} facts`, async () => {
        const days = Math.max(1, Math.ceil(size / s.factsPerDay));
        const perDay = Math.ceil(size / days);
        const root = path.join(base, `vault-${size}`);
        progress(`bench: generating ${days} days × ${perDay} facts`);
        const started = performance.now();
        const generated = await generateVault(root, { days, factsPerDay: perDay, pages: days, seed: s.seed });
        const generateMs = performance.now() - started;
        await setEmbedder(root, s.embedder);
        vaults.push({ facts: generated.facts, root, lastDate: generated.dates.at(-1)! });
        const runs: RebuildRun[] = [];
        for (const cache of ['cold', 'warm'] as const) {
          progress(`bench: reindex --clear at ${generated.facts} facts (${cache} embedding cache)`);
          const child = await runCli(['--vault', root, 'reindex', '--clear', '--json'], { env, measureRss: true });
          if (child.code !== 0) throw new Error(`reindex exited ${child.code}: ${child.stderr.trim().split('\n').at(-1)}`);
          const json = JSON.parse(child.stdout) as ReindexResult;
          runs.push({
            cache,
            wallMs: child.wallMs,
            indexerMs: json.ms,
            factsPerSecond: json.facts / (child.wallMs / 1000),
            maxRssBytes: child.maxRssBytes,
            rssFrom: child.rssFrom,
            rows: json.rows,
            embedded: json.embedded,
          });
        }
        return { facts: generated.facts, pages: generated.pages, days, generateMs, runs };
      });
      rebuild.push(failed(result) ? { ...result, facts: size } : result);
    }
    const largest = vaults.at(-1);

    const incremental = await attempt('incremental reindex', () => measureIncremental(base, s, env));

    let search: SearchResultSummary | Failure = { error: 'no indexed vault to search' };
    let cliSearch: CliSearchSummary | Failure = { error: 'no indexed vault to search' };
    if (largest !== undefined) {
      search = await attempt('search in process', () => measureSearch(largest.root, s, env));
      cliSearch = await attempt('search through the CLI', () => measureCliSearch(largest.root, s, env));
    }

    const watcher: BenchResults['watcher'] = [];
    for (const vault of vaults) {
      const result = await attempt(`watcher at ${vault.facts} facts`, () => measureWatcher(vault.root, vault.lastDate, s, env));
      watcher.push(failed(result) ? { ...result, facts: vault.facts } : { ...result, facts: vault.facts });
    }

    const appendPattern = await attempt('append pattern', () => measureAppendPattern(base, s, env));

    if (largest !== undefined) {
      const vault = await openVault({ vault: largest.root, env });
      embedderModel = (await vault.loadEmbedder())?.model ?? 'none';
    }

    const results: BenchResults = {
      machine,
      settings: s,
      embedder: embedderModel,
      rebuild,
      incremental,
      search,
      cliSearch,
      watcher,
      appendPattern,
      targets: {},
      loadEnd: Math.round(os.loadavg()[0]! * 100) / 100,
    };
    results.targets = targets(results);
    const markdown = render(results);
    print(markdown);
    if (s.write) {
      await writeSection(BENCHMARKS_DOC, 'bench', markdown);
      await writeFile(path.join(REPO_ROOT, 'bench-results.json'), `${JSON.stringify(results, null, 2)}\n`);
      progress(`bench: wrote ${path.relative(process.cwd(), BENCHMARKS_DOC) || BENCHMARKS_DOC} and bench-results.json`);
    }
  } finally {
    if (s.keep) progress(`bench: vaults kept in ${base}`);
    else await rm(base, { recursive: true, force: true });
  }
}

async function measureIncremental(base: string, s: Settings, env: NodeJS.ProcessEnv): Promise<IncrementalResult> {
  const dayFacts = 1_000;
  const appended = 10;
  const root = path.join(base, 'vault-incremental');
  progress(`bench: incremental reindex after appending ${appended} facts to a ${dayFacts}-fact day`);
  const generated = await generateVault(root, { days: 1, factsPerDay: dayFacts, pages: 0, seed: s.seed + 1 });
  await setEmbedder(root, s.embedder);
  const vault = await openVault({ vault: root, env });
  await vault.reindex();
  const rng = createRandom(s.seed + 2);
  const facts = Array.from({ length: appended }, (_, i) => syntheticFact(rng, `incremental ${i + 1}`));
  await appendFacts(root, generated.dates[0]!, '23:59', 'bench', facts);
  const requestedBefore = counters(await vault.loadEmbedder()).requested;
  const result = await vault.reindex();
  const requested = counters(await vault.loadEmbedder()).requested - requestedBefore;
  const usesEmbedder = (await vault.loadEmbedder()) !== null;
  return {
    dayFacts,
    appended,
    embedded: result.embedded,
    requested,
    added: result.added,
    ms: result.ms,
    pass: usesEmbedder ? result.embedded === appended : result.added === appended,
  };
}

async function measureSearch(root: string, s: Settings, env: NodeJS.ProcessEnv): Promise<SearchResultSummary> {
  const vault = await openVault({ vault: root, env });
  const queries = benchQueries(s.seed, s.queries);
  const warmup = benchQueries(s.seed + 100, 20);
  progress(`bench: ${queries.length} searches in process (after ${warmup.length} to warm up)`);
  const options = { k: 10, refresh: false, recordRecall: false } as const;
  let started = performance.now();
  await vault.search(warmup[0]!, options);
  const firstQueryMs = performance.now() - started;
  for (const q of warmup.slice(1)) await vault.search(q, options);
  const times: number[] = [];
  let results = 0;
  for (const q of queries) {
    started = performance.now();
    const found = await vault.search(q, options);
    times.push(performance.now() - started);
    results += found.length;
  }
  const openStore = await searchOpenStore(vault, queries);
  const stats = await vault.reindex();
  return { rows: stats.rows, queries: queries.length, vaultSearch: summarize(times), openStore, firstQueryMs, meanResults: results / queries.length };
}

/** The same queries through the indexer's search on one store kept open: what Vault.search costs beyond it. */
async function searchOpenStore(vault: Vault, queries: readonly string[]): Promise<Summary> {
  const [{ search }, { indexUri }] = await Promise.all([import('#src/indexer/search.js'), import('#src/indexer/reindex.js')]);
  const embedder = await vault.loadEmbedder();
  const store = await IndexStore.open(indexUri(vault.ctx), embedder?.dimensions ?? null);
  try {
    for (const q of queries.slice(0, 10)) await search(vault.ctx, store, embedder, q, { k: 10, recordRecall: false });
    const times: number[] = [];
    for (const q of queries) {
      const started = performance.now();
      await search(vault.ctx, store, embedder, q, { k: 10, recordRecall: false });
      times.push(performance.now() - started);
    }
    return summarize(times);
  } finally {
    store.close();
  }
}

async function measureCliSearch(root: string, s: Settings, env: NodeJS.ProcessEnv): Promise<CliSearchSummary> {
  const queries = benchQueries(s.seed + 7, s.cliRuns);
  progress(`bench: ${queries.length} runs of \`vaultkeeper search --json\``);
  const times: number[] = [];
  let rows = 0;
  for (const q of queries) {
    const child = await runCli(['--vault', root, 'search', q, '--json'], { env });
    if (child.code !== 0) throw new Error(`search exited ${child.code}: ${child.stderr.trim().split('\n').at(-1)}`);
    JSON.parse(child.stdout);
    times.push(child.wallMs);
  }
  const startup: number[] = [];
  for (let i = 0; i < Math.min(5, s.cliRuns); i++) startup.push((await runCli(['--version'], { env })).wallMs);
  const vault = await openVault({ vault: root, env });
  rows = (await vault.reindex()).rows;
  return { rows, runs: times.length, search: summarize(times), startup: summarize(startup) };
}

async function measureWatcher(root: string, date: string, s: Settings, env: NodeJS.ProcessEnv): Promise<Omit<WatcherResult, 'facts'>> {
  progress(`bench: append-to-searchable latency through \`vaultkeeper watch\` (${s.trials} trials)`);
  const { child } = await startCli(['--vault', root, 'watch'], /watching /, { env });
  const vault = await openVault({ vault: root, env });
  const rng = createRandom(s.seed + 3);
  const latencies: number[] = [];
  let missed = 0;
  try {
    // chokidar reports ready just after the line above; give it a moment.
    await sleep(1_500);
    for (let trial = 1; trial <= s.trials; trial++) {
      const marker = `zqwatch${s.seed}x${trial}x${Date.now() % 100_000}`;
      const fact = syntheticFact(rng, marker);
      const started = performance.now();
      const [written] = await appendFacts(root, date, '23:58', 'bench/watch', [fact]);
      let seen = false;
      while (performance.now() - started < 20_000) {
        const found = await vault.search(marker, { k: 5, refresh: false, recordRecall: false });
        if (found.some((r) => r.id === written!.id)) {
          seen = true;
          break;
        }
        await sleep(20);
      }
      if (seen) latencies.push(performance.now() - started);
      else missed++;
      await sleep(500);
    }
  } finally {
    await stopChild(child);
  }
  return { trials: s.trials, latency: summarize(latencies), missed };
}

/**
 * A day of `appendDay` facts appended one at a time, indexed after each append: ours (incremental,
 * cached) against re-embedding the whole day's log and rewriting its rows on every append.
 */
async function measureAppendPattern(base: string, s: Settings, env: NodeJS.ProcessEnv): Promise<AppendPatternResult> {
  const date = '2025-03-01';
  const ourRoot = path.join(base, 'vault-append-ours');
  const naiveRoot = path.join(base, 'vault-append-naive');
  await generateVault(ourRoot, { days: 0, factsPerDay: 0, pages: 0, seed: s.seed });
  await generateVault(naiveRoot, { days: 0, factsPerDay: 0, pages: 0, seed: s.seed });
  await setEmbedder(ourRoot, s.embedder);
  await setEmbedder(naiveRoot, s.embedder);
  const facts = (() => {
    const rng = createRandom(s.seed + 4);
    return Array.from({ length: s.appendDay }, (_, i) => syntheticFact(rng, `append ${i + 1}`));
  })();
  const time = (i: number): string => `${String(8 + Math.floor(i / 60) % 16).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;

  progress(`bench: ours — ${s.appendDay} appends, incremental reindex after each`);
  const vault = await openVault({ vault: ourRoot, env });
  await vault.reindex();
  const embedder = await vault.loadEmbedder();
  const before = counters(embedder);
  const ourTimes: number[] = [];
  for (const [i, fact] of facts.entries()) {
    await appendFacts(ourRoot, date, time(i), 'bench/append', [fact]);
    const started = performance.now();
    await vault.reindex();
    ourTimes.push(performance.now() - started);
  }
  const ours = {
    embedCalls: counters(embedder).requested - before.requested,
    embedded: counters(embedder).embedded - before.embedded,
    totalMs: ourTimes.reduce((a, b) => a + b, 0),
    perAppend: summarize(ourTimes),
  };

  progress(`bench: naive — ${s.appendDay} appends, whole day re-embedded (no cache) and its rows rewritten after each`);
  const naiveVault = await openVault({ vault: naiveRoot, env });
  const raw = await createEmbedder(naiveVault.ctx.config.index, { root: naiveRoot, env });
  const rel = logRelPath(date);
  const inputs = { journal: await readJournal(naiveRoot), tombstones: await readTombstones(naiveRoot), cited: new Set<string>() };
  const store = await IndexStore.open(path.join(base, 'naive-index'), raw?.dimensions ?? null);
  const naiveTimes: number[] = [];
  let embedCalls = 0;
  let embedMs = 0;
  let previous: string[] = [];
  try {
    for (const [i, fact] of facts.entries()) {
      await appendFacts(naiveRoot, date, time(i), 'bench/append', [fact]);
      const started = performance.now();
      const { rows } = projectFile(rel, await readFile(path.join(naiveRoot, rel)), inputs);
      let stored = rows.map((row) => ({ ...row }));
      if (raw !== null) {
        const embedStarted = performance.now();
        const vectors = await embedAll(raw, rows.map((r) => r.content));
        embedMs += performance.now() - embedStarted;
        embedCalls += rows.length;
        stored = rows.map((row, j) => ({ ...row, vector: vectors[j]! }));
      }
      await store.deleteKeys(previous);
      await store.add(stored);
      previous = rows.map((r) => r.key);
      // The same compaction schedule as ours, so fragment build-up does not decide the comparison.
      if ((i + 1) % 50 === 0) await store.optimize();
      naiveTimes.push(performance.now() - started);
    }
  } finally {
    store.close();
  }
  const naive = { embedCalls, embedMs, totalMs: naiveTimes.reduce((a, b) => a + b, 0), perAppend: summarize(naiveTimes) };

  let useLite: AppendPatternResult['useLite'] = null;
  if (s.models) {
    useLite = await attempt('use-lite throughput', async () => {
      progress('bench: measuring use-lite throughput (to price the embed calls with a real model)');
      let warning = '';
      const model = await createEmbedder({ ...naiveVault.ctx.config.index, embedder: 'use-lite', fallback: 'none' }, { root: naiveRoot, env, onWarning: (m) => (warning = m) });
      if (model === null) throw new Error(warning || 'use-lite could not be loaded');
      const rng = createRandom(s.seed + 5);
      const texts = Array.from({ length: 128 }, (_, i) => syntheticFact(rng, `throughput ${i}`).text);
      await model.embed(texts.slice(0, 8));
      const started = performance.now();
      await model.embed(texts);
      return { textsPerSecond: texts.length / ((performance.now() - started) / 1000), model: model.model };
    });
  }
  return { dayFacts: s.appendDay, ours, naive, useLite };
}

/** The cached embedder's running totals (texts asked for, texts computed); zeros without an embedder. */
function counters(embedder: Embedder | null): { requested: number; embedded: number } {
  const stats = (embedder as { stats?: { requested?: number; embedded?: number } } | null)?.stats;
  return { requested: stats?.requested ?? 0, embedded: stats?.embedded ?? 0 };
}

async function embedAll(embedder: Embedder, texts: readonly string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += 256) out.push(...(await embedder.embed(texts.slice(i, i + 256))));
  return out;
}

function targets(r: BenchResults): Record<string, string> {
  const out: Record<string, string> = {};
  const big = r.rebuild.find((x): x is RebuildResult => !failed(x) && x.facts >= TARGETS.rebuildFacts);
  if (big === undefined) out.rebuild = `not measured (no run at ${TARGETS.rebuildFacts.toLocaleString('en-US')} facts)`;
  else {
    const cold = big.runs.find((run) => run.cache === 'cold')!;
    out.rebuild = `${(cold.wallMs / 1000).toFixed(1)} s for ${big.facts.toLocaleString('en-US')} facts (cold cache): ${cold.wallMs / 1000 < TARGETS.rebuildSeconds ? 'met' : 'NOT met'} (< ${TARGETS.rebuildSeconds} s)`;
  }
  out.search = failed(r.search)
    ? `not measured: ${r.search.error}`
    : `p50 ${ms(r.search.vaultSearch.p50)} at ${r.search.rows.toLocaleString('en-US')} rows: ${r.search.vaultSearch.p50 < TARGETS.searchP50Ms ? 'met' : 'NOT met'} (< ${TARGETS.searchP50Ms} ms)`;
  const watch = r.watcher.filter((w): w is WatcherResult => !failed(w));
  out.watcher =
    watch.length === 0
      ? 'not measured'
      : watch
          .map((w) => `${w.facts.toLocaleString('en-US')} facts: max ${ms(w.latency.max)}${w.missed > 0 ? `, ${w.missed} missed` : ''}`)
          .join('; ') + `: ${watch.every((w) => w.missed === 0 && w.latency.max < TARGETS.watcherMs) ? 'met' : 'NOT met'} (< ${TARGETS.watcherMs} ms)`;
  out.incremental = failed(r.incremental)
    ? `not measured: ${r.incremental.error}`
    : `${r.incremental.embedded} embedded for ${r.incremental.appended} appended: ${r.incremental.pass ? 'met' : 'NOT met'} (exactly ${r.incremental.appended})`;
  return out;
}

const n = (value: number): string => Math.round(value).toLocaleString('en-US');
const sec = duration;

function machineLine(m: MachineInfo, loadEnd: number): string {
  return (
    `Measured ${m.date.slice(0, 16).replace('T', ' ')} UTC on ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node} (${m.platform}); ` +
    `load average ${m.load1} at the start, ${Math.round(loadEnd * 100) / 100} at the end (a shared machine: other work skews timings).`
  );
}

function render(r: BenchResults): string {
  const m = r.machine;
  const out: string[] = [];
  out.push(`### Speed (\`npm run bench${r.settings.quick ? ' -- --quick' : ''}\`)`, '');
  out.push(
    `Measured ${m.date.slice(0, 16).replace('T', ' ')} UTC on ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node} (${m.platform}); ` +
      `load average ${m.load1} at the start${r.loadEnd === null ? '' : `, ${r.loadEnd} at the end`} (a shared machine: other work skews timings).`,
  );
  out.push(`Embedder \`${r.embedder}\`. Synthetic vaults from \`bench/generate.ts\` (seed ${r.settings.seed}, ${r.settings.factsPerDay} facts a day, one wiki page per day).`, '');

  out.push('**Targets**', '');
  out.push(markdownTable([['target', 'measured'], ...Object.entries(r.targets).map(([k, v]) => [k, v])]), '');

  out.push('**Rebuild** (`vaultkeeper reindex --clear --json` in a child process; wall time includes Node start-up)', '');
  const rebuildRows: string[][] = [['facts', 'pages', 'embedding cache', 'rows', 'embedded', 'wall', 'indexer', 'facts/s', 'peak RSS']];
  for (const x of r.rebuild) {
    if (failed(x)) {
      rebuildRows.push([n(x.facts), '', '', '', '', `failed: ${x.error}`, '', '', '']);
      continue;
    }
    for (const run of x.runs) {
      rebuildRows.push([n(x.facts), n(x.pages), run.cache, n(run.rows), n(run.embedded), sec(run.wallMs), sec(run.indexerMs), n(run.factsPerSecond), mib(run.maxRssBytes)]);
    }
  }
  out.push(markdownTable(rebuildRows), '');

  out.push('**Incremental reindex** (10 facts appended to a 1,000-fact day)', '');
  if (failed(r.incremental)) out.push(`failed: ${r.incremental.error}`, '');
  else {
    const i = r.incremental;
    out.push(
      markdownTable([
        ['appended', 'ReindexResult.embedded', 'texts sent to the embedder', 'rows written', 'time', 'exactly 10?'],
        [n(i.appended), n(i.embedded), n(i.requested), n(i.added), ms(i.ms), i.pass ? 'yes' : 'NO'],
      ]),
      '',
    );
  }

  out.push('**Search latency** (k = 10)', '');
  const searchRows: string[][] = [['how', 'rows', 'runs', 'p50', 'p95', 'max']];
  if (failed(r.search)) searchRows.push(['in process', '', '', `failed: ${r.search.error}`, '', '']);
  else {
    const x = r.search;
    searchRows.push(['in process: `Vault.search` (refresh off, no recall log)', n(x.rows), n(x.vaultSearch.n), ms(x.vaultSearch.p50), ms(x.vaultSearch.p95), ms(x.vaultSearch.max)]);
    searchRows.push(['in process: indexer `search()` on a store kept open', n(x.rows), n(x.openStore.n), ms(x.openStore.p50), ms(x.openStore.p95), ms(x.openStore.max)]);
  }
  if (failed(r.cliSearch)) searchRows.push(['CLI', '', '', `failed: ${r.cliSearch.error}`, '', '']);
  else {
    const x = r.cliSearch;
    searchRows.push(['CLI: `vaultkeeper search --json` (child process, includes its refresh)', n(x.rows), n(x.search.n), ms(x.search.p50), ms(x.search.p95), ms(x.search.max)]);
    searchRows.push(['CLI start-up alone: `vaultkeeper --version`', '', n(x.startup.n), ms(x.startup.p50), ms(x.startup.p95), ms(x.startup.max)]);
  }
  out.push(markdownTable(searchRows), '');

  out.push('**Append to searchable** through `vaultkeeper watch` (a fact appended by the log writer, then in-process searches every 20 ms until it is found)', '');
  const watchRows: string[][] = [['vault facts', 'trials', 'p50', 'max', 'not found within 20 s']];
  for (const w of r.watcher) {
    if (failed(w)) watchRows.push([n(w.facts), '', `failed: ${w.error}`, '', '']);
    else watchRows.push([n(w.facts), n(w.trials), ms(w.latency.p50), ms(w.latency.max), n(w.missed)]);
  }
  out.push(markdownTable(watchRows), '');

  if (failed(r.appendPattern)) out.push(`**Append pattern**: failed: ${r.appendPattern.error}`, '');
  else {
    const a = r.appendPattern;
    out.push(`**One day of ${n(a.dayFacts)} facts appended one at a time**, indexed after every append: ours against re-embedding the whole day's log on every append (no cache) and rewriting its rows`, '');
    const rows: string[][] = [['approach', 'embed calls (texts)', 'embedding time', 'total indexing time', 'per append p50', 'per append max']];
    rows.push(['ours: incremental, embedding cache', n(a.ours.embedCalls), '(inside total)', sec(a.ours.totalMs), ms(a.ours.perAppend.p50), ms(a.ours.perAppend.max)]);
    rows.push(['naive: whole day re-embedded and rewritten', n(a.naive.embedCalls), sec(a.naive.embedMs), sec(a.naive.totalMs), ms(a.naive.perAppend.p50), ms(a.naive.perAppend.max)]);
    out.push(markdownTable(rows), '');
    if (a.useLite !== null && !failed(a.useLite)) {
      const rate = a.useLite.textsPerSecond;
      out.push(
        `With a real model the embed calls dominate: \`${a.useLite.model}\` embedded ${rate.toFixed(1)} texts/s on this machine, so the ` +
          `embedding alone would take about ${sec((a.ours.embedCalls / rate) * 1000)} for ours and ${sec((a.naive.embedCalls / rate) * 1000)} for the naive pattern ` +
          '(computed from the measured rate, not run).',
        '',
      );
    } else if (a.useLite !== null) {
      out.push(`use-lite throughput could not be measured: ${a.useLite.error}.`, '');
    }
  }
  return out.join('\n').trim();
}

function sleep(msValue: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, msValue));
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench: ${errorMessage(error)}\n`);
  process.exitCode = 1;
}
