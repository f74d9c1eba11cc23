/**
 * `npm run bench:lifecycle`: the page lifecycle and MEMORY.md on the generated corpus (issue 10,
 * deliverables 4 and 5). The corpus is remembered day by day and dreamed offline every 14 days on its own
 * clock; MEMORY.md is measured at the corpus's end (lines, lines per section, what it left out, the health
 * facts and open commitments it holds). Then a year passes with one new fact a month, dreamed on that
 * month's clock: how many pages the archive takes each month, what stays live, and that coverage and links
 * hold. Figures go to docs/benchmarks.md (section dream-lifecycle). Flags: --no-write, --keep.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { dueOf } from '#src/dream/commitments.js';
import { renderMemory } from '#src/dream/memory.js';
import { listWikiPages } from '#src/pages/discover.js';
import type { Vault } from '#src/vault/vault.js';
import { dreamOffline, loggedFactIds, openCorpusVault, rememberDay, type DreamRuns } from './corpus-vault.js';
import { measurePages } from './page-metrics.js';
import { BENCHMARKS_DOC, print, progress, writeSection } from './report.js';
import { machineInfo, markdownTable } from './stats.js';
import { cleanEnv } from './vaults.js';

const DAY_MS = 86_400_000;
const dayAfter = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
const at = (date: string): Date => new Date(`${date}T06:00:00Z`);

/** Dreams until nothing is pending before `today`; returns the runs and the pages they archived. */
const dreamUntil = (vault: Vault, today: string): Promise<DreamRuns> => dreamOffline(vault, at(today), 50);

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'no-write': { type: 'boolean', default: false }, keep: { type: 'boolean', default: false } } });
  const base = await mkdtemp(path.join(os.tmpdir(), 'vk-bench-life-'));
  const env = cleanEnv();
  const lines: string[] = [];
  try {
    const { root, vault, corpus, days } = await openCorpusVault(base, env);
    const dates = days.map(([date]) => date);
    let runs = 0;
    let failed = 0;
    for (const [index, [date, facts]] of days.entries()) {
      await rememberDay(vault, date, facts);
      // Every 14 days the dream runs on the corpus's own clock, as a daemon would.
      if (index % 14 === 13 || index === dates.length - 1) {
        const run = await dreamUntil(vault, dayAfter(date, 1));
        runs += run.runs;
        failed += run.failed;
      }
    }
    const end = dayAfter(dates.at(-1)!, 1);
    progress(`bench:lifecycle: ${corpus.facts.length} facts dreamed in ${runs} runs; measuring MEMORY.md`);

    // MEMORY.md at the corpus's end.
    const memory = await readFile(path.join(root, 'MEMORY.md'), 'utf8');
    const memoryLines = memory.trimEnd().split('\n');
    const sections = [...memory.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    const perSection = sections.map((s) => {
      const body = memory.split(`## ${s}\n\n`)[1]!.split('\n\n')[0]!;
      return `${s} ${body.split('\n').filter((l) => l.startsWith('- ')).length}`;
    });
    const note = /^\+(\d+) more on (.+)$/m.exec(memory);
    const allergies = [...new Set(corpus.facts.filter((f) => /allergic/.test(f.text)).map((f) => f.text))];
    const allergiesIn = allergies.filter((t) => memory.includes(t)).length;
    const openDue = [...new Set(corpus.facts.filter((f) => f.category === 'commitment').map((f) => f.text))];
    const pastShown = memoryLines.filter((l) => l.startsWith('- ') && (dueOf(l) ?? '9999') < end).length;
    const again = await renderMemory(root, root, /\(last: ([^)\s]+)\)/.exec(memory)![1]!, { maxLines: 80, today: end });
    lines.push(
      `MEMORY.md at the corpus's end (${end}, cap 80 lines): ${memoryLines.length} lines; ${perSection.join(', ')}; ` +
        `closing note: ${note === null ? 'none (nothing left out)' : `"+${note[1]} more on ${note[2]}"`}. ` +
        `Allergies stated in the corpus: ${allergiesIn}/${allergies.length} in MEMORY.md. Commitments whose date passed shown: ${pastShown} ` +
        `(of ${openDue.length} commitment texts in the corpus). Regenerated from the same files: ${again === memory ? 'byte-identical' : 'DIFFERENT'}.`,
    );

    // A year after the corpus: one new fact a month, dreamed on that month's clock.
    const rows: string[][] = [];
    const livePages = async (): Promise<{ live: number; archived: number }> => {
      const rels = (await listWikiPages(root)).filter((r) => !r.startsWith('0_Inbox/'));
      return { live: rels.filter((r) => !r.startsWith('5_Archives/')).length, archived: rels.filter((r) => r.startsWith('5_Archives/')).length };
    };
    const start = await livePages();
    rows.push([end, '-', '-', String(start.live), String(start.archived), '-']);
    for (let month = 1; month <= 12; month++) {
      const date = dayAfter(end, month * 30);
      await vault.remember([{ text: `Monthly check-in number ${month} went well`, category: 'moment' as never, tags: [] }], { source: 'bench', now: new Date(`${date}T12:00:00Z`) });
      const run = await dreamUntil(vault, dayAfter(date, 1));
      runs += run.runs;
      failed += run.failed;
      const now = await livePages();
      rows.push([date, String(run.runs), String(run.archived), String(now.live), String(now.archived), `${run.ms} ms`]);
    }
    const metrics = await measurePages(root, { names: corpus.expectedPages, factIds: await loggedFactIds(root) });
    const table = markdownTable([['dreamed on', 'runs', 'archived', 'live pages', 'archived pages', 'run time'], ...rows]);
    lines.push(
      '',
      `A year after the corpus, one fact a month (\`dream.archive_after_days\` 180, \`max_archived_pages\` 10): runs ${runs} in all, ${failed} failed.`,
      '',
      table,
      '',
      `After the year: coverage ${(metrics.coverage * 100).toFixed(1)}% (every fact cited by a live or an archived page), links resolved ${metrics.linksResolved}/${metrics.links}.`,
    );
    await vault.close();
  } finally {
    if (!values.keep) await rm(base, { recursive: true, force: true });
    else progress(`bench:lifecycle: vault kept in ${base}`);
  }
  const machine = machineInfo();
  const body = [
    '## Page lifecycle and MEMORY.md (offline consolidator)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machine.cpu} (${machine.cores} cores), Node ${machine.node}, load ${machine.load1}. Reproduce: \`npm run bench:lifecycle\`.`,
    'The generated corpus of bench:dream (seed 20260105, 150 days), remembered day by day and dreamed every 14 days on its own clock.',
    '',
    ...lines,
  ].join('\n');
  print(body);
  if (!values['no-write']) await writeSection(BENCHMARKS_DOC, 'dream-lifecycle', body);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:lifecycle: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exitCode = 1;
});
