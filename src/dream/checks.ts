/**
 * The checks a run must pass before anything is final (DESIGN §7): proof of work, coverage, safety,
 * and a person's words kept. They read the scratch worktree and the vault's history, never the model's
 * own account of what it did.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../core/config.js';
import { addedLines, commitsBetween, type PathChange } from '../git/worktree.js';
import type { Fact } from '../logs/factlog.js';
import { isWikiPagePath, listWikiPages } from '../pages/discover.js';
import { parsePage } from '../pages/parse.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import { ARCHIVE_DIR, archiveName, INBOX_DIR, isGeneratedPage } from '../vault/layout.js';
import { pageOwners } from './ownership.js';
import { citedIds as idsCitedBy } from '../text/citation.js';


/**
 * `page_size`, `broken_link` and `disputed_lead` are the readable-page checks of page-checks.ts (stale-current.ts
 * also fails a run with `disputed_lead`); `uncited_claim` is claims.ts's.
 */
export type CheckName = 'proof_of_work' | 'coverage' | 'safety' | 'person_lines' | 'person_page' | 'forgotten' | 'page_size' | 'broken_link' | 'disputed_lead' | 'uncited_claim';

export interface CheckFailure {
  check: CheckName;
  message: string;
}

export interface PageChanges {
  created: string[];
  updated: string[];
  archived: Array<{ from: string; to: string }>;
}

/** Sorts the worktree's changes into page creations, updates and archive moves, or says what is unsafe. */
export function classifyChanges(changes: readonly PathChange[], limits: Config['dream']): { pages: PageChanges; failure: CheckFailure | null } {
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
  const touched = pages.created.length + pages.updated.length + pages.archived.length;
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
    for (const chunk of parsePage(rel, await readFile(path.join(root, rel))).chunks) for (const id of chunk.citations) placed.add(id);
  }
  return placed;
}

/** Every changed page must parse: frontmatter and markdown. */
export async function pagesParse(root: string, pages: PageChanges): Promise<CheckFailure | null> {
  for (const rel of [...pages.created, ...pages.updated, ...pages.archived.map((a) => a.to)]) {
    const parsed = parsePage(rel, await readFile(path.join(root, rel)));
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
    for (const chunk of parsePage(rel, await readFile(path.join(root, rel))).chunks) for (const id of chunk.citations) cited.add(id);
  }
  return cited;
}

export function uncitedFacts(facts: readonly Fact[], cited: ReadonlySet<string>): Fact[] {
  return facts.filter((fact) => !cited.has(fact.id));
}

/**
 * Lines a person added to pages since the last dream (commits without a vaultkeeper trailer, and the
 * snapshot of their uncommitted edits) must still be in the page, or in its archived copy — unless
 * the line repeats a tombstone or cites only forgotten facts.
 */
export async function personLinesKept(
  vaultRoot: string,
  worktree: string,
  sinceDream: string | null,
  base: string,
  pages: PageChanges,
  tombstones: TombstoneSet,
): Promise<CheckFailure | null> {
  const changed = new Set([...pages.updated, ...pages.archived.map((a) => a.from)]);
  if (changed.size === 0) return null;
  const movedTo = new Map(pages.archived.map((a) => [a.from, a.to]));
  const wanted = new Map<string, Set<string>>();
  for (const commit of await commitsBetween(vaultRoot, sinceDream, base)) {
    if (commit.op !== null && commit.op !== 'snapshot') continue;
    for (const [file, lines] of await addedLines(vaultRoot, commit.sha)) {
      if (!changed.has(file)) continue;
      const set = wanted.get(file) ?? new Set<string>();
      for (const line of lines) if (line.trim() !== '') set.add(line.trim());
      wanted.set(file, set);
    }
  }
  for (const [file, lines] of wanted) {
    const now = await readFile(path.join(worktree, movedTo.get(file) ?? file), 'utf8');
    const present = new Set(now.split(/\r?\n/).map((l) => l.trim()));
    for (const line of lines) {
      if (present.has(line) || [...present].some((p) => p.includes(line))) continue;
      if (tombstones.repeats(line) || citesOnlyForgotten(line, tombstones)) continue;
      return { check: 'person_lines', message: `${file}: a line a person wrote is gone: "${line.length > 80 ? `${line.slice(0, 77)}...` : line}"` };
    }
  }
  return null;
}

function citesOnlyForgotten(line: string, tombstones: TombstoneSet): boolean {
  const ids = idsCitedBy(line);
  return ids.length > 0 && ids.every((id) => tombstones.hasId(id));
}
