/**
 * `npm run bench:gate`: what the dream's gate costs now that days at or below the watermark can be pending
 * (DESIGN §7, facts written after their day's dream). The gate reads every log before today and, once a
 * watermark exists, every wiki page's citations; `status` and each daemon tick run it. Measured on
 * synthetic consolidated vaults (every day cited on pages but one fact a day), in process
 * (`pendingDates`) and through the CLI (`vaultkeeper status --json`, a child process). Flags:
 *   --years 1,3        vault sizes (365 days of 20 facts a year, 200 pages a year)
 *   --runs 15          in-process runs per size      --cli-runs 5   CLI runs per size
 *   --no-write         print only (docs/benchmarks.md untouched)
 */
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pendingDates, type Pending } from '#src/dream/gate.js';
import { readJournal } from '#src/dream/journal.js';
import { factId } from '#src/logs/ids.js';
import { readTombstones } from '#src/tombstones/tombstones.js';
import { initVault } from '#src/vault/init.js';
import { runCli } from './child.js';
import { BENCHMARKS_DOC, print, progress, writeSection } from './report.js';
import { machineInfo, markdownTable, ms, summarize } from './stats.js';
import { cleanEnv } from './vaults.js';

const FACTS_PER_DAY = 20;
const PAGES_PER_YEAR = 200;

interface Row {
  days: number;
  facts: number;
  pages: number;
  pendingDays: number;
  pendingFacts: number;
  first: number;
  ticks: ReturnType<typeof summarize>;
  grown: ReturnType<typeof summarize>;
  cli: ReturnType<typeof summarize>;
}

/** A vault consolidated up to its last day: every fact cited on a page but the last one of each day. */
async function consolidatedVault(root: string, days: number, pages: number): Promise<{ facts: number; lastDay: string }> {
  await initVault(root);
  await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'timezone: UTC\nindex:\n  embedder: none\n');
  const onPage: string[][] = Array.from({ length: pages }, () => []);
  let n = 0;
  let last = '';
  for (let d = 0; d < days; d++) {
    const date = new Date(Date.UTC(2024, 0, 1) + d * 86_400_000).toISOString().slice(0, 10);
    last = date;
    const lines = [`# ${date}`, '', '## 09:00 · bench'];
    for (let i = 0; i < FACTS_PER_DAY; i++, n++) {
      const text = `Fact ${n} about topic ${n % pages}`;
      const id = factId(date, '09:00', 'bench', text, 0);
      lines.push(`- [fact] ${text} #t${n % pages} ^${id}`);
      if (i < FACTS_PER_DAY - 1) onPage[n % pages]!.push(`- ${text} [[${date}#^${id}]]`);
    }
    await writeFile(path.join(root, 'logs', `${date}.md`), `${lines.join('\n')}\n`);
  }
  for (const [i, items] of onPage.entries()) {
    await writeFile(path.join(root, '2_Areas', `Topic ${i}.md`), `---\ntitle: Topic ${i}\n---\n# Topic ${i}\n\n${items.join('\n')}\n`);
  }
  await writeFile(path.join(root, 'log.md'), `# Dream journal\n\n- 2026-01-01T03:00:00Z · run r-bench · consolidated 2024-01-01..${last} · watermark=${last} · pages +${pages} ~0 · facts ${n}\n`);
  return { facts: n, lastDay: last };
}

async function measure(years: number, runs: number, cliRuns: number): Promise<Row> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vk-bench-gate-'));
  try {
    const root = path.join(dir, 'vault');
    const days = 365 * years;
    const pages = PAGES_PER_YEAR * years;
    progress(`gate: ${days} days, ${pages} pages`);
    const { facts, lastDay } = await consolidatedVault(root, days, pages);
    const journal = await readJournal(root);
    const tombstones = await readTombstones(root);
    const pass = async (): Promise<{ ms: number; pending: Pending }> => {
      const start = performance.now();
      const pending = await pendingDates(root, journal, '2030-01-01', tombstones);
      return { ms: performance.now() - start, pending };
    };
    // The first pass reads everything (what `status` pays); later passes in the same process (the daemon's
    // ticks) read again only the files that changed.
    const first = await pass();
    const ticks: number[] = [];
    for (let i = 0; i < runs; i++) ticks.push((await pass()).ms);
    const grown: number[] = [];
    for (let i = 0; i < runs; i++) {
      await appendFile(path.join(root, 'logs', `${lastDay}.md`), `- [fact] Appended for the bench ${i} ^${factId(lastDay, '10:00', 'bench', `appended ${i}`, 0)}\n`);
      grown.push((await pass()).ms);
    }
    const pending = first.pending;
    const cli: number[] = [];
    // Start-up is timed without the extra CA bundle some machines set (it costs every process).
    const env = cleanEnv();
    delete env.NODE_EXTRA_CA_CERTS;
    for (let i = 0; i < cliRuns; i++) {
      const result = await runCli(['--vault', root, 'status', '--json'], { env });
      if (result.code !== 0) throw new Error(`status exited ${result.code}: ${result.stderr}`);
      cli.push(result.wallMs);
    }
    return { days, facts, pages, pendingDays: pending.dates.length, pendingFacts: pending.facts, first: first.ms, ticks: summarize(ticks), grown: summarize(grown), cli: summarize(cli) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      years: { type: 'string', default: '1,3' },
      runs: { type: 'string', default: '15' },
      'cli-runs': { type: 'string', default: '5' },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const machine = machineInfo();
  const rows: Row[] = [];
  for (const years of values.years.split(',').map(Number)) rows.push(await measure(years, Number(values.runs), Number(values['cli-runs'])));
  const end = machineInfo();
  const body = [
    '### The gate with late facts (`npm run bench:gate`)',
    '',
    `Measured ${machine.date.slice(0, 16).replace('T', ' ')} UTC on ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; load average ${machine.load1} at the start, ${end.load1} at the end (a shared machine: other work skews timings).`,
    `Synthetic consolidated vaults (\`bench/gate.ts\`): ${FACTS_PER_DAY} facts a day, ${PAGES_PER_YEAR} pages a year citing every fact but the last of each day, so every day is pending for one fact. The gate reads every log before today and, as a watermark exists, every page's citations; in a long-lived process (the daemon's ticks) it reads again only the logs and pages whose stat changed.`,
    '',
    markdownTable([
      ['days', 'facts', 'pages', 'pending days / facts', 'first pass', 'later pass, nothing changed: p50 / p95', 'later pass, a log grew: p50 / p95', 'runs', '`status --json` p50 (child process)', 'runs'],
      ...rows.map((r) => [
        String(r.days), r.facts.toLocaleString('en'), String(r.pages), `${r.pendingDays} / ${r.pendingFacts}`, ms(r.first),
        `${ms(r.ticks.p50)} / ${ms(r.ticks.p95)}`, `${ms(r.grown.p50)} / ${ms(r.grown.p95)}`, String(r.ticks.n), ms(r.cli.p50), String(r.cli.n),
      ]),
    ]),
  ].join('\n');
  print(body);
  if (!values['no-write']) await writeSection(BENCHMARKS_DOC, 'bench-gate', body);
}

await main();
