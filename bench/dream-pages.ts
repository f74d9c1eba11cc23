/**
 * `npm run bench:dream`: how readable the offline dream's pages are (issue 10). A generated corpus of
 * people, projects, places and preferences over months, and each LoCoMo conversation, are dreamed
 * offline until nothing is pending; then page-metrics.ts measures the pages. Figures go to
 * docs/benchmarks.md (section dream-pages). Flags:
 *   --data PATH          locomo10.json (default ../shared/data/locomo/locomo10.json from the repository)
 *   --conversations N    only the first N conversations (0: the generated corpus alone)
 *   --no-write / --keep
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openVault } from '#src/vault/vault.js';
import { dreamOffline, loggedFactIds, openCorpusVault, rememberDay } from './corpus-vault.js';
import { loadConversation, readLocomo } from './locomo.js';
import { measurePages, type PageMetrics } from './page-metrics.js';
import { BENCHMARKS_DOC, REPO_ROOT, print, progress, writeSection } from './report.js';
import { machineInfo, markdownTable } from './stats.js';
import { cleanEnv, setEmbedder } from './vaults.js';

const NOW = new Date('2030-01-01T06:00:00Z');

interface Row {
  name: string;
  facts: number;
  runs: number;
  failed: number;
  metrics: PageMetrics;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', default: path.join(REPO_ROOT, '..', 'shared', 'data', 'locomo', 'locomo10.json') },
      conversations: { type: 'string', default: '10' },
      'no-write': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
    },
  });
  const base = await mkdtemp(path.join(os.tmpdir(), 'vk-bench-dream-'));
  const env = cleanEnv();
  const rows: Row[] = [];
  try {
    // The generated corpus, remembered day by day as an agent would.
    const { root, vault, corpus, days } = await openCorpusVault(base, env);
    for (const [date, facts] of days) await rememberDay(vault, date, facts);
    progress(`bench:dream: corpus of ${corpus.facts.length} facts; dreaming`);
    const { runs, failed } = await dreamOffline(vault, NOW, 200);
    rows.push({ name: 'generated corpus', facts: corpus.facts.length, runs, failed, metrics: await measurePages(root, { names: corpus.expectedPages, factIds: await loggedFactIds(root) }) });
    await vault.close();

    const conversations = Number(values.conversations) === 0 ? [] : (await readLocomo(values.data)).slice(0, Number(values.conversations));
    for (const conv of conversations) {
      const croot = path.join(base, `conv-${conv.index}`);
      const loaded = await loadConversation(croot, conv);
      await setEmbedder(croot, 'none');
      const cvault = await openVault({ vault: croot, env });
      progress(`bench:dream: ${conv.sampleId}: ${loaded.turns} turns; dreaming`);
      const speakers = [...new Set(conv.sessions.flatMap((s) => s.turns.map((t) => t.speaker)))].sort();
      const { runs, failed } = await dreamOffline(cvault, NOW, 200);
      rows.push({ name: conv.sampleId, facts: loaded.turns, runs, failed, metrics: await measurePages(croot, { names: speakers, factIds: await loggedFactIds(croot) }) });
      await cvault.close();
    }
  } finally {
    if (!values.keep) await rm(base, { recursive: true, force: true });
    else progress(`bench:dream: vaults kept in ${base}`);
  }

  const machine = machineInfo();
  const row = (r: Row): string[] => {
    const m = r.metrics;
    return [
      r.name,
      String(r.facts),
      `${r.runs} (${r.failed})`,
      `${m.pages} (${m.hubs})`,
      `${m.statements.min}/${m.statements.median}/${m.statements.max}`,
      `${m.underThree} (${Math.round(m.underThreeShare * 100)}%)`,
      `${m.underThreeOwn}`,
      `${m.largestKb} KB`,
      String(m.linesMax),
      String(m.linksPerPage),
      `${m.linksResolved}/${m.links}`,
      `${m.entitiesExpected - m.entitiesMissing.length}/${m.entitiesExpected}${m.entitiesMissing.length > 0 ? ` (missing: ${m.entitiesMissing.join(', ')})` : ''}`,
      `${(m.coverage * 100).toFixed(1)}%`,
      `${m.bySubject} / ${m.byMonth} (${m.notesPerGroup[Math.floor(m.notesPerGroup.length / 2)] ?? '-'})`,
    ];
  };
  const locomo = rows.filter((r) => r.name.startsWith('conv-'));
  const total = locomo.length < 2 ? [] : [row({ name: `LoCoMo, all ${locomo.length}`, facts: sum(locomo.map((r) => r.facts)), runs: sum(locomo.map((r) => r.runs)), failed: sum(locomo.map((r) => r.failed)), metrics: combine(locomo.map((r) => r.metrics)) })];
  const table = markdownTable([
    ['corpus', 'facts', 'runs (failed)', 'pages (hubs)', 'statements min/median/max', 'pages < 3 statements', '… without mentions', 'largest page', 'most lines', 'links/page', 'links resolved', 'entity pages', 'coverage', 'notes grouped by subject / month (median notes a group)'],
    ...rows.map(row),
    ...total,
  ]);
  const body = [
    '## Dream pages (issue 10)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machine.cpu} (${machine.cores} cores), Node ${machine.node}, load ${machine.load1}. Reproduce: \`npm run bench:dream -- --data /work/shared/data/locomo/locomo10.json\` (path to locomo10.json).`,
    'Each corpus is dreamed offline (default dream settings) until nothing is pending; the generated corpus is remembered day by day over 150 days (seed 20260105).',
    'What is counted: a page is any wiki page but the runner\'s review pages (0_Inbox/conflicts.md, unsorted.md). A statement is a list item that cites a fact, outside `## Related` and `## Parts`',
    '(a merged duplicate is one statement; a line under `## Mentions`, another page\'s statement about this page\'s entity repeated with its citation, counts: "… without mentions" is the pages under 3 without them). A hub (a page with `## Parts`) holds its lead and links, its notes live in its parts: hubs are listed in brackets and left out of the statements',
    'columns and of "pages < 3 statements"; every other page, entity pages with only a few statements included, is counted. Links: every `[[…]]` that is not a citation.',
    'Entity pages: the people, projects and places named in ≥ 3 facts (LoCoMo: the two speakers) that resolve to a page by title or alias. The LoCoMo total pools the pages of all conversations.',
    '',
    table,
  ].join('\n');
  print(body);
  if (!values['no-write']) await writeSection(BENCHMARKS_DOC, 'dream-pages', body);
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/** The metrics of several corpora pooled: pages, statements per page, links and coverage over all of them. */
function combine(all: readonly PageMetrics[]): PageMetrics {
  const counts = all.flatMap((m) => m.counts).sort((a, b) => a - b);
  const underThree = counts.filter((n) => n < 3).length;
  const largest = [...all].sort((a, b) => b.largestKb - a.largestKb)[0]!;
  const pages = sum(all.map((m) => m.pages));
  const links = sum(all.map((m) => m.links));
  const expected = sum(all.map((m) => m.entitiesExpected));
  const cited = sum(all.map((m) => m.cited));
  const facts = sum(all.map((m) => (m.coverage === 0 ? 0 : m.cited / m.coverage)));
  return {
    pages,
    hubs: sum(all.map((m) => m.hubs)),
    statements: { min: counts[0] ?? 0, median: counts[Math.floor(counts.length / 2)] ?? 0, max: counts.at(-1) ?? 0 },
    counts,
    underThree,
    underThreeShare: counts.length === 0 ? 0 : underThree / counts.length,
    ownCounts: all.flatMap((m) => m.ownCounts).sort((a, b) => a - b),
    underThreeOwn: sum(all.map((m) => m.underThreeOwn)),
    largestKb: largest.largestKb,
    largestPage: largest.largestPage,
    linesMax: Math.max(...all.map((m) => m.linesMax)),
    links,
    linksPerPage: pages === 0 ? 0 : Math.round((links / pages) * 10) / 10,
    linksResolved: sum(all.map((m) => m.linksResolved)),
    entitiesExpected: expected,
    entitiesMissing: all.flatMap((m) => m.entitiesMissing),
    cited,
    coverage: facts === 0 ? 1 : cited / facts,
    bySubject: sum(all.map((m) => m.bySubject)),
    byMonth: sum(all.map((m) => m.byMonth)),
    notesPerGroup: all.flatMap((m) => m.notesPerGroup).sort((a, b) => a - b),
  };
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:dream: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exitCode = 1;
});
