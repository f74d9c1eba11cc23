/**
 * Which facts the pages place (DESIGN §7, coverage across runs): the fact ids cited on wiki pages, not
 * counting generated pages (digests, the dashboard) nor lines that cite or repeat a forgotten fact (the
 * runner removes those itself), nor citations standing in fenced code (a person's example is not a placement).
 * A plain scan of the lines, cheap enough for the gate on every tick.
 */
import path from 'node:path';
import { listWikiPages } from '../pages/discover.js';
import { citedInLine, frontmatterEnd, isForgottenLine } from '../tombstones/lines.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import { FenceTracker } from '../text/fence.js';
import { isGeneratedPage } from '../vault/layout.js';
import { pageText } from '../pages/page-read.js';
import type { CheckFailure } from './checks.js';

export async function pageCitations(root: string, tombstones: TombstoneSet): Promise<Set<string>> {
  const cited = new Set<string>();
  for (const rel of await listWikiPages(root)) {
    if (isGeneratedPage(rel)) continue;
    const { frontmatter, body } = citingLines(root, rel);
    for (const line of frontmatter) for (const id of citedInLine(line)) cited.add(id);
    for (const line of body) if (!isForgottenLine(line, tombstones)) for (const id of citedInLine(line)) cited.add(id);
  }
  return cited;
}

/**
 * Per page, the lines that cite a fact; found again only when the page's text changed. The text comes from the
 * page memo (page-read.ts: one synchronous stat a page), and the same text is the same string, so an unchanged
 * page costs a lookup: a run asks this of every page twice, and the gate on every tick (issue 31).
 */
const citing = new Map<string, { text: string; lines: { frontmatter: string[]; body: string[] } }>();
/** Past this many pages the memo starts afresh: pages renamed or archived leave stale keys behind. */
const MAX_PAGES = 100_000;

function citingLines(root: string, rel: string): { frontmatter: string[]; body: string[] } {
  let text: string;
  try {
    text = pageText(root, rel);
  } catch {
    text = '';
  }
  const file = path.join(root, rel);
  const kept = citing.get(file);
  if (kept !== undefined && kept.text === text) return kept.lines;
  const lines = text.split('\n');
  const bodyStart = frontmatterEnd(lines);
  const fences = new FenceTracker();
  const cites = (line: string): boolean => line.includes('#^');
  const found = {
    frontmatter: lines.slice(0, bodyStart).filter(cites),
    body: lines.slice(bodyStart).filter((line) => !fences.inCode(line) && cites(line)),
  };
  if (citing.size >= MAX_PAGES) citing.clear();
  citing.set(file, { text, lines: found });
  return found;
}

/**
 * The check: every fact the pages cited before the run (and not forgotten) is still cited on some page
 * after it. Moving a citation between pages is fine; dropping it from the whole wiki is not.
 */
export function citationsKept(before: ReadonlySet<string>, after: ReadonlySet<string>, tombstones: TombstoneSet): CheckFailure | null {
  const lost = [...before].filter((id) => !after.has(id) && !tombstones.hasId(id)).sort();
  if (lost.length === 0) return null;
  const shown = `${lost.slice(0, 3).join(', ')}${lost.length > 3 ? ', …' : ''}`;
  return {
    check: 'coverage',
    message: `${lost.length} ${lost.length === 1 ? 'fact' : 'facts'} the pages cited before the run ${lost.length === 1 ? 'is' : 'are'} cited by no page after it (${shown}); a run may move a citation between pages, never drop it`,
  };
}
