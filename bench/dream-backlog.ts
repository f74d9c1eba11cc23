/**
 * The offline dream over a backlog (`npm run bench -- --only dream-backlog`, issue 31 deliverable 5): the
 * bench's generated vault of N facts (200 a day, no pages, seed 7, embedder none), committed as a person's
 * vault would be, then dreamed offline in process until nothing is pending, under the default limits
 * (dream.max_days, dream.max_changed_pages …). Each run is the whole run: consolidation, checks, commit and
 * the index pass after it. Targets: time(10k) ≤ 12 × time(1k); 50,000 facts ≤ 10 minutes
 * (`--backlog-sizes 1000,10000,50000`); every day consolidated, none skipped.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { MAX_PAGE_BYTES, MAX_PAGE_LINES } from '#src/dream/bound.js';
import { listWikiPages } from '#src/pages/discover.js';
import { openVault } from '#src/vault/vault.js';
import { generateVault } from './generate.js';
import { progress } from './report.js';
import { markdownTable } from './stats.js';
import { cleanEnv, setEmbedder } from './vaults.js';

export interface BacklogRun {
  facts: number;
  days: number;
  ms: number;
  runs: number;
  ok: number;
  failed: number;
  skipped: number;
  /** Most pages one run created or changed (an ok run). */
  mostPages: number;
  /** Pages past the size bound after the last run. */
  overBound: number;
  /** Why the failed runs failed, by their check. */
  reasons: Record<string, number>;
  /** Each run's batch, facts and time: a dream that grows linearly keeps the time per fact flat run after run. */
  perRun: Array<{ from: string; to: string; facts: number; ms: number; cpuMs: number }>;
}

const MAX_RUNS = 1_000;

export interface BacklogOptions {
  sizes: readonly number[];
  perDay: number;
  env: NodeJS.ProcessEnv;
  /** Profile this run (1-based) with the inspector into `profileOut` (a .cpuprofile). */
  profileRun?: number;
  profileOut?: string;
  /** Dream this vault as it is instead of generating one (one size only). */
  existing?: string;
}

export async function measureDreamBacklog(base: string, options: BacklogOptions): Promise<BacklogRun[]> {
  const out: BacklogRun[] = [];
  for (const facts of options.sizes) {
    // `existing`: a vault dreamed before (a late run measured alone: a copy of one reset by a run or two).
    const root = options.existing ?? path.join(base, `backlog-${facts}`);
    const days = Math.ceil(facts / options.perDay);
    if (options.existing === undefined) {
      progress(`bench: dream backlog: generating ${facts} facts (${days} days × ${options.perDay})`);
      await generateVault(root, { days, factsPerDay: options.perDay, pages: 0, seed: 7, startDate: '2024-01-01' });
      await setEmbedder(root, 'none');
      execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'add', '--all'], { cwd: root, stdio: 'ignore' });
      execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-q', '-m', 'generated backlog'], { cwd: root, stdio: 'ignore' });
    }
    const vault = await openVault({ vault: root, env: options.env });
    const run: BacklogRun = { facts, days, ms: 0, runs: 0, ok: 0, failed: 0, skipped: 0, mostPages: 0, overBound: 0, reasons: {}, perRun: [] };
    const started = performance.now();
    try {
      for (let i = 0; i < MAX_RUNS; i++) {
        // A fixed clock per run: the dream's gate and ids do not depend on when the bench runs.
        const profiling = options.profileRun === i + 1 && options.profileOut !== undefined ? await startProfile() : undefined;
        const runStarted = performance.now();
        const cpu = process.cpuUsage();
        const result = await vault.dream({ force: true, offline: true, now: new Date(Date.UTC(2030, 0, 1, 6, 0, i)) });
        if (profiling !== undefined && options.profileOut !== undefined) await stopProfile(profiling, options.profileOut);
        if (result.status === 'noop') break;
        run.runs++;
        const spent = process.cpuUsage(cpu);
        run.perRun.push({ from: result.batch?.from ?? '', to: result.batch?.to ?? '', facts: result.facts, ms: performance.now() - runStarted, cpuMs: (spent.user + spent.system) / 1000 });
        if (result.status === 'ok') {
          run.ok++;
          run.mostPages = Math.max(run.mostPages, result.pages.created.length + result.pages.updated.length + result.pages.archived.length);
        } else if (result.status === 'failed') {
          run.failed++;
          run.reasons[result.check ?? 'other'] = (run.reasons[result.check ?? 'other'] ?? 0) + 1;
        } else if (result.status === 'skipped') run.skipped++;
        const why = result.status === 'failed' ? ` (${result.check ?? 'other'}: ${result.reason.slice(0, 160)})` : '';
        const last = run.perRun[run.perRun.length - 1];
        progress(`bench: dream backlog ${facts}: ${result.status} ${result.batch?.from ?? ''}..${result.batch?.to ?? ''}${why} run ${Math.round(last?.ms ?? 0)} ms wall, ${Math.round(last?.cpuMs ?? 0)} ms CPU; ${Math.round(performance.now() - started)} ms so far`);
      }
    } finally {
      run.ms = performance.now() - started;
      await vault.close();
    }
    for (const rel of await listWikiPages(root)) {
      const text = await readFile(path.join(root, rel), 'utf8');
      if (Buffer.byteLength(text) > MAX_PAGE_BYTES || text.split('\n').length > MAX_PAGE_LINES) run.overBound++;
    }
    out.push(run);
  }
  return out;
}

export function renderDreamBacklog(runs: readonly BacklogRun[]): string {
  const first = runs[0];
  const rows = runs.map((r) => [
    r.facts.toLocaleString('en-US'),
    `${r.days}`,
    `${(r.ms / 1000).toFixed(1)} s`,
    `${((r.ms / r.facts) * 1000).toFixed(0)} µs`,
    first === undefined || r === first ? '—' : `${(r.ms / first.ms).toFixed(1)}× for ${(r.facts / first.facts).toFixed(0)}× the facts`,
    `${r.runs} (${r.ok} ok, ${r.failed} failed, ${r.skipped} skipped)`,
    Object.entries(r.reasons)
      .map(([check, n]) => `${check} ${n}`)
      .join(', ') || '—',
    `${r.mostPages}`,
    `${r.overBound}`,
  ]);
  return [
    '### The offline dream over a backlog',
    '',
    "The bench's generated vault (200 facts a day, no pages, seed 7, embedder none), committed, then `dream --offline` in process until nothing is pending, under the default limits. " +
      'Targets: time(10k) ≤ 12 × time(1k); 50,000 facts ≤ 10 minutes; no day skipped, no page past the bound.',
    '',
    markdownTable([['facts', 'days', 'time', 'per fact', 'growth', 'runs', 'failed runs by check', 'most pages in one run', 'pages past the bound'], ...rows]),
    '',
    'Time per fact, run by run (wall, and the main process\'s CPU: git children not counted):',
    '',
    ...runs.map((r) => `- ${r.facts.toLocaleString('en-US')}: ${r.perRun.map((p) => `${p.from}..${p.to} ${((p.ms / Math.max(1, p.facts)) * 1000).toFixed(0)} µs (CPU ${((p.cpuMs / Math.max(1, p.facts)) * 1000).toFixed(0)} µs)`).join('; ')}`),
  ].join('\n');
}

async function startProfile(): Promise<Session> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 1000 });
  await session.post('Profiler.start');
  return session;
}

async function stopProfile(session: Session, out: string): Promise<void> {
  const { profile } = await session.post('Profiler.stop');
  await writeFile(out, JSON.stringify(profile));
  session.disconnect();
}

/** Alone: `node dist-bench/bench/dream-backlog.js --facts 10000 --dir D [--profile-run K --profile-out F] [--json F] [--vault V]`. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      facts: { type: 'string', default: '1000' },
      dir: { type: 'string' },
      'per-day': { type: 'string', default: '200' },
      'profile-run': { type: 'string' },
      'profile-out': { type: 'string' },
      json: { type: 'string' },
      vault: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help === true || values.dir === undefined) {
    process.stdout.write('usage: dream-backlog.js --facts N[,M…] --dir BASE [--per-day 200] [--profile-run K --profile-out F.cpuprofile] [--json F] [--vault V]\n' +
      '  generates BASE/backlog-N (must not exist), dreams it offline in process until nothing is pending; prints each run and the table.\n' +
      '  --profile-run K: a CPU profile of run K alone (node:inspector). --vault V: dream V as it is (say, a copy of a dreamed\n' +
      '  vault set back a run or two with git reset --hard) instead of generating one: a late run measured on its own.\n');
    return;
  }
  const cpu = process.cpuUsage();
  const started = performance.now();
  const runs = await measureDreamBacklog(values.dir, {
    sizes: values.facts.split(',').map((v) => Number(v.trim())),
    perDay: Number(values['per-day']),
    env: cleanEnv(),
    ...(values['profile-run'] === undefined ? {} : { profileRun: Number(values['profile-run']) }),
    ...(values['profile-out'] === undefined ? {} : { profileOut: values['profile-out'] }),
    ...(values.vault === undefined ? {} : { existing: values.vault }),
  });
  const spent = process.cpuUsage(cpu);
  const dreamCpu = runs.map((r) => r.perRun.reduce((sum, p) => sum + p.cpuMs, 0));
  process.stdout.write(`${renderDreamBacklog(runs)}\n\nprocess CPU ${((spent.user + spent.system) / 1000).toFixed(0)} ms, wall ${(performance.now() - started).toFixed(0)} ms; dream CPU in process ${dreamCpu.map((c) => c.toFixed(0)).join(', ')} ms\n`);
  if (values.json !== undefined) await writeFile(values.json, JSON.stringify(runs, null, 1));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
