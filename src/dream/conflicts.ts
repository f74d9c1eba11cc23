/**
 * Same-day conflicts of a keyed fact on its page. Two values stated on one day are shown as written,
 * both cited, and neither stands under Current until a person decides (DESIGN §7: flag, never guess):
 *
 *   - [ ] **home city**: "Lisbon" [[…]] or "Porto" [[…]], both on 2026-06-04
 *
 * A person resolves one on the page: tick it to keep the later value, write the right value under
 * `## Current` (a Current line for the subject always wins), or delete the line. The next dream then
 * moves the losing values to History and the conflict line with them (a person's edit is kept, not
 * removed), and ticks its entry in the review page 0_Inbox/conflicts.md. `vaultkeeper conflicts` (and the
 * health snapshot and dashboard, which ask the same) reads the pages, so it is right before that dream.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Fact } from '../logs/factlog.js';
import { listWikiPages } from '../pages/discover.js';
import { citationsIn, citedDates, citedIds, withoutCitations } from '../text/citation.js';
import { writeConfined } from '../vault/confined-write.js';
import { itemBody, subjectOf, type Keyed, type Page } from './page.js';
import type { Conflict } from './consolidator.js';
import { pastBound } from './bound.js';
import { pageText } from '../pages/page-read.js';

export const CONFLICTS_PAGE = '0_Inbox/conflicts.md';

const LINE_RE = /^\s*- \[( |x|X)\] \*\*(.+?)\*\*: "(.*)" ((?:!?\[\[[^\]]+\]\] ?)+) or "(.*)" ((?:!?\[\[[^\]]+\]\] ?)+), both on (\d{4}-\d{2}-\d{2})/;
/** A task item of any page, as a conflict line is written (by the offline rules, or a model, in its own words). */
const TASK_RE = /^\s*[-*+] \[( |x|X)\] /;
/** The inbox entry's pointer to the page its conflict stands on: ` · on [[2_Areas/Work|Work]]`. */
const ON_PAGE_RE = / · on \[\[([^\]|]+)(?:\|[^\]]*)?\]\]\s*$/;

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').replace(/"/g, '”');
const citeOf = (fact: Pick<Fact, 'date' | 'id'>): string => `[[${fact.date}#^${fact.id}]]`;

/** Puts the conflict on the page (the earlier line has left Current) and returns it for the review page. */
export function flagConflict(page: Page, earlier: string, fact: Fact, keyed: Keyed): Conflict {
  const before = subjectOf(withoutCitations(itemBody(earlier)))?.value ?? '';
  const earlierCites = citationsIn(earlier);
  page.append('Conflicts', `- [ ] **${oneLine(keyed.subject)}**: "${oneLine(before)}" ${earlierCites.join(' ')} or "${oneLine(keyed.value)}" ${citeOf(fact)}, both on ${fact.date}`);
  return {
    subject: keyed.subject,
    fact_ids: [...earlierCites.map((c) => /\^([A-Za-z0-9-]+)/.exec(c)![1]!), fact.id],
    note: `two values on ${fact.date}: "${before}" and "${keyed.value}"; neither is current until a person decides (tick the item on the page to keep the later, or write the value under Current)`,
  };
}

/** An unsure plain-English reading (text/state-change.ts), flagged by `flagUnsure`. */
const UNSURE_RE = /^\s*- \[( |x|X)\] \*\*(.+?)\*\*: "(.*)" ((?:!?\[\[[^\]]+\]\] ?)+), an unsure reading on (\d{4}-\d{2}-\d{2})/;

/**
 * Puts an unsure reading of a plain-English change of state on the page ("I think Ana moved to Oslo"): a wrong
 * current value is worse than none, so it is never made current by the dream, only by a person (tick it, or
 * write the value under Current). Returns it for the review page.
 */
export function flagUnsure(page: Page, fact: Fact, keyed: Keyed): Conflict {
  page.append('Conflicts', `- [ ] **${oneLine(keyed.subject)}**: "${oneLine(keyed.value)}" ${citeOf(fact)}, an unsure reading on ${fact.date} (tick it to make it current)`);
  return {
    subject: keyed.subject,
    fact_ids: [fact.id],
    note: `an unsure reading on ${fact.date}: "${keyed.value}"; not current until a person decides (tick the item on the page, or write the value under Current)`,
  };
}

/** A ticked unsure reading becomes current (the value it replaces goes to History); one a person answered under Current is settled. */
function resolveUnsure(page: Page, index: number): boolean {
  const match = UNSURE_RE.exec(page.lines[index]!);
  if (match === null) return false;
  const [, box, subject, value, cites, date] = match as unknown as string[];
  const line = page.lines[index]!;
  const key = keyOf(subject!);
  const hasCurrent = page.sectionLines('Current').some((i) => answersUnsure(page.lines[i]!, key, date!));
  if (box === ' ' && !hasCurrent) return false;
  page.lines.splice(index, 1);
  page.dropIfEmpty('Conflicts');
  if (!hasCurrent) {
    for (const i of [...page.sectionLines('Current')].reverse()) {
      const held = page.lines[i]!;
      const keyed = subjectOf(withoutCitations(itemBody(held)));
      if (keyed?.key !== key) continue;
      page.lines.splice(i, 1);
      page.append('History', `- ${keyed!.subject}: ${keyed!.value} ${citationsIn(held).join(' ')} (until ${date!})`.replace(/  +/g, ' '));
    }
    page.dropIfEmpty('Current');
    page.append('Current', `- ${subject!}:: ${value!} ${cites!.trim()}`);
  }
  page.append('History', box === ' ' ? line.replace('- [ ]', '- [x]') : line);
  return true;
}

const keyOf = (subject: string): string | undefined => subjectOf(`${subject}:: x`)?.key;

/**
 * A Current line answers a conflict of `date` when it states the subject and cites nothing newer: a value a
 * person wrote there (cited or not). A line citing a later fact is the dream's newer value, which leaves the
 * same-day dispute open (its values stay under Conflicts).
 */
const answers = (line: string, key: string | undefined, date: string): boolean =>
  key !== undefined && subjectOf(itemBody(line))?.key === key && citedDates(line).every((d) => d <= date);

/**
 * A Current line answers an unsure reading of `date` when a person wrote it (no citation) or it cites that day
 * or later (a value stated since): the value that stood before the reading does not.
 */
const answersUnsure = (line: string, key: string | undefined, date: string): boolean =>
  key !== undefined && subjectOf(itemBody(line))?.key === key && (citedDates(line).length === 0 || citedDates(line).some((d) => d >= date));

/**
 * Follows the resolutions a person made: ticked conflicts, and conflicts whose subject a person wrote
 * under Current (ticked or not; `answers`). The conflict line moves to History, ticked: it is settled.
 */
export function resolveConflicts(pages: Iterable<Page>): void {
  for (const page of pages) {
    // One at a time: settling one moves lines between sections.
    while (page.sectionLines('Conflicts').some((i) => resolveUnsure(page, i))) continue;
    for (const index of [...page.sectionLines('Conflicts')].reverse()) {
      const line = page.lines[index]!;
      const match = LINE_RE.exec(line);
      if (match === null) continue;
      const [, box, subject, first, firstCites, second, secondCites, date] = match as unknown as string[];
      const key = keyOf(subject!);
      const hasCurrent = page.sectionLines('Current').some((i) => answers(page.lines[i]!, key, date!));
      if (box === ' ' && !hasCurrent) continue;
      page.lines.splice(index, 1);
      page.dropIfEmpty('Conflicts');
      page.append('History', `- ${subject!}: ${first!} ${firstCites!.trim()} (until ${date!})`);
      if (hasCurrent) page.append('History', `- ${subject!}: ${second!} ${secondCites!.trim()} (until ${date!})`);
      else page.append('Current', `- ${subject!}:: ${second!} ${secondCites!.trim()}`);
      // A person's tick stays byte for byte; an item settled by a Current line is the dream's own, ticked here.
      page.append('History', box === ' ' ? line.replace('- [ ]', '- [x]') : line);
    }
  }
}

/** An entry of the review page, and where its conflict stands now. */
export interface OpenConflict {
  /** The review page holding the entry: CONFLICTS_PAGE, or one of its older parts (`0_Inbox/conflicts 2.md`, …). */
  file: string;
  line: number;
  subject: string;
  text: string;
  resolved: boolean;
  /** The page whose conflict line the entry points to (or that holds one citing its facts), else null. */
  page: string | null;
  /**
   * How it was resolved: ticked in the inbox, ticked on its page, a value written under the page's
   * Current, the line settled into History by a dream, or the line removed by a person; null while open.
   */
  resolved_by: 'inbox' | 'tick' | 'current' | 'history' | 'removed' | null;
}

interface InboxEntry {
  file: string;
  line: number;
  subject: string;
  text: string;
  ticked: boolean;
  ids: string[];
  /** The page the entry says the conflict stands on (` · on [[…]]`), or null (a model's flag, an older entry). */
  on: string | null;
}

function parseInbox(file: string, content: string): InboxEntry[] {
  const out: InboxEntry[] = [];
  content.split(/\r?\n/).forEach((line, index) => {
    const match = /^\s*- \[( |x|X)\] \*\*(.+?)\*\*:?\s*(.*)$/.exec(line);
    if (match === null) return;
    const on = ON_PAGE_RE.exec(line)?.[1];
    out.push({ file, line: index + 1, subject: match[2]!, text: match[3]!, ticked: match[1] !== ' ', ids: citedIds(line), on: on === undefined ? null : `${on}.md` });
  });
  return out;
}

/** Where a conflict's line stands on a page, and what the page says of it. */
interface Standing {
  page: string;
  resolved_by: OpenConflict['resolved_by'];
}

/** The verdict of one page on an entry: null when the page holds no task line citing all its facts. */
function standingOn(rel: string, content: string, entry: InboxEntry): Standing | null {
  if (entry.ids.length === 0 || !entry.ids.every((id) => content.includes(id))) return null;
  let section = '';
  const current: string[] = [];
  let found: { line: string; ticked: boolean; section: string } | null = null;
  for (const line of content.split(/\r?\n/)) {
    const heading = /^#{1,2} (.+?)\s*$/.exec(line);
    if (heading !== null) {
      section = heading[1]!.toLowerCase();
      continue;
    }
    if (section === 'current') current.push(line);
    const task = TASK_RE.exec(line);
    if (task === null || found !== null) continue;
    const cited = new Set(citedIds(line));
    if (entry.ids.every((id) => cited.has(id))) found = { line, ticked: task[1] !== ' ', section };
  }
  if (found === null) return null;
  if (found.ticked) return { page: rel, resolved_by: 'tick' };
  if (found.section === 'history') return { page: rel, resolved_by: 'history' };
  const date = citedDates(found.line).sort().at(-1) ?? '';
  const key = keyOf(entry.subject);
  const answered = UNSURE_RE.test(found.line) ? answersUnsure : answers;
  if (current.some((line) => answered(line, key, date))) return { page: rel, resolved_by: 'current' };
  return { page: rel, resolved_by: null };
}

/**
 * Where each entry's conflict line stands: on the page the entry names, else (the page moved: split into
 * parts, archived; or the entry names none) on any page, found in one pass over the pages for all of them.
 */
async function standings(root: string, entries: readonly InboxEntry[]): Promise<Map<InboxEntry, Standing>> {
  const found = new Map<InboxEntry, Standing>();
  const read = (rel: string): string | null => {
    try {
      return pageText(root, rel);
    } catch {
      return null;
    }
  };
  for (const entry of entries) {
    if (entry.on === null) continue;
    const text = read(entry.on);
    const standing = text === null ? null : standingOn(entry.on, text, entry);
    if (standing !== null) found.set(entry, standing);
  }
  const left = entries.filter((e) => !found.has(e) && e.ids.length > 0);
  if (left.length === 0) return found;
  for (const rel of await listWikiPages(root)) {
    if (rel === CONFLICTS_PAGE) continue;
    const text = read(rel);
    if (text === null) continue;
    // The ids the page's lines cite, read once: most pages cite none of an entry's facts (a scan of the page per
    // entry grew with the vault times the conflicts).
    const cited = new Set(text.split(/\r?\n/).flatMap((line) => (line.includes('#^') ? citedIds(line) : [])));
    for (const entry of left) {
      if (found.has(entry) || !entry.ids.every((id) => cited.has(id))) continue;
      const standing = standingOn(rel, text, entry);
      if (standing !== null) found.set(entry, standing);
    }
    if (left.every((e) => found.has(e))) break;
  }
  return found;
}

/**
 * The review page's entries with their state read from the pages: an entry is resolved when ticked
 * there, or when its conflict line on the page is ticked, settled into History, answered by a Current
 * value, or gone (for an entry that names its page: a person deleted the line).
 */
export async function readConflicts(root: string): Promise<OpenConflict[]> {
  const inbox: InboxEntry[] = [];
  for (const file of await reviewFiles(root)) inbox.push(...parseInbox(file, await readFile(path.join(root, file), 'utf8').catch(() => '')));
  const found = await standings(root, inbox.filter((e) => !e.ticked));
  return inbox.map((entry) => {
    const base = { file: entry.file, line: entry.line, subject: entry.subject, text: entry.text };
    if (entry.ticked) return { ...base, resolved: true, page: entry.on, resolved_by: 'inbox' };
    const standing = found.get(entry);
    if (standing !== undefined) return { ...base, resolved: standing.resolved_by !== null, page: standing.page, resolved_by: standing.resolved_by };
    const removed = entry.on !== null;
    return { ...base, resolved: removed, page: entry.on, resolved_by: removed ? 'removed' : null };
  });
}

/** An older part of the review page: `0_Inbox/conflicts 2.md`, the first filled, then 3, … (rollConflicts). */
const PART_RE = /^conflicts (\d+)\.md$/;
const partRel = (n: number): string => `${path.posix.dirname(CONFLICTS_PAGE)}/conflicts ${n}.md`;

/** The numbers of the review page's older parts, newest (highest) first. */
export async function reviewParts(root: string): Promise<number[]> {
  const names = await readdir(path.join(root, path.posix.dirname(CONFLICTS_PAGE))).catch(() => [] as string[]);
  return names.flatMap((name) => PART_RE.exec(name)?.[1] ?? []).map(Number).sort((a, b) => b - a);
}

/** The review page and its older parts, the review page first, then the parts newest first. */
async function reviewFiles(root: string): Promise<string[]> {
  return [CONFLICTS_PAGE, ...(await reviewParts(root)).map(partRel)];
}

/**
 * The review page's text with `lines` (entries) added, bounded like any page (issue 31: it reached 55 KB over a
 * 10k backlog): when an entry would take it past MAX_PAGE_BYTES or MAX_PAGE_LINES, the entries it holds move, byte
 * for byte, to its next older part (`0_Inbox/conflicts 2.md`, 3, …) and the review page starts again from its
 * header, with a link to each part; `vaultkeeper conflicts` and the ticking of resolved entries read the parts too.
 * Returns the files to write: the parts made, then the review page.
 */
export function rollConflicts(existing: string, header: string, lines: readonly string[], lastPart: number): Array<{ rel: string; text: string }> {
  const out: Array<{ rel: string; text: string }> = [];
  // The review page counts as the first: its parts are 2, 3, …
  let last = Math.max(1, lastPart);
  const links = (): string => Array.from({ length: last - 1 }, (_, i) => `[[${partRel(last - i).replace(/\.md$/, '')}|conflicts ${last - i}]]`).join(' · ');
  const fresh = (): string => `${header}${last === 1 ? '' : `Older entries: ${links()}\n\n`}`;
  let text = existing === '' ? fresh() : existing.endsWith('\n') ? `${existing}\n` : `${existing}\n\n`;
  let entries = existing === '' ? 0 : parseInbox(CONFLICTS_PAGE, existing).length;
  for (const line of lines) {
    const next = `${text}${line}\n`;
    if (entries > 0 && pastBound(next)) {
      last++;
      // The part keeps the review page's own words (its header too): only its title says which part it is.
      out.push({ rel: partRel(last), text: text.replace(/^title: Conflicts$/m, `title: Conflicts ${last}`).replace(/^# Conflicts$/m, `# Conflicts ${last}`) });
      text = `${fresh()}${line}\n`;
      entries = 1;
      continue;
    }
    text = next;
    entries++;
  }
  out.push({ rel: CONFLICTS_PAGE, text });
  return out;
}

/**
 * The page holding a conflict line that cites all of each list's ids (the one the offline rules write), or null:
 * all of a run's conflicts in one pass over the pages (a pass per conflict grew with the vault).
 */
export async function conflictPages(root: string, idLists: ReadonlyArray<readonly string[]>): Promise<Array<string | null>> {
  const entries: InboxEntry[] = idLists.map((ids) => ({ file: CONFLICTS_PAGE, line: 0, subject: '', text: '', ticked: false, ids: [...ids], on: null }));
  const found = await standings(root, entries);
  return entries.map((entry) => found.get(entry)?.page ?? null);
}

/**
 * Ticks the review page's entries that are resolved on their pages (the runner, after the consolidator
 * settled them). Only the box of such an entry changes; every other byte of the page stays. Returns how many.
 */
export async function closeResolved(root: string): Promise<number> {
  const closing = (await readConflicts(root)).filter((c) => c.resolved && c.resolved_by !== 'inbox');
  for (const file of new Set(closing.map((c) => c.file))) {
    const inbox = await readFile(path.join(root, file), 'utf8').catch(() => null);
    if (inbox === null) continue;
    const lines = new Set(closing.filter((c) => c.file === file).map((c) => c.line));
    // Split keeping each line's own ending, so a CRLF page stays CRLF.
    const parts = inbox.split(/(\r?\n)/);
    for (let i = 0, line = 1; i < parts.length; i += 2, line++) {
      if (lines.has(line)) parts[i] = parts[i]!.replace(/^(\s*- )\[ \]/, '$1[x]');
    }
    await writeConfined(root, file, parts.join(''));
  }
  return closing.length;
}
