/**
 * The page lifecycle (issue 10): a page the dream made that has gone cold moves to 5_Archives/ under the
 * same relative name (or, when an archived page holds that name, the first free `<name> (2).md`, `(3)`, …),
 * byte for byte, in the run's scratch tree (so the run's one commit records the move
 * and `git log --follow` keeps its history). Cold means: for `dream.archive_after_days`, measured on the
 * run's clock, no fact cited on it is newer, no dream run changed it (so no citation was added), no
 * search returned it or a fact it cites, and no person edited it. A person's own pages (any page the dream did not create) never move; neither do the inbox,
 * generated pages, a page without citations (a hub, say), a page with an open commitment still ahead,
 * nor a page this run already changed. Nor does a page that states something still true (issue 26): a keyed
 * value under `## Current`, a relationship, a preference, a principle, a decision, a skill, a health fact or an
 * open commitment, judged as MEMORY.md judges them (`durableLines`): unused is not untrue, so such a page stays
 * live, in core memory and in plain search. What moves is the cold pages of events and topics.
 * Nothing is deleted: search finds an archived page with --archived, and links to it still resolve by
 * its file name.
 */
import { lstat, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { localStamp } from '../core/clock.js';
import type { HistoryEntry } from '../git/audit.js';
import { historiesAt } from '../git/path-history.js';
import { movePath } from '../git/worktree.js';
import { listWikiPages } from '../pages/discover.js';
import { readRecallEvents } from '../recall/events.js';
import { confinedPath } from '../vault/confine.js';
import { ARCHIVE_DIR, archiveName, INBOX_DIR, isGeneratedPage } from '../vault/layout.js';
import { dueOf } from './commitments.js';
import { ownerOf } from './ownership.js';
import { citedDates, citedIds } from '../text/citation.js';
import { parsePageMemo } from '../pages/parse-memo.js';
import { durableLines, factIndex, type FactInfo } from './memory.js';

export interface ArchiveInput {
  /** The scratch worktree the run writes in. */
  tree: string;
  /** The real vault, where recall events are kept. */
  vaultRoot: string;
  /** The commit the tree started from: the pages' histories are read there. */
  base: string;
  now: Date;
  timeZone: string;
  /** dream.archive_after_days; 0 disables archiving. */
  afterDays: number;
  /** How many pages this run may still move (dream.max_archived_pages, and what max_changed_pages leaves). */
  limit: number;
  /** Pages the run already created or changed: they are not cold. */
  changed: ReadonlySet<string>;
}

export interface ArchivedPage {
  from: string;
  to: string;
  /** The last day anything happened to the page: a cited fact, a recall or a person's edit. */
  lastActive: string;
}

const DAY_MS = 86_400_000;

/** The day `days` before `date` (both YYYY-MM-DD). */
export function daysBefore(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);
}

/** Moves cold pages to the archive in the tree; returns what moved, oldest activity first. */
export async function archiveColdPages(input: ArchiveInput): Promise<ArchivedPage[]> {
  if (input.afterDays === 0 || input.limit <= 0) return [];
  const today = localStamp(input.now, input.timeZone).date;
  // Active on or after this day keeps a page; "for N days" means the last activity is N days old or more.
  const since = daysBefore(today, input.afterDays - 1);
  const recalled = await lastRecalls(input.vaultRoot, input.timeZone);
  // The history first, kept in memory and read since the last run only (path-history.ts): a page the dream did
  // not create, or one a run or a person touched lately, is not read at all.
  const histories = await historiesAt(input.vaultRoot, input.base);
  // The logs are read (for the categories of cited facts) only when some page is cold.
  let facts: Map<string, FactInfo> | undefined;
  const candidates: ArchivedPage[] = [];
  // A commit's local day, once per commit: most commits touch thousands of pages.
  const days = new Map<string, string>();
  const dayOf = (commit: HistoryEntry): string => {
    let day = days.get(commit.sha);
    if (day === undefined) days.set(commit.sha, (day = localStamp(commitTime(commit), input.timeZone).date));
    return day;
  };
  for (const rel of await listWikiPages(input.tree)) {
    if (rel.startsWith(ARCHIVE_DIR) || rel.startsWith(INBOX_DIR) || isGeneratedPage(rel) || input.changed.has(rel)) continue;
    const commits = histories.get(rel) ?? [];
    // Only a page the dream created is the dream's to retire.
    if (ownerOf(commits) !== 'dream') continue;
    // A dream run that changed it, or a person's edit, is activity too: a backlog of old logs
    // consolidated today leaves pages that are new, whatever the dates of their facts.
    const touched = commits.filter((c) => c.op === null || c.op === 'snapshot' || c.op === 'dream').map(dayOf);
    let last = touched.reduce((max, d) => (d > max ? d : max), '');
    if (last >= since) continue;
    const abs = path.join(input.tree, rel);
    // A page linked in (a symlink) is read, never moved or rewritten (DESIGN §9).
    if (!(await lstat(abs)).isFile()) continue;
    const text = await readFile(abs, 'utf8');
    const dates = citedDates(text);
    if (dates.length === 0 || stillDue(text, today)) continue;
    last = dates.reduce((max, d) => (d > max ? d : max), last);
    last = [recalled.get(rel), ...citedIds(text).map((id) => recalled.get(id))].reduce<string>((max, d) => (d !== undefined && d > max ? d : max), last);
    if (last >= since) continue;
    facts ??= await factIndex(input.tree);
    if (durableLines(parsePageMemo(rel, text), facts, today).length > 0) continue;
    candidates.push({ from: rel, to: archiveName(rel, 1), lastActive: last });
  }
  candidates.sort((a, b) => a.lastActive.localeCompare(b.lastActive) || a.from.localeCompare(b.from));
  const moved: ArchivedPage[] = [];
  for (const page of candidates) {
    if (moved.length >= input.limit) break;
    // An archived page of the same name is never overwritten: a page cold a second time gets the next free name.
    page.to = await freeArchiveName(input.tree, page.from);
    try {
      await confinedPath(input.tree, page.from);
      await mkdir(await confinedPath(input.tree, path.posix.dirname(page.to), 'folder'), { recursive: true });
    } catch {
      continue; // a link on the way: the page stays where it is
    }
    await movePath(input.tree, page.from, page.to);
    moved.push(page);
  }
  return moved;
}

/** The first archive name of `rel` (5_Archives/<rel>, then `<name> (2).md`, …) that no file in the tree holds. */
export async function freeArchiveName(tree: string, rel: string): Promise<string> {
  for (let n = 1; ; n++) {
    const to = archiveName(rel, n);
    if (!(await lstat(path.join(tree, to)).then(() => true, () => false))) return to;
  }
}

/** True when the page holds an open commitment due today or later: a promise ahead is not cold. */
function stillDue(text: string, today: string): boolean {
  let open = false;
  for (const line of text.split('\n')) {
    if (/^#{1,6}\s/.test(line)) open = /^##\s+Open commitments\s*$/.test(line);
    const due = open ? dueOf(line) : null;
    if (due !== null && due >= today) return true;
  }
  return false;
}

/** When a commit happened: a dream's on the run's own clock (its run id), so a run dated by a test or a replay counts as of then. */
function commitTime(commit: HistoryEntry): Date {
  const run = /^Vaultkeeper-Run: r-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$/m.exec(commit.message);
  return run === null ? new Date(commit.date) : new Date(`${run[1]}-${run[2]}-${run[3]}T${run[4]}:${run[5]}:${run[6]}Z`);
}

/** The last local day each page path and each fact id appeared in a search's results. */
async function lastRecalls(vaultRoot: string, timeZone: string): Promise<Map<string, string>> {
  const last = new Map<string, string>();
  const note = (key: string, day: string): void => {
    if ((last.get(key) ?? '') < day) last.set(key, day);
  };
  for (const event of await readRecallEvents(vaultRoot)) {
    const day = localStamp(event.at, timeZone).date;
    for (const hit of event.results) {
      if (hit.kind === 'page') note(hit.path, day);
      if (hit.id !== null) note(hit.id, day);
    }
  }
  return last;
}
