/**
 * How readable a dream's pages are, measured on the files (issue 10): pages, statements per page,
 * pages under 3 statements, the largest page, entity pages for the people a corpus names, links and
 * whether they resolve, coverage. A statement is a list item that cites a fact, outside Related and
 * Parts (a mention, repeating another page's statement about this page's entity, counts for this page
 * too; ownCounts leaves mentions out); hubs (pages with `## Parts`) are counted apart, since their
 * statements live in their parts.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { listWikiPages } from '#src/pages/discover.js';
import { linkResolver } from '#src/pages/links.js';
import { parsePage } from '#src/pages/parse.js';

export interface PageMetrics {
  pages: number;
  hubs: number;
  statements: { min: number; median: number; max: number };
  /** Statements on each content page (hubs aside), for totals over several corpora. */
  counts: number[];
  underThree: number;
  underThreeShare: number;
  /** Statements of each content page counted without its `## Mentions` (repeats of other pages' statements). */
  ownCounts: number[];
  underThreeOwn: number;
  largestKb: number;
  largestPage: string;
  linesMax: number;
  links: number;
  linksPerPage: number;
  linksResolved: number;
  /** Names (people, projects, places) expected to have a page, and those that have none. */
  entitiesExpected: number;
  entitiesMissing: string[];
  cited: number;
  coverage: number;
  /** Pages whose Notes stand under subject headings, and under month headings (`### June 2026`). */
  bySubject: number;
  byMonth: number;
  /** Notes per `###` group of Notes, over all grouped pages. */
  notesPerGroup: number[];
}

/** Pages the runner writes for review, not consolidated content. */
const REVIEW = new Set(['0_Inbox/conflicts.md', '0_Inbox/unsorted.md']);
const WIKILINK_RE = /!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]/g;
const MONTH_RE = /^### (?:January|February|March|April|May|June|July|August|September|October|November|December) \d{4}$/;
const CITE_RE = /\[\[\d{4}-\d{2}-\d{2}#\^(f-[0-9a-z]+)/g;

export async function measurePages(root: string, expected: { names: readonly string[]; factIds: readonly string[] }): Promise<PageMetrics> {
  const rels = (await listWikiPages(root)).filter((r) => !REVIEW.has(r)).sort();
  const parsed = await Promise.all(rels.map(async (rel) => ({ rel, text: await readFile(path.join(root, rel), 'utf8') })));
  const pages = parsed.map(({ rel, text }) => ({ rel, text, aliases: parsePage(rel, text).frontmatter.aliases }));
  const resolve = linkResolver(pages.map((p) => ({ path: p.rel, aliases: p.aliases })));
  const counts: number[] = [];
  const ownCounts: number[] = [];
  const cited = new Set<string>();
  let hubs = 0;
  let links = 0;
  let resolved = 0;
  let largest = { rel: '', bytes: 0 };
  let linesMax = 0;
  let bySubject = 0;
  let byMonth = 0;
  const notesPerGroup: number[] = [];
  for (const page of pages) {
    let section = '';
    let statements = 0;
    let mentions = 0;
    const groups: Array<{ month: boolean; notes: number }> = [];
    for (const line of page.text.split('\n')) {
      const heading = /^## (.+)$/.exec(line.trim());
      if (heading) section = heading[1]!;
      if (section === 'Notes' && line.startsWith('### ')) groups.push({ month: MONTH_RE.test(line.trim()), notes: 0 });
      else if (section === 'Notes' && groups.length > 0 && /^\s*[-*+] /.test(line)) groups.at(-1)!.notes++;
      for (const m of line.matchAll(CITE_RE)) cited.add(m[1]!);
      if (/^\s*[-*+] /.test(line) && CITE_RE.test(line) && section !== 'Related' && section !== 'Parts') {
        statements++;
        if (section === 'Mentions') mentions++;
      }
      CITE_RE.lastIndex = 0;
      for (const m of line.matchAll(WIKILINK_RE)) {
        const target = m[1]!.trim();
        if (/^\d{4}-\d{2}-\d{2}$/.test(target) || target === '') continue; // a citation
        links++;
        if (resolve(target, page.rel) !== null) resolved++;
      }
    }
    if (groups.length > 0) {
      if (groups.every((g) => g.month)) byMonth++;
      else bySubject++;
      notesPerGroup.push(...groups.map((g) => g.notes));
    }
    const bytes = Buffer.byteLength(page.text);
    if (bytes > largest.bytes) largest = { rel: page.rel, bytes };
    linesMax = Math.max(linesMax, page.text.split('\n').length);
    if (/^## Parts\s*$/m.test(page.text)) hubs++;
    else {
      counts.push(statements);
      ownCounts.push(statements - mentions);
    }
  }
  const sorted = [...counts].sort((a, b) => a - b);
  const underThree = sorted.filter((n) => n < 3).length;
  const missing = expected.names.filter((name) => resolve(name) === null);
  const kept = expected.factIds.filter((id) => cited.has(id)).length;
  return {
    pages: pages.length,
    hubs,
    statements: { min: sorted[0] ?? 0, median: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted.at(-1) ?? 0 },
    counts: sorted,
    underThree,
    underThreeShare: sorted.length === 0 ? 0 : underThree / sorted.length,
    ownCounts: ownCounts.sort((a, b) => a - b),
    underThreeOwn: ownCounts.filter((n) => n < 3).length,
    largestKb: Math.round((largest.bytes / 1024) * 10) / 10,
    largestPage: largest.rel,
    linesMax,
    links,
    linksPerPage: pages.length === 0 ? 0 : Math.round((links / pages.length) * 10) / 10,
    linksResolved: resolved,
    entitiesExpected: expected.names.length,
    entitiesMissing: missing,
    cited: kept,
    coverage: expected.factIds.length === 0 ? 1 : kept / expected.factIds.length,
    bySubject,
    byMonth,
    notesPerGroup: notesPerGroup.sort((a, b) => a - b),
  };
}
