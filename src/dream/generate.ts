/**
 * The files the runner (not a consolidator) writes in a run: the journal line with the watermark,
 * index.md (MEMORY.md: memory.ts), the review page of conflicts, and the inbox of facts no page cited.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Fact } from '../logs/factlog.js';
import { listWikiPages } from '../pages/discover.js';
import { parsePageMemo } from '../pages/parse-memo.js';
import type { Conflict } from './consolidator.js';
import { confinedPath } from '../vault/confine.js';
import { appendConfined, writeConfined } from '../vault/confined-write.js';
import { JOURNAL_FILE } from './journal.js';
import { redact } from '../core/redact.js';
import { linkTarget } from './memory.js';
import { byText } from '../text/compare.js';
import { closeResolved, conflictPages, CONFLICTS_PAGE, reviewParts, rollConflicts } from './conflicts.js';
import { pageBytes } from '../pages/page-read.js';

export { CONFLICTS_PAGE, type OpenConflict } from './conflicts.js';

export const UNSORTED_PAGE = '0_Inbox/unsorted.md';

export const cite = (fact: Pick<Fact, 'date' | 'id'>): string => `[[${fact.date}#^${fact.id}]]`;

async function readOr(file: string, fallback: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return fallback;
  }
}

/** Appends to the inbox page `rel` (O_NOFOLLOW: a link swapped in after the check is refused, not followed). */
async function appendSection(root: string, rel: string, header: string, section: string): Promise<void> {
  const existing = await readOr(await confinedPath(root, rel), '');
  const prefix = existing === '' ? header : existing.endsWith('\n') ? '\n' : '\n\n';
  await appendConfined(root, rel, `${prefix}${section}`);
}

/** Files facts that no page cites, so nothing leaves search unplaced. */
export async function fileUncited(root: string, run: string, facts: readonly Fact[]): Promise<void> {
  if (facts.length === 0) return;
  const header = '---\ntitle: Unsorted\ntype: inbox\ntags: [inbox]\n---\n# Unsorted\n\nFacts the dream could not place on a page. Move them where they belong; keep the citations.\n\n';
  const lines = facts.map((f) => `- [${f.category}] ${f.text}${f.tags.map((t) => ` #${t}`).join('')} ${cite(f)}`);
  await appendSection(root, UNSORTED_PAGE, header, `## ${run}\n\n${lines.join('\n')}\n`);
}

/**
 * Conflicts go to a page a person works off in Obsidian: each entry names the page its conflict stands on.
 * Entries resolved on their pages since (ticked, answered under Current, settled, or the line deleted) are ticked here.
 */
export async function fileConflicts(root: string, run: string, conflicts: readonly Conflict[], factDates: ReadonlyMap<string, string>): Promise<void> {
  await closeResolved(root);
  if (conflicts.length === 0) return;
  const header = '---\ntitle: Conflicts\ntype: review\ntags: [review]\n---\n# Conflicts\n\nThe dream found these and did not guess. Resolve each on its page (tick it, write the value under Current, or delete the line); the next dream ticks it here.\n\n';
  const lines: string[] = [];
  const pages = await conflictPages(root, conflicts.map((c) => c.fact_ids));
  for (const [i, c] of conflicts.entries()) {
    const cites = c.fact_ids.map((id) => (factDates.has(id) ? `[[${factDates.get(id)}#^${id}]]` : id)).join(' ');
    const page = pages[i]!;
    const on = page === null ? '' : ` · on [[${page.replace(/\.md$/, '')}|${path.posix.basename(page, '.md')}]]`;
    lines.push(`- [ ] **${c.subject.replace(/\s+/g, ' ')}**: ${c.note.replace(/\s+/g, ' ')} ${cites} (${run})${on}`);
  }
  const existing = await readOr(await confinedPath(root, CONFLICTS_PAGE), '');
  // Bounded like any page: past the bound its entries roll to an older part (conflicts.ts rollConflicts).
  for (const { rel, text } of rollConflicts(existing, header, lines, (await reviewParts(root))[0] ?? 1)) await writeConfined(root, rel, text);
}

export interface JournalEntry {
  at: Date;
  run: string;
  from: string;
  to: string;
  created: number;
  updated: number;
  archived: number;
  facts: number;
  /** The watermark after the run, when it is not `to` (a batch of late facts below it). */
  watermark?: string;
  /** The runner's counts: facts the consolidator placed on pages, facts the runner filed in the inbox. */
  placed?: number;
  filed?: number;
  /** Conflicts flagged, forgotten lines removed and stale Current lines corrected: shown when not 0. */
  conflicts?: number;
  forgotten?: number;
  corrected?: number;
  /** Skipped days this run placed (a retry): written as `retried=`, so they are no longer skipped. */
  retried?: readonly string[];
}

export function journalLine(entry: JournalEntry): string {
  const at = entry.at.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const pages = `pages +${entry.created} ~${entry.updated}${entry.archived > 0 ? ` >${entry.archived}` : ''}`;
  const counts = [
    ...(entry.placed === undefined ? [] : [`placed ${entry.placed}`]),
    ...(entry.filed === undefined ? [] : [`filed ${entry.filed}`]),
    ...(entry.conflicts ? [`conflicts ${entry.conflicts}`] : []),
    ...(entry.forgotten ? [`forgotten ${entry.forgotten}`] : []),
    ...(entry.corrected ? [`corrected ${entry.corrected}`] : []),
  ];
  const retried = entry.retried !== undefined && entry.retried.length > 0 ? ` · retried=${entry.retried.join(',')}` : '';
  return `- ${at} · run ${entry.run} · consolidated ${entry.from}..${entry.to}${retried} · watermark=${entry.watermark ?? entry.to} · ${pages} · facts ${entry.facts}${counts.map((c) => ` · ${c}`).join('')}`;
}

/** `check=`: the check the last run failed; `log_facts=`: the fact lines of the day's log then (a later one is a late fact). */
export function skippedLine(at: Date, run: string, dates: readonly string[], tries: number, detail: { check: string; logFacts: number; watermark: string }): string {
  const stamp = at.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `- ${stamp} · run ${run} · gave up on ${dates[0]}..${dates.at(-1)} after ${tries} tries · skipped=${dates.join(',')} · watermark=${detail.watermark} · check=${detail.check} · log_facts=${detail.logFacts}`;
}

export async function appendJournal(root: string, line: string): Promise<void> {
  const file = await confinedPath(root, JOURNAL_FILE);
  let existing = await readOr(file, '# Dream journal\n');
  if (!existing.endsWith('\n')) existing += '\n';
  // Entries form one list, set apart from the journal's opening paragraph.
  const last = existing.trimEnd().split('\n').at(-1) ?? '';
  if (!last.startsWith('- ')) existing += '\n';
  // Replaced through a temp file and a rename, so a link swapped in after the check is replaced, never followed.
  await writeConfined(root, JOURNAL_FILE, `${existing}${redact(line)}\n`);
}

/** Replaces this run's line (the last line naming `run <id>`) with `line`: its counts changed before the commit. */
export async function replaceJournalLine(root: string, run: string, line: string): Promise<void> {
  const file = await confinedPath(root, JOURNAL_FILE);
  const lines = (await readOr(file, '')).split('\n');
  const at = lines.findLastIndex((l) => l.startsWith('- ') && l.includes(` · run ${run} · `));
  if (at < 0) return appendJournal(root, line);
  lines[at] = redact(line);
  await writeConfined(root, JOURNAL_FILE, lines.join('\n'));
}

interface PageSummary {
  rel: string;
  title: string;
  type: string;
  tags: string[];
}

async function summarize(root: string): Promise<PageSummary[]> {
  const out: PageSummary[] = [];
  for (const rel of await listWikiPages(root)) {
    // The bytes, as the checks and MEMORY.md parse them: one parse a page for all of them.
    const page = parsePageMemo(rel, pageBytes(root, rel));
    out.push({ rel, title: page.title, type: page.frontmatter.type ?? '', tags: page.tags });
  }
  return out;
}


export async function writeIndex(root: string, run: string): Promise<void> {
  const pages = await summarize(root);
  const lines = ['# Index', '', `A map of this vault's pages, regenerated by vaultkeeper after each dream (last: ${run}). Edits here are overwritten.`, ''];
  const zones = new Map<string, PageSummary[]>();
  for (const page of pages) {
    const zone = page.rel.includes('/') ? page.rel.split('/')[0]! : '(root)';
    // Pushed, not copied: a zone of thousands of pages was a quadratic copy on every run (issue 31).
    const list = zones.get(zone);
    if (list === undefined) zones.set(zone, [page]);
    else list.push(page);
  }
  if (pages.length === 0) lines.push('_No pages yet._');
  for (const [zone, list] of [...zones.entries()].sort(([a], [b]) => byText(a, b))) {
    lines.push(`## ${zone}`, '');
    for (const page of list.sort((a, b) => byText(a.rel, b.rel))) {
      const about = [page.type, page.tags.slice(0, 5).map((t) => `#${t}`).join(' ')].filter((s) => s !== '').join(' · ');
      lines.push(`- [[${linkTarget(page.rel, pages)}${page.title !== path.posix.basename(page.rel, '.md') ? `|${page.title}` : ''}]]${about ? ` — ${about}` : ''}`);
    }
    lines.push('');
  }
  await writeConfined(root, 'index.md', `${lines.join('\n').trimEnd()}\n`);
}
