/** Search that answers questions (issue 9): query parsing, the context field, supersession, bounded page reads, scores. */
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { SearchResult } from '../../src/indexer/search.js';
import type { Vault } from '../../src/vault/vault.js';
import { runCli, runJson } from '../helpers/cli.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const NONE = 'index:\n  embedder: none\n';
const NOW = new Date('2026-07-01T00:00:00Z');

const PEOPLE = {
  'logs/2026-06-01.md': [
    '# 2026-06-01',
    '',
    '## 09:00 · cli',
    '- [preference] Prefers dark roast coffee, brewed in a French press #coffee ^f-aaaaaaaaa1',
    '- [fact] Likes long trail runs on weekends ^f-aaaaaaaaa2',
    '- [fact] Sister lives in Madrid ^f-aaaaaaaaa3',
    '',
  ].join('\n'),
  'logs/2026-06-02.md': [
    '# 2026-06-02',
    '',
    '## 10:00 · chat/1',
    '- [moment] Melanie: We went to the pottery workshop with the kids ^f-bbbbbbbbb1',
    '- [moment] Caroline: That sounds lovely, what did you make? ^f-bbbbbbbbb2',
    '- [moment] Melanie: A small bowl, painted blue ^f-bbbbbbbbb3',
    '',
    '## 18:00 · chat/2',
    '- [fact] The garage door needs a new spring ^f-bbbbbbbbb4',
    '',
  ].join('\n'),
};

/**
 * A result's text is exactly the lines of its statements, in order, within its line range and section, without
 * their inline citations: each statement carries the ids its lines cite, and the result all of them.
 */
function expectShownLines(r: SearchResult, page: string): void {
  const lines = page.split('\n');
  const cited = (text: string): string[] => [...text.matchAll(/\^(f-[0-9a-z]+)\]\]/g)].map((m) => m[1]!);
  const shown = r.statements.map((s) => lines.slice(s.line - 1, s.line_end).join('\n'));
  // A statement that cites shows the date it was said after it (once for lines of one day in a row).
  const undated = r.text.replace(/ \(\d{1,2} [A-Z][a-z]+ \d{4}\)$/gm, '');
  expect(undated).toBe(shown.map((text) => text.replace(/\s*\[\[\d{4}-\d{2}-\d{2}#\^f-[0-9a-z]+\]\]/g, '')).join('\n'));
  if (r.citations.length > 0) expect(r.text).toMatch(/ \(\d{1,2} [A-Z][a-z]+ \d{4}\)$/);
  expect(r.text).not.toContain('#^f-');
  expect(r.statements.map((s) => s.citations)).toEqual(shown.map(cited));
  expect(r.line).toBe(r.statements[0]!.line);
  expect(r.line_end).toBe(r.statements.at(-1)!.line_end);
  expect(r.line).toBeGreaterThanOrEqual(r.section.line);
  expect(r.line_end).toBeLessThanOrEqual(r.section.line_end);
  expect(r.citations).toEqual(shown.flatMap(cited));
}

async function ids(vault: Vault, query: string, options: Parameters<Vault['search']>[1] = {}): Promise<Array<string | null>> {
  return (await vault.search(query, { refresh: false, recordRecall: false, now: NOW, ...options })).map((r) => r.id);
}

describe('questions as queries', () => {
  it('ranks by the content words of a question, ORs them, and keeps phrases and negation', async () => {
    const vault = await makeVault(await tempDir(), { config: NONE, files: PEOPLE });
    await vault.reindex();
    // Question words do not drive the ranking: the coffee fact comes first.
    expect((await ids(vault, 'what coffee does the user like?'))[0]).toBe('f-aaaaaaaaa1');
    // OR-ed: a fact holding only one of the words is still found.
    expect(await ids(vault, 'coffee garage', { kind: 'fact' })).toEqual(expect.arrayContaining(['f-aaaaaaaaa1', 'f-bbbbbbbbb4']));
    // A quoted phrase must appear as written; a word that is in it but elsewhere does not qualify a fact.
    expect(await ids(vault, '"dark roast"', { kind: 'fact' })).toEqual(['f-aaaaaaaaa1']);
    expect(await ids(vault, '"roast dark"', { kind: 'fact' })).toEqual([]);
    // -word and -"phrase" leave out what holds them.
    const withoutPress = await ids(vault, 'coffee garage -press', { kind: 'fact' });
    expect(withoutPress).toContain('f-bbbbbbbbb4');
    expect(withoutPress).not.toContain('f-aaaaaaaaa1');
    expect(await ids(vault, 'coffee -"french press"', { kind: 'fact' })).not.toContain('f-aaaaaaaaa1');
    // A query of nothing but stop words still searches its words.
    const stopOnly = await vault.search('what did you', { refresh: false, recordRecall: false, kind: 'fact' });
    expect(stopOnly.map((r) => r.id)).toContain('f-bbbbbbbbb2');
    await vault.close();
  });

  it('rejects a query of nothing but exclusions with a usage error (exit 2)', async () => {
    const vault = await makeVault(await tempDir(), { config: NONE, files: PEOPLE });
    const result = await runCli(['--vault', vault.root, 'search', '--', '-coffee']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/a word to look for/);
  });
});

describe('the context field', () => {
  it('finds a fact by the words of its neighbour in the batch, ranks the fact holding them first, and shows only its own text', async () => {
    const vault = await makeVault(await tempDir(), { config: NONE, files: PEOPLE });
    await vault.reindex();
    const results = await vault.search('what did Melanie make at the pottery workshop?', { refresh: false, recordRecall: false, kind: 'fact', now: NOW });
    const byId = new Map(results.map((r) => [r.id, r]));
    expect(results[0]!.id).toBe('f-bbbbbbbbb1'); // its own words outrank a neighbour's
    const bowl = byId.get('f-bbbbbbbbb3'); // "A small bowl, painted blue": no word of the question but Melanie, found by its neighbours
    expect(bowl).toMatchObject({ text: 'Melanie: A small bowl, painted blue', line: 6, link: '[[2026-06-02#^f-bbbbbbbbb3]]', statements: [{ line: 6, line_end: 6, citations: [] }] });
    // Another batch of the same day is not context.
    expect(byId.has('f-bbbbbbbbb4')).toBe(false);
    await vault.close();
  });

  it('finds a fact by the words of its date, and shows only its own text', async () => {
    const vault = await makeVault(await tempDir(), { config: NONE, files: PEOPLE });
    await vault.reindex();
    const results = await vault.search('what happened on 2 June 2026?', { refresh: false, recordRecall: false, kind: 'fact', now: NOW });
    expect(results.slice(0, 4).map((r) => r.date)).toEqual(['2026-06-02', '2026-06-02', '2026-06-02', '2026-06-02']);
    for (const r of results) expect(r.text).not.toMatch(/June|2026/);
    await vault.close();
  });

  it('takes the context from one batch only, even when the next has the same minute and source', async () => {
    const log = ['# 2026-06-03', '', '## 10:00 · cli', '- [fact] Carol runs the pottery studio ^f-hhhhhhhhh1', '', '## 10:00 · cli', '- [fact] The garden bed gets morning sun ^f-hhhhhhhhh2', ''].join('\n');
    const vault = await makeVault(await tempDir(), { config: NONE, files: { 'logs/2026-06-03.md': log } });
    await vault.reindex();
    expect(await ids(vault, 'garden morning sun')).toEqual(['f-hhhhhhhhh2']);
    await vault.close();
  });
});

describe('current before superseded', () => {
  it('ranks the newest keyed value first before any dream, even when an older value matches better, and the later-written of one day first', async () => {
    const vault = await makeVault(await tempDir(), {
      config: NONE,
      files: {
        'logs/2026-05-01.md': '# 2026-05-01\n\n## 09:00 · cli\n- [fact] home city:: Porto ^f-ccccccccc1\n',
        'logs/2026-06-10.md': '# 2026-06-10\n\n## 09:00 · cli\n- [fact] [home city:: Lisbon, in the Alfama district near the river] ^f-ccccccccc2\n',
        'logs/2026-06-12.md': [
          '# 2026-06-12',
          '',
          '## 09:00 · cli',
          '- [fact] coffee order:: flat white ^f-ddddddddd1',
          '',
          '## 15:00 · cli',
          '- [correction] coffee order:: cortado ^f-ddddddddd2',
          '',
        ].join('\n'),
      },
    });
    await vault.reindex();
    for (const query of ['home city', 'what is the home city?', 'where is my home city']) {
      expect((await ids(vault, query))[0]).toBe('f-ccccccccc2');
    }
    for (const query of ['coffee order', 'what is the coffee order']) {
      expect(await ids(vault, query)).toEqual(['f-ddddddddd2', 'f-ddddddddd1']);
    }
    // The older value is still findable, below: History, not gone.
    const old = await vault.search('Porto', { refresh: false, recordRecall: false, now: NOW });
    expect(old[0]).toMatchObject({ id: 'f-ccccccccc1' });
    expect(old[0]!.score).toBeLessThan(0.5);
    await vault.close();
  });
  it('keeps the newest keyed value current in a warm process after another process indexes a newer one', async () => {
    const vault = await makeVault(await tempDir(), {
      config: NONE,
      files: { 'logs/2026-05-01.md': '# 2026-05-01\n\n## 09:00 · cli\n- [fact] home city:: Porto ^f-ccccccccc1\n' },
    });
    await vault.reindex();
    // Searched again and again: from the second search on, the warm store answers from the subjects' rows it keeps.
    for (let i = 0; i < 3; i++) expect(await ids(vault, 'home city')).toEqual(['f-ccccccccc1']);
    await writeFile(`${vault.root}/logs/2026-06-10.md`, '# 2026-06-10\n\n## 09:00 · cli\n- [fact] home city:: Lisbon ^f-ccccccccc2\n');
    await runCli(['--vault', vault.root, 'reindex', '--json']);
    for (let i = 0; i < 3; i++) expect(await ids(vault, 'home city')).toEqual(['f-ccccccccc2', 'f-ccccccccc1']);
    // With a filter the store looks the subject up as before, and agrees.
    expect(await ids(vault, 'home city', { kind: 'fact' })).toEqual(['f-ccccccccc2', 'f-ccccccccc1']);
    await vault.close();
  });

  it('ranks a page line of History below one of Conflicts (the newest values, in dispute) after a dream', async () => {
    const page = [
      '# Ana',
      '',
      '## History',
      '',
      "- Ana's employer: Initech [[2026-01-03#^f-kkkkkkkkk1]] (until 2026-02-26)",
      '',
      '## Conflicts',
      '',
      '- [ ] **Ana\'s employer**: "Globex" [[2026-02-26#^f-kkkkkkkkk2]] or "Hooli" [[2026-02-26#^f-kkkkkkkkk3]], both on 2026-02-26',
      '',
    ].join('\n');
    const vault = await makeVault(await tempDir(), { config: NONE, files: { '3_Personal/Ana.md': page } });
    await vault.reindex();
    const results = await vault.search("Ana's employer", { refresh: false, recordRecall: false, now: NOW });
    expect(results.map((r) => r.heading_path)).toEqual(['Ana > Conflicts', 'Ana > History']);
    expect(results[1]!.score).toBeLessThan(results[0]!.score / 1.5);
    await vault.close();
  });

  it("ranks a superseded value marked (until DATE) below the current one, even on a page the query names", async () => {
    const lisbon = ['---', 'title: Lisbon', 'type: place', '---', '# Lisbon', '', '## Mentions', '',
      '- Lisbon office manager: Ines Duarte (see [[Nuno Faria]]) [[2026-01-05#^f-uuuuuuuuu1]] (until 2026-02-20)', ''].join('\n');
    const nuno = ['---', 'title: Nuno Faria', 'type: person', '---', '# Nuno Faria', '', '## Current', '',
      '- Lisbon office manager:: Joao Pires and the facilities team [[2026-02-20#^f-uuuuuuuuu2]]', ''].join('\n');
    const vault = await makeVault(await tempDir(), { config: NONE, files: { '2_Areas/Lisbon.md': lisbon, '3_Personal/Nuno Faria.md': nuno } });
    await vault.reindex();
    const results = await vault.search('what is the Lisbon office manager', { refresh: false, recordRecall: false, now: NOW });
    expect(results.map((r) => r.title)).toEqual(['Nuno Faria', 'Lisbon']);
    await vault.close();
  });
});

describe('a bounded read', () => {
  const COFFEE_PAGE = [
    '---',
    'title: Coffee',
    'tags: [coffee]',
    '---',
    '# Coffee',
    '',
    '## Current',
    '',
    '- Prefers dark roast beans [[2026-06-01#^f-aaaaaaaaa1]]',
    '- Grinds the beans fresh every morning [[2026-06-03#^f-eeeeeeeee1]]',
    '- Owns a red kettle [[2026-06-04#^f-eeeeeeeee2]]',
    '- Takes no sugar [[2026-06-05#^f-eeeeeeeee3]]',
    '- Visits the Alfama market on Saturdays [[2026-06-06#^f-eeeeeeeee4]]',
    '- Uses a French press [[2026-06-07#^f-eeeeeeeee5]]',
    '',
  ].join('\n');

  it('returns one statement of a page section (its citation apart from the text), heading path, line range and section range', async () => {
    const vault = await makeVault(await tempDir(), { config: NONE, files: { '2_Areas/Coffee.md': COFFEE_PAGE } });
    await vault.reindex();
    const [page] = await vault.search('which kettle does she own?', { refresh: false, recordRecall: false, kind: 'page', now: NOW });
    expect(page).toMatchObject({
      kind: 'page',
      path: '2_Areas/Coffee.md',
      text: '- Owns a red kettle (4 June 2026)',
      line: 11,
      line_end: 11,
      statements: [{ line: 11, line_end: 11, citations: ['f-eeeeeeeee2'] }],
      section: { line: 7, line_end: 14 },
      heading_path: 'Coffee > Current',
      citations: ['f-eeeeeeeee2'],
      date: '2026-06-04',
    });
    // k bounds the read: k results, each showing only lines of the section that matched.
    const three = await vault.search('beans kettle sugar press market', { k: 3, refresh: false, recordRecall: false, kind: 'page', now: NOW });
    expect(three.length).toBeGreaterThan(0);
    expect(three.length).toBeLessThanOrEqual(3);
    for (const r of three) expectShownLines(r, COFFEE_PAGE);
    await vault.close();
  });

  // Two sections whose lines match "kettle" equally well, and one that matches it barely.
  const KETTLE_PAGE = [
    '---',
    'title: Kitchen',
    '---',
    '# Kitchen',
    '',
    '## Shelf',
    '',
    '- Owns a red kettle [[2026-06-04#^f-kkkkkkkkk1]]',
    '- Bought new mugs [[2026-06-04#^f-kkkkkkkkk2]]',
    '- Owns a tin kettle [[2026-06-05#^f-kkkkkkkkk3]]',
    '',
    '## Garden',
    '',
    '- Owns a black kettle [[2026-06-01#^f-kkkkkkkkk4]]',
    '- Planted basil, mint, thyme, rosemary, sage, chives and parsley by the old copper kettle stand near the shed door [[2026-06-02#^f-kkkkkkkkk5]]',
    '',
  ].join('\n');

  it('shows the matching statements of one section as one result: their lines in order, their citations, the line range', async () => {
    const vault = await makeVault(await tempDir(), { config: NONE, files: { '2_Areas/Kitchen.md': KETTLE_PAGE } });
    await vault.reindex();
    const results = await vault.search('kettle', { refresh: false, recordRecall: false, kind: 'page', now: NOW });
    for (const r of results) expectShownLines(r, KETTLE_PAGE);
    const shelf = results.find((r) => r.heading_path === 'Kitchen > Shelf')!;
    expect(shelf).toMatchObject({
      text: '- Owns a red kettle (4 June 2026)\n- Owns a tin kettle (5 June 2026)',
      line: 8,
      line_end: 10,
      statements: [{ line: 8, line_end: 8, citations: ['f-kkkkkkkkk1'] }, { line: 10, line_end: 10, citations: ['f-kkkkkkkkk3'] }],
      section: { line: 6, line_end: 10 },
      citations: ['f-kkkkkkkkk1', 'f-kkkkkkkkk3'],
      date: '2026-06-05',
    });
    // Another section is another result; a line matching far worse than its section's best stands alone below it.
    const garden = results.filter((r) => r.heading_path === 'Kitchen > Garden');
    expect(garden.map((r) => r.statements.map((s) => s.line))).toEqual([[14], [15]]);
    expect(garden[0]!.score).toBeGreaterThan(garden[1]!.score);
    // k counts results, not lines: one result holds both Shelf lines.
    expect(await vault.search('kettle', { k: 1, refresh: false, recordRecall: false, kind: 'page', now: NOW })).toHaveLength(1);
    // A character budget too small for a whole result keeps its best statement (never a line cut in two when one fits).
    const first = results[0]!;
    expect(first).toEqual(shelf); // the newest citations
    const best = await vault.search('kettle', { maxChars: first.text.length - 1, refresh: false, recordRecall: false, kind: 'page', now: NOW });
    expect(best).toHaveLength(1);
    expect(best[0]!.statements).toHaveLength(1);
    expectShownLines(best[0]!, KETTLE_PAGE);
    await vault.close();
  });

  it('bounds the whole answer by --max-chars and --min-score, with scores from 0 to 1, through the CLI', async () => {
    const vault = await makeVault(await tempDir(), { config: NONE, files: { ...PEOPLE, '2_Areas/Coffee.md': COFFEE_PAGE } });
    const all = (await runJson<{ results: SearchResult[] }>(['--vault', vault.root, 'search', 'coffee beans kettle press', '--json'])).results;
    expect(all.length).toBeGreaterThan(2);
    for (const r of all) {
      expect(r.score).toBeGreaterThan(0);
      expect(r.score).toBeLessThanOrEqual(1);
    }
    expect(all.map((r) => r.score)).toEqual([...all.map((r) => r.score)].sort((a, b) => b - a));
    const budget = all[0]!.text.length + all[1]!.text.length;
    const bounded = (await runJson<{ results: SearchResult[] }>(['--vault', vault.root, 'search', 'coffee beans kettle press', '--max-chars', String(budget), '--json'])).results;
    expect(bounded.map((r) => r.text)).toEqual(all.slice(0, 2).map((r) => r.text));
    const floor = all[1]!.score;
    const above = (await runJson<{ results: SearchResult[] }>(['--vault', vault.root, 'search', 'coffee beans kettle press', '--min-score', String(floor), '--json'])).results;
    expect(above.length).toBeGreaterThanOrEqual(2);
    expect(above.every((r) => r.score >= floor)).toBe(true);
    expect(above.length).toBeLessThan(all.length);
    const bad = await runCli(['--vault', vault.root, 'search', 'coffee', '--min-score', '2']);
    expect(bad.code).toBe(2);
    await vault.close();
  });
});

describe('page lines as rows', () => {
  const PAGE = [
    '---',
    'title: Ana',
    'type: person',
    '---',
    '# Ana',
    '',
    '## Garden allotment',
    '',
    '- Grows tomatoes and chard [[2026-06-02#^f-ggggggggg1]]',
    '- Waters them before work [[2026-06-02#^f-ggggggggg2]]',
    '',
    'Bought a greenhouse in spring; it still needs',
    'a door that closes [[2026-06-03#^f-ggggggggg4]]',
    '',
    '## Related',
    '',
    '- [[Allotments]]',
    '',
    '## Parts',
    '',
    '- [[Ana 2026-05]]',
    '',
  ].join('\n');
  const LOG = [
    '# 2026-06-02',
    '',
    '## 09:00 · chat/1',
    '- [moment] Bo: How is the community plot doing? ^f-ggggggggg0',
    '- [fact] Grows tomatoes and chard ^f-ggggggggg1',
    '- [fact] Waters them before work ^f-ggggggggg2',
    '- [fact] Keeps bees on the roof ^f-ggggggggg3',
    '',
  ].join('\n');
  const files = { '3_Personal/Ana.md': PAGE, 'logs/2026-06-02.md': LOG };

  it('finds a page line by its heading and title words and by the passage of the fact it cites, showing only its own lines', async () => {
    const vault = await makeVault(await tempDir(), { config: NONE, files });
    await vault.reindex();
    const search = (query: string): Promise<SearchResult[]> => vault.search(query, { refresh: false, recordRecall: false, kind: 'page', now: NOW });
    // "allotment" is only in the heading; "Ana" only in the title.
    const byHeading = await search('what is in Ana allotment');
    expect(byHeading.flatMap((r) => r.statements.map((s) => s.line)).sort()).toEqual([12, 9, 10].sort());
    for (const r of byHeading) expect(r).toMatchObject({ heading_path: 'Ana > Garden allotment', section: { line: 7, line_end: 13 } });
    // "community plot" is only in the fact before the cited ones, in their log batch: both lines found as the facts were
    // before the dream, as one result of their section.
    const [byPassage, ...others] = await search('community plot');
    expect(others).toEqual([]);
    expect(byPassage).toMatchObject({
      text: '- Grows tomatoes and chard\n- Waters them before work (2 June 2026)',
      line: 9,
      line_end: 10,
      citations: ['f-ggggggggg1', 'f-ggggggggg2'],
    });
    // A paragraph is one statement: its line range spans it.
    const [greenhouse] = await search('greenhouse door');
    expect(greenhouse).toMatchObject({ line: 12, line_end: 13, citations: ['f-ggggggggg4'], date: '2026-06-03' });
    // Lines of nothing but links are navigation, not statements.
    for (const r of await search('Ana allotments 2026 05')) expect(r.text).not.toMatch(/^- \[\[[^\]]*\]\]$/);
    await vault.close();
  });

  it("ranks a line of the page whose title the question names above another page's line that also names it", async () => {
    const page = (title: string, line: string): string => `---\ntitle: ${title}\ntype: person\n---\n# ${title}\n\n## Notes\n\n${line}\n`;
    const files: Record<string, string> = {
      '3_Personal/Ana.md': page('Ana', '- Went hiking in the Alps in June [[2026-06-01#^f-ttttttttt1]]'),
      '3_Personal/Ben 2026-06.md': page('Ben 2026-06', '- Ana went hiking in the Alps in June [[2026-06-02#^f-ttttttttt2]]'),
    };
    for (let i = 0; i < 8; i++) files[`2_Areas/Market ${i}.md`] = page(`Market ${i}`, `- Bought bread number ${i} at the market [[2026-05-0${i + 1}#^f-fffffffff${i}]]`);
    const vault = await makeVault(await tempDir(), { config: NONE, files });
    await vault.reindex();
    const search = (query: string) => vault.search(query, { refresh: false, recordRecall: false, kind: 'page', now: NOW });
    // Ben's line holds both words itself, Ana's only "hiking"; but Ana's page is about Ana.
    const [first, second] = await search('where did Ana go hiking?');
    expect([first!.title, second!.title]).toEqual(['Ana', 'Ben 2026-06']);
    expect(first!.score).toBeLessThanOrEqual(1);
    // A title's number (a part's period) names nothing: "2026" does not lift Ben's page above Ana's.
    expect((await search('hiking 2026'))[0]!.title).toBe('Ana');
    await vault.close();
  });

  it('never indexes a page line citing a forgotten fact, and keeps the rest of its section', async () => {
    const vault = await makeVault(await tempDir(), { config: NONE, files });
    await vault.forget({ id: 'f-ggggggggg2' }, { now: NOW });
    await vault.reindex();
    const results = await vault.search('waters tomatoes chard work', { refresh: false, recordRecall: false, kind: 'page', now: NOW });
    expect(results.map((r) => r.line)).toEqual([9]);
    // Nor is a forgotten fact's text in another line's context.
    expect(await vault.search('before work', { refresh: false, recordRecall: false, now: NOW })).toEqual([]);
    await vault.close();
  });
});

describe('only content is searchable', () => {
  it('never returns the MEMORY.md preamble or template text, and does return its list items', async () => {
    const memory = [
      '# Memory',
      '',
      "Core memory, regenerated by vaultkeeper after each dream (last: r-1) from the pages' current values and what searches recall most. Edit the pages, not this file.",
      '',
      '## Current',
      '',
      '- home city:: Lisbon — [[Places]]',
      '',
      '## Principles',
      '',
      '_Nothing keyed yet._',
      '',
      '## Often recalled',
      '',
      '- [[Places]] (recalled 3 times)',
      '',
      '## Pages',
      '',
      '- 3_Personal: 24',
      '',
    ].join('\n');
    const vault = await makeVault(await tempDir(), { config: NONE, files: { ...PEOPLE, 'MEMORY.md': memory } });
    await vault.reindex();
    for (const query of ['what searches recall most', 'regenerated after each dream', 'edit the pages', 'nothing keyed yet', 'what is the memory', '3_Personal 24 pages', 'places recalled 3 times']) {
      const results = await vault.search(query, { refresh: false, recordRecall: false, now: NOW });
      for (const r of results) expect(r.text).not.toMatch(/regenerated|Edit the pages|Nothing keyed|3_Personal|recalled 3/);
    }
    const [core] = await vault.search('home city', { refresh: false, recordRecall: false, kind: 'core', now: NOW });
    expect(core).toMatchObject({ kind: 'core', text: '- home city:: Lisbon — [[Places]]', line: 7 });
    await vault.close();
  });
});

describe('the demo', () => {
  it('says full text when no embedder is set, and its questions put the right fact first', async () => {
    const dir = await tempDir();
    const result = await runCli(['demo', `${dir}/demo`], { env: { VAULTKEEPER_EMBEDDER: undefined } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/reindex — .*\(full text; /);
    expect(result.stdout).not.toMatch(/vectors from/);
    const firstAfter = (heading: string): string => result.stdout.split(`== ${heading}`)[1]!.split('\n')[1]!;
    expect(firstAfter('vaultkeeper search "what coffee does the user like?"')).toMatch(/Prefers dark roast coffee/);
    expect(firstAfter(`vaultkeeper search "where is the user's home?"`)).toMatch(/home city:: Porto/);
    expect(firstAfter('vaultkeeper search "home city"')).toMatch(/home city:: Porto/);
  });
});
