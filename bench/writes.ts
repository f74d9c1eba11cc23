/**
 * Small writes and bounded memory at scale (issue 31, deliverables 3 and 4): on generated vaults of N facts
 * (200 a day, seed 42, embedder none, committed to git), through the CLI without a daemon:
 * - `remember` one fact, then the index pass it leaves (`reindex`), and a `search` right after another `remember`
 *   (which pays that pass), side by side with qmd's `update` after one appended fact when QMD_BIN is set;
 * - `forget <id>` of a fact in a log from the middle of the vault, and the index pass after it;
 * - `status --json`;
 * - a rebuild (`reindex --clear`): wall time and peak RSS, beside qmd's cold `collection add`.
 * The write/rebuild/RSS columns of the scaling table; the search columns are another section's.
 * `node dist-bench/bench/writes.js --facts 10000,100000 [--runs 5] [--rebuilds 1] [--write]`; only `remember`, side by side
 * on existing vaults: `--only remember --vaults A,B --clis main.js,ours.js --runs 8` (rememberPairs).
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFile, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CLI, runCli, runProgram, type ChildResult } from './child.js';
import { generateVault } from './generate.js';
import { BENCHMARKS_DOC, print, progress, writeSection } from './report.js';
import { machineInfo, markdownTable, mib, ms, summarize, type Summary } from './stats.js';
import { cleanEnv, setEmbedder } from './vaults.js';

const FACTS_PER_DAY = 200;

export interface WritesResult {
  facts: number;
  remember: Summary;
  /** The `reindex` after one `remember`: the CLI's wall time and the pass's own `ms`. */
  pass: Summary;
  passMs: Summary;
  searchAfter: Summary;
  qmdUpdate: Summary | null;
  forget: Summary;
  forgetPass: Summary;
  status: Summary;
  rebuild: Summary;
  rebuildRss: number | null;
  qmdRebuild: Summary | null;
  qmdRebuildRss: number | null;
}

async function must(result: Promise<ChildResult>, what: string): Promise<ChildResult> {
  const r = await result;
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}: ${r.stderr.slice(-500)}`);
  return r;
}

export async function measureWrites(base: string, facts: number, options: { runs: number; rebuilds: number; env: NodeJS.ProcessEnv }): Promise<WritesResult> {
  const root = path.join(base, `writes-${facts}`);
  const days = Math.max(1, Math.round(facts / FACTS_PER_DAY));
  progress(`bench: writes: generating ${days} days × ${FACTS_PER_DAY} facts`);
  await generateVault(root, { days, factsPerDay: FACTS_PER_DAY, pages: 200, seed: 42 });
  await setEmbedder(root, 'none');
  const git = (args: string[]): void => void execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd: root, stdio: 'ignore' });
  git(['add', '--all']);
  git(['commit', '-q', '-m', 'generated vault']);
  const env = options.env;
  const vk = (args: readonly string[], rss = false): Promise<ChildResult> => runCli(['--vault', root, ...args], { env, measureRss: rss });
  progress(`bench: writes: first build of ${facts} facts`);
  await must(vk(['reindex', '--json']), 'reindex');

  const qmdBin = process.env.QMD_BIN;
  const home = path.join(base, `writes-${facts}-qmd`);
  const qenv = { ...env, HOME: home, XDG_CACHE_HOME: path.join(home, 'cache'), XDG_CONFIG_HOME: path.join(home, 'config') };
  const qmd = qmdBin === undefined ? null : (args: readonly string[], rss = false): Promise<ChildResult> => must(runProgram(qmdBin, args, { env: qenv, measureRss: rss }), `qmd ${args[0]}`);
  const qmdCold = async (): Promise<ChildResult> => {
    await rm(path.join(home, 'cache'), { recursive: true, force: true });
    await rm(path.join(home, 'config'), { recursive: true, force: true });
    return qmd!(['collection', 'add', root, '--name', 'notes'], true);
  };
  if (qmd !== null) await qmdCold();

  const remember: number[] = [];
  const pass: number[] = [];
  const passMs: number[] = [];
  const searchAfter: number[] = [];
  const qmdUpdate: number[] = [];
  progress(`bench: writes: ${options.runs} rounds of remember, index pass, remember + search${qmd ? ', qmd update' : ''}`);
  for (let i = 0; i < options.runs; i++) {
    remember.push((await must(vk(['remember', `Bench write ${i}: tried a new pour-over ratio of 1 to ${15 + i}`, '--json']), 'remember')).wallMs);
    const indexed = await must(vk(['reindex', '--json']), 'reindex');
    pass.push(indexed.wallMs);
    passMs.push((JSON.parse(indexed.stdout) as { ms: number }).ms);
    await must(vk(['remember', `Bench write ${i}b: the kettle at 94 degrees for a light roast`, '--json']), 'remember');
    searchAfter.push((await must(vk(['search', 'kettle light roast', '--json']), 'search')).wallMs);
    if (qmd !== null) {
      // One fact appended to today's newest log, as remember does, then qmd's incremental update.
      const logs = (await readdir(path.join(root, 'logs'))).sort();
      await appendFile(path.join(root, 'logs', logs.at(-1)!), `- [fact] qmd bench write ${i} ^f-qmdbench${String(i).padStart(2, '0')}\n`);
      qmdUpdate.push((await qmd(['update'])).wallMs);
    }
  }

  // forget: facts from logs in the middle of the vault, by id.
  const logs = (await readdir(path.join(root, 'logs'))).sort();
  const forget: number[] = [];
  const forgetPass: number[] = [];
  progress(`bench: writes: ${options.runs} forgets`);
  for (let i = 0; i < options.runs; i++) {
    const log = await readFile(path.join(root, 'logs', logs[Math.floor(logs.length / 2) + i]!), 'utf8');
    const id = /\^(f-[0-9a-z]{10})/.exec(log)![1]!;
    forget.push((await must(vk(['forget', id, '--json']), 'forget')).wallMs);
    forgetPass.push((await must(vk(['reindex', '--json']), 'reindex after forget')).wallMs);
  }
  const status: number[] = [];
  for (let i = 0; i < options.runs; i++) status.push((await must(vk(['status', '--json']), 'status')).wallMs);

  progress(`bench: writes: ${options.rebuilds} rebuilds${qmd ? ', alternating with qmd' : ''}`);
  const rebuild: number[] = [];
  const qmdRebuild: number[] = [];
  let rebuildRss: number | null = null;
  let qmdRebuildRss: number | null = null;
  for (let i = 0; i < options.rebuilds; i++) {
    const ours = async (): Promise<void> => {
      const r = await must(vk(['reindex', '--clear', '--json'], true), 'reindex --clear');
      rebuild.push(r.wallMs);
      rebuildRss = Math.max(rebuildRss ?? 0, r.maxRssBytes ?? 0) || null;
    };
    const theirs = async (): Promise<void> => {
      if (qmd === null) return;
      const r = await qmdCold();
      qmdRebuild.push(r.wallMs);
      qmdRebuildRss = Math.max(qmdRebuildRss ?? 0, r.maxRssBytes ?? 0) || null;
    };
    if (i % 2 === 0) {
      await ours();
      await theirs();
    } else {
      await theirs();
      await ours();
    }
  }
  return {
    facts,
    remember: summarize(remember),
    pass: summarize(pass),
    passMs: summarize(passMs),
    searchAfter: summarize(searchAfter),
    qmdUpdate: qmdUpdate.length === 0 ? null : summarize(qmdUpdate),
    forget: summarize(forget),
    forgetPass: summarize(forgetPass),
    status: summarize(status),
    rebuild: summarize(rebuild),
    rebuildRss,
    qmdRebuild: qmdRebuild.length === 0 ? null : summarize(qmdRebuild),
    qmdRebuildRss,
  };
}

export function renderWrites(results: readonly WritesResult[]): string {
  const p50 = (s: Summary | null): string => (s === null ? '—' : ms(s.p50));
  const ratio = (a: Summary, b: Summary | null): string => (b === null ? '' : ` (${(a.p50 / b.p50).toFixed(2)}×)`);
  const first = results[0];
  return [
    '### Small writes and a rebuild at scale (issue 31)',
    '',
    `Generated vaults (${FACTS_PER_DAY} facts a day, 200 pages, seed 42, embedder \`none\`, committed to git), the CLI without a daemon, p50 of ${first?.remember.n ?? 0} runs; ` +
      `"pass": the \`reindex\` after one \`remember\` (CLI wall time, and the pass's own \`ms\`); "search after": a \`search\` right after a \`remember\`; ` +
      `qmd: \`update\` after one fact appended, and a cold \`collection add\` (${process.env.QMD_BIN ?? 'not run: set QMD_BIN'}). Peak RSS by GNU time.`,
    '',
    markdownTable([
      ['facts', 'remember', 'pass (ms field)', 'search after', 'qmd update', 'forget <id> / pass after', 'status', 'rebuild (× qmd)', 'rebuild peak RSS ours / qmd'],
      ...results.map((r) => [
        r.facts.toLocaleString('en-US'),
        p50(r.remember),
        `${p50(r.pass)} (${p50(r.passMs)})${ratio(r.pass, r.qmdUpdate)}`,
        `${p50(r.searchAfter)}${ratio(r.searchAfter, r.qmdUpdate)}`,
        p50(r.qmdUpdate),
        `${p50(r.forget)} / ${p50(r.forgetPass)}`,
        p50(r.status),
        `${p50(r.rebuild)}${ratio(r.rebuild, r.qmdRebuild)}`,
        `${mib(r.rebuildRss)} / ${mib(r.qmdRebuildRss)}`,
      ]),
    ]),
  ].join('\n');
}

/** One `remember` of a CLI bundle: wall time, and the CPU time (user + sys) of it and the git it waited for. */
function rememberOnce(cli: string, vault: string, text: string, env: NodeJS.ProcessEnv): Promise<{ wallMs: number; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // GNU time's rusage counts the children a process waited for: node and every git it ran.
    const child = spawn('/usr/bin/time', ['-f', '%U %S', 'node', cli, 'remember', text, '--vault', vault, '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      const times = /([\d.]+) ([\d.]+)\s*$/.exec(stderr);
      if (code !== 0 || times === null) reject(new Error(`remember with ${cli} exited ${code}: ${stderr.slice(-500)}`));
      else resolve({ wallMs, cpuMs: (Number(times[1]) + Number(times[2])) * 1000 });
    });
  });
}

/**
 * `--only remember`: `remember` of one fact on existing vaults (copies: each run commits to them), the
 * CLI bundles given side by side, alternating their order each round, so a shared machine's load falls on
 * both alike. Prints p50 wall and CPU per vault and CLI, and each CLI's ratio of the last vault to the first.
 */
export async function rememberPairs(vaults: readonly string[], clis: readonly string[], runs: number, env: NodeJS.ProcessEnv): Promise<string> {
  const wall = new Map<string, number[]>();
  const cpu = new Map<string, number[]>();
  const key = (vault: string, cli: string): string => `${vault}\u0000${cli}`;
  const load: number[] = [];
  for (let i = 0; i < runs; i++) {
    load.push(os.loadavg()[0]!);
    for (const vault of vaults) {
      const order = i % 2 === 0 ? clis : [...clis].reverse();
      for (const cli of order) {
        const r = await rememberOnce(cli, vault, `Bench pair ${i}: tried a new pour-over ratio of 1 to ${15 + i} with ${path.basename(path.dirname(path.dirname(cli)))}`, env);
        (wall.get(key(vault, cli)) ?? wall.set(key(vault, cli), []).get(key(vault, cli))!).push(r.wallMs);
        (cpu.get(key(vault, cli)) ?? cpu.set(key(vault, cli), []).get(key(vault, cli))!).push(r.cpuMs);
      }
    }
  }
  const p50 = (m: Map<string, number[]>, vault: string, cli: string): number => summarize(m.get(key(vault, cli)) ?? []).p50;
  const rows = vaults.map((vault) => [path.basename(vault), ...clis.flatMap((cli) => [ms(p50(wall, vault, cli)), ms(p50(cpu, vault, cli))])]);
  const first = vaults[0]!;
  const last = vaults.at(-1)!;
  rows.push([`${path.basename(last)} / ${path.basename(first)}`, ...clis.flatMap((cli) => [`${(p50(wall, last, cli) / p50(wall, first, cli)).toFixed(2)}×`, `${(p50(cpu, last, cli) / p50(cpu, first, cli)).toFixed(2)}×`])]);
  const table = markdownTable([['vault', ...clis.flatMap((cli) => [`${cli} wall p50`, 'CPU p50'])], ...rows]);
  const sorted = [...load].sort((a, b) => a - b);
  return `${table}\n\n${runs} rounds, CLIs alternating; load average ${sorted[0]!.toFixed(1)}–${sorted.at(-1)!.toFixed(1)} over the rounds.`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      facts: { type: 'string', default: '10000,100000' },
      runs: { type: 'string', default: '5' },
      rebuilds: { type: 'string', default: '1' },
      write: { type: 'boolean', default: false },
      only: { type: 'string' },
      vaults: { type: 'string' },
      clis: { type: 'string' },
    },
  });
  if (values.only === 'remember') {
    if (values.vaults === undefined) throw new Error('--only remember needs --vaults A,B (copies of built vaults: each run commits to them)');
    print(await rememberPairs(values.vaults.split(','), (values.clis ?? CLI).split(','), Number(values.runs), cleanEnv()));
    return;
  }
  const base = await mkdtemp(path.join(os.tmpdir(), 'vk-writes-'));
  const machine = machineInfo();
  const env = cleanEnv();
  try {
    const results: WritesResult[] = [];
    for (const facts of values.facts.split(',').map(Number)) {
      results.push(await measureWrites(base, facts, { runs: Number(values.runs), rebuilds: Number(values.rebuilds), env }));
      await rm(path.join(base, `writes-${facts}`), { recursive: true, force: true });
      await rm(path.join(base, `writes-${facts}-qmd`), { recursive: true, force: true });
    }
    const markdown = `${renderWrites(results)}\n\nMeasured ${machine.date.slice(0, 16).replace('T', ' ')} UTC on ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; load average ${machine.load1} at the start, ${os.loadavg()[0]!.toFixed(2)} at the end (a machine shared with other work).`;
    print(markdown);
    if (values.write) await writeSection(BENCHMARKS_DOC, 'bench-writes', markdown);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(path.basename(process.argv[1]))) await main();
