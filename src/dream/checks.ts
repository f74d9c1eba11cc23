/**
 * The checks a run must pass before anything is final (DESIGN §7): proof of work, coverage, safety,
 * and a person's words kept. They read the scratch worktree and the vault's history, never the model's
 * own account of what it did.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../core/config.js';
import { OP_TRAILER } from '../git/audit.js';
import { historiesAtHead } from '../git/path-history.js';
import { gitRunner } from '../git/run.js';
import { showFile, type PathChange } from '../git/worktree.js';
import type { Fact } from '../logs/factlog.js';
import { isWikiPagePath, listWikiPages } from '../pages/discover.js';
import { parsePageMemo } from '../pages/parse-memo.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import { ARCHIVE_DIR, archiveName, INBOX_DIR, isGeneratedPage } from '../vault/layout.js';
import { isPersonsCommit, pageOwners } from './ownership.js';
import { scrubForgotten } from './forget-match.js';
import { pageBytes } from '../pages/page-read.js';


/**
 * `page_size`, `broken_link` and `disputed_lead` are the readable-page checks of page-checks.ts (stale-current.ts
 * also fails a run with `disputed_lead`); `uncited_claim` is claims.ts's.
 */
export type CheckName = 'proof_of_work' | 'coverage' | 'safety' | 'person_lines' | 'person_page' | 'forgotten' | 'page_size' | 'broken_link' | 'disputed_lead' | 'uncited_claim' | 'secret';

export interface CheckFailure {
  check: CheckName;
  message: string;
}

export interface PageChanges {
  created: string[];
  updated: string[];
  archived: Array<{ from: string; to: string }>;
}

/**
 * Sorts the worktree's changes into page creations, updates and archive moves, or says what is unsafe.
 * `whole` maps a changed part to the page at the top of its hubs (bound.ts wholePages): a page and its parts
 * count once toward dream.max_changed_pages. Without it every file counts.
 */
export function classifyChanges(changes: readonly PathChange[], limits: Config['dream'], whole: ReadonlyMap<string, string> = new Map()): { pages: PageChanges; failure: CheckFailure | null } {
  const pages: PageChanges = { created: [], updated: [], archived: [] };
  const added = new Set(changes.filter((c) => c.status === 'A').map((c) => c.path));
  for (const change of changes) {
    if (!isWikiPagePath(change.path)) {
      return { pages, failure: { check: 'safety', message: `${change.path} is not a wiki page and must not change (logs, tombstones, config and root files are the runner's or a person's)` } };
    }
    if (change.status === 'D') {
      const target = archivedAs(change.path, added);
      if (change.path.startsWith(ARCHIVE_DIR) || target === null) {
        return { pages, failure: { check: 'safety', message: `page ${change.path} was deleted; pages are archived (moved to ${ARCHIVE_DIR}), never deleted` } };
      }
      pages.archived.push({ from: change.path, to: target });
    }
  }
  const archivedTargets = new Set(pages.archived.map((a) => a.to));
  for (const change of changes) {
    if (change.status === 'A' && !archivedTargets.has(change.path)) pages.created.push(change.path);
    if (change.status === 'M') pages.updated.push(change.path);
  }
  const touched = new Set([...pages.created, ...pages.updated].map((rel) => whole.get(rel) ?? rel)).size + pages.archived.length;
  if (touched > limits.max_changed_pages) {
    return { pages, failure: { check: 'safety', message: `${touched} pages changed, more than dream.max_changed_pages (${limits.max_changed_pages})` } };
  }
  if (pages.archived.length > limits.max_archived_pages) {
    return { pages, failure: { check: 'safety', message: `${pages.archived.length} pages archived, more than dream.max_archived_pages (${limits.max_archived_pages})` } };
  }
  return { pages, failure: null };
}

/** The archive name a removed page `rel` was added under (5_Archives/<rel>, or `<name> (n).md`), or null when none was. */
function archivedAs(rel: string, added: ReadonlySet<string>): string | null {
  for (let n = 1; n <= added.size + 1; n++) if (added.has(archiveName(rel, n))) return archiveName(rel, n);
  return null;
}

/**
 * A person's own page (one the dream did not create) never moves: a run that archived one, whatever
 * moved it, fails and applies nothing. Read from the tree's history, never from the model's account.
 */
export async function personPagesStay(tree: string, pages: PageChanges): Promise<CheckFailure | null> {
  if (pages.archived.length === 0) return null;
  const owners = await pageOwners(tree, pages.archived.map((a) => a.from));
  const moved = pages.archived.find((a) => owners.get(a.from) === 'person');
  if (moved === undefined) return null;
  return { check: 'person_page', message: `${moved.from} is a person's own page (the dream did not create it) and was moved to ${moved.to}; a person's pages stay where they are` };
}

export function proofOfWork(pages: PageChanges): CheckFailure | null {
  const touched = pages.created.length + pages.updated.length + pages.archived.length;
  return touched > 0 ? null : { check: 'proof_of_work', message: 'the consolidator changed no page' };
}

/**
 * Proof of work, the rest: the consolidator itself placed at least `minShare` of the batch's facts on pages
 * outside the inbox (`placed`). The runner's filing of the rest in 0_Inbox/unsorted.md is a safety net, not
 * the run's work, so a model that writes one page and calls finish fails here, before any filing.
 */
export function placedShare(batch: number, placed: number, minShare: number): CheckFailure | null {
  const needed = placedNeeded(batch, minShare);
  if (placed >= needed) return null;
  return {
    check: 'proof_of_work',
    message:
      `the consolidator placed ${placed} of the batch's ${batch} facts on pages outside ${INBOX_DIR}, fewer than dream.min_placed_share (${minShare}) asks (${needed}); ` +
      "place each fact, cited, on the page of what it is about: the runner's inbox is a safety net, not the run's work",
  };
}

/** The facts a batch of `batch` must have placed: the share, rounded up (a float's noise aside). */
export const placedNeeded = (batch: number, minShare: number): number => Math.ceil(batch * minShare - 1e-9);

/** Fact ids cited on pages outside the inbox (and generated pages): the facts a consolidator placed. */
export async function placedIds(root: string): Promise<Set<string>> {
  const placed = new Set<string>();
  for (const rel of await listWikiPages(root)) {
    if (isGeneratedPage(rel) || rel.startsWith(INBOX_DIR)) continue;
    for (const chunk of parsePageMemo(rel, pageBytes(root, rel)).chunks) for (const id of chunk.citations) placed.add(id);
  }
  return placed;
}

/**
 * placedIds and citedIds in one walk of the pages (a run asks both of the same tree, with only checks between):
 * `placed` leaves out 0_Inbox/, `cited` holds it; both leave out generated pages.
 */
export async function placedAndCitedIds(root: string): Promise<{ placed: Set<string>; cited: Set<string> }> {
  const placed = new Set<string>();
  const cited = new Set<string>();
  for (const rel of await listWikiPages(root)) {
    if (isGeneratedPage(rel)) continue;
    const inbox = rel.startsWith(INBOX_DIR);
    for (const chunk of parsePageMemo(rel, pageBytes(root, rel)).chunks) {
      for (const id of chunk.citations) {
        cited.add(id);
        if (!inbox) placed.add(id);
      }
    }
  }
  return { placed, cited };
}

/** Every changed page must parse: frontmatter and markdown. */
export async function pagesParse(root: string, pages: PageChanges): Promise<CheckFailure | null> {
  for (const rel of [...pages.created, ...pages.updated, ...pages.archived.map((a) => a.to)]) {
    const parsed = parsePageMemo(rel, pageBytes(root, rel));
    if (parsed.frontmatterError !== undefined) return { check: 'safety', message: `${rel}: frontmatter does not parse (${parsed.frontmatterError})` };
    if (parsed.parserError !== undefined) return { check: 'safety', message: `${rel}: markdown does not parse (${parsed.parserError})` };
  }
  return null;
}

/** Fact ids cited anywhere in the worktree's pages (generated ones, digests and the dashboard, aside). */
export async function citedIds(root: string): Promise<Set<string>> {
  const cited = new Set<string>();
  for (const rel of await listWikiPages(root)) {
    if (isGeneratedPage(rel)) continue;
    for (const chunk of parsePageMemo(rel, pageBytes(root, rel)).chunks) for (const id of chunk.citations) cited.add(id);
  }
  return cited;
}

export function uncitedFacts(facts: readonly Fact[], cited: ReadonlySet<string>): Fact[] {
  return facts.filter((fact) => !cited.has(fact.id));
}

/**
 * A person's own lines stay byte for byte (DESIGN §7): every line of a page the run changed (or archived)
 * whose last change was a person's (a commit without a vaultkeeper trailer, or the snapshot of their edits:
 * git blame at the run's base) must still be in the page, or in its archived copy, with the same bytes and
 * the same line ending — unless it cites or repeats a forgotten fact (the runner removes those). Moving a
 * person's line within its page is allowed; rewriting, re-ending or dropping it is not. Blank lines aside.
 */
export async function personLinesKept(worktree: string, base: string, pages: PageChanges, tombstones: TombstoneSet): Promise<CheckFailure | null> {
  const changed = [...pages.updated, ...pages.archived.map((a) => a.from)];
  if (changed.length === 0) return null;
  const movedTo = new Map(pages.archived.map((a) => [a.from, a.to]));
  const histories = await historiesAtHead(worktree, changed);
  const persons = new Map<string, boolean>();
  for (const file of changed) {
    // A page no person ever committed to holds none of their lines: no blame needed.
    if (!(histories.get(file) ?? []).some((c) => isPersonsCommit(c.op))) continue;
    const before = await showFile(worktree, base, file);
    if (before === null) continue;
    const mine = await personLineNumbers(worktree, base, file, persons);
    if (mine.size === 0) continue;
    const after = countLines(splitLines(await readFile(path.join(worktree, movedTo.get(file) ?? file))));
    const lines = splitLines(before);
    // The lines the runner's scrub takes off (they state a forgotten fact, alone or with the lines around them).
    const forgotten = scrubForgotten(before.toString('utf8'), tombstones).numbers;
    for (const number of [...mine].sort((a, b) => a - b)) {
      const line = lines[number - 1];
      if (line === undefined) continue;
      const text = Buffer.from(line, 'latin1').toString('utf8');
      if (text.trim() === '' || forgotten.has(number)) continue;
      if (takeLine(after, line)) continue;
      const body = withoutEnding(line);
      const reEnded = [...after.keys()].some((l) => withoutEnding(l) === body && (after.get(l) ?? 0) > 0);
      const shown = text.trim().length > 80 ? `${text.trim().slice(0, 77)}...` : text.trim();
      return {
        check: 'person_lines',
        message: reEnded ? `${file}: the line ending of a line a person wrote was changed: "${shown}"` : `${file}: a line a person wrote was changed or removed: "${shown}"`,
      };
    }
  }
  return null;
}

/** A file's lines with their own endings (`\n`, `\r\n`, none for an unterminated last line), one byte a character. */
function splitLines(content: Buffer): string[] {
  return content.toString('latin1').match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function countLines(lines: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
  return counts;
}

const withoutEnding = (line: string): string => line.replace(/\r?\n$/, '');

/** Takes one occurrence of `line` from `after`; a line that ended the file unterminated may gain an ending below it. */
function takeLine(after: Map<string, number>, line: string): boolean {
  const variants = line.endsWith('\n') ? [line] : [line, `${line}\n`, `${line}\r\n`];
  const found = variants.find((v) => (after.get(v) ?? 0) > 0);
  if (found === undefined) return false;
  after.set(found, after.get(found)! - 1);
  return true;
}

/**
 * The 1-based line numbers of `rel` at `base` whose last change was a person's: git blame, and one git log
 * for the trailers of commits not met before (`persons` remembers each commit's verdict across pages).
 */
async function personLineNumbers(root: string, base: string, rel: string, persons: Map<string, boolean>): Promise<Set<number>> {
  const blame = await gitRunner(root, ['core.quotepath=false']).raw(['blame', '--porcelain', base, '--', rel]);
  const byLine = new Map<number, string>();
  for (const match of blame.matchAll(/^([0-9a-f]{40,64}) \d+ (\d+)/gm)) byLine.set(Number(match[2]), match[1]!);
  const unknown = [...new Set(byLine.values())].filter((sha) => !persons.has(sha));
  if (unknown.length > 0) {
    const out = await gitRunner(root).raw(['log', '--no-walk=unsorted', `--format=%H%x1f%(trailers:key=${OP_TRAILER},valueonly,separator=%x2C)%x1e`, ...unknown]);
    for (const record of out.split('\u001e')) {
      const [sha = '', op = ''] = record.trim().split('\u001f');
      if (sha !== '') persons.set(sha, isPersonsCommit(op.trim() === '' ? null : op.trim()));
    }
  }
  return new Set([...byLine].filter(([, sha]) => persons.get(sha) === true).map(([line]) => line));
}

/**
 * On an adopted vault with read-only notes, a person's note stays as it was, byte for byte: a run that
 * changed one fails (`person_page`). Only the runner's removal of forgotten lines may touch it.
 */
export async function readOnlyNotesKept(worktree: string, base: string, pages: PageChanges, readOnly: ReadonlySet<string>, tombstones: TombstoneSet): Promise<CheckFailure | null> {
  for (const rel of pages.updated) {
    if (!readOnly.has(rel)) continue;
    const before = await showFile(worktree, base, rel);
    const after = await readFile(path.join(worktree, rel));
    if (before === null || after.equals(before)) continue;
    const { content, removed } = scrubForgotten(before.toString('utf8'), tombstones);
    if (removed.length > 0 && after.equals(Buffer.from(content, 'utf8'))) continue;
    return {
      check: 'person_page',
      message: `${rel} is a person's own note on this adopted vault and the run changed it; with dream.adopted_notes: read-only the dream writes its own pages and links to them`,
    };
  }
  return null;
}
