/**
 * Whose a page is (issue 10): a page whose first commit is a dream run's is the dream's, and only such a
 * page may be archived (by the runner when it goes cold, or by the model's archive_page). Every other
 * committed page (a person's, the template's, a snapshot of a person's edits) is a person's own and
 * never moves. A page with no commit yet was made by the run itself. On an adopted vault a person's notes
 * are read-only to the dream by default (`readOnlyPages`): it links to them and writes its own pages.
 */
import { OP_TRAILER, type HistoryEntry } from '../git/audit.js';
import { historiesAtHead } from '../git/path-history.js';
import { gitRunner } from '../git/run.js';
import { isWikiPagePath } from '../pages/discover.js';
import { isGeneratedPage } from '../vault/layout.js';

export type PageOwner = 'dream' | 'person' | 'new';

/** The owner by a page's history, newest commit first (as git log lists it): its last entry added the page. */
export function ownerOf(commits: readonly HistoryEntry[]): PageOwner {
  if (commits.length === 0) return 'new';
  return commits.at(-1)!.op === 'dream' ? 'dream' : 'person';
}

/** The owner of each of `rels` (vault-relative pages) by the history of `root`'s HEAD, in one git process. */
export async function pageOwners(root: string, rels: readonly string[]): Promise<Map<string, PageOwner>> {
  const histories = await historiesAtHead(root, rels);
  return new Map(rels.map((rel) => [rel, ownerOf(histories.get(rel) ?? [])]));
}

/** The subject of the commit `init --adopt` makes (vault/adopt.ts): what tells an adopted vault. */
export const ADOPTED_SUBJECT = 'init: vaultkeeper adopts this folder';

/** Commits of a person's own words: no vaultkeeper trailer, or their edits committed as they were (a snapshot). */
export const isPersonsCommit = (op: string | null): boolean => op === null || op === 'snapshot';

/** Whether the vault at `root` was adopted (`init --adopt`): its history holds the adoption commit. */
export async function isAdopted(root: string): Promise<boolean> {
  const out = await gitRunner(root)
    .raw(['log', '-n1', '--format=%H', '--fixed-strings', `--grep=${ADOPTED_SUBJECT}`, `--grep=${OP_TRAILER}: init`, '--all-match'])
    .catch(() => '');
  return out.trim() !== '';
}

/**
 * The wiki pages a person wrote: first added by a commit of theirs (their own, or the snapshot of the notes
 * an adopted folder held). One git process for the whole history, however many pages.
 */
export async function personPages(root: string): Promise<Set<string>> {
  const out = await gitRunner(root, ['core.quotepath=false'])
    .raw(['log', '--reverse', '--no-renames', '--diff-filter=A', '--name-only', `--format=%x1e%(trailers:key=${OP_TRAILER},valueonly,separator=%x2C)%x1f`])
    .catch(() => '');
  const seen = new Set<string>();
  const mine = new Set<string>();
  for (const record of out.split('\u001e')) {
    const [op = '', names = ''] = record.split('\u001f');
    const persons = isPersonsCommit(op.trim() === '' ? null : op.trim());
    for (const name of names.split('\n')) {
      if (name === '' || seen.has(name) || !isWikiPagePath(name) || isGeneratedPage(name)) continue;
      seen.add(name);
      if (persons) mine.add(name);
    }
  }
  return mine;
}

/**
 * The pages the dream must leave as they are (DESIGN §7): on an adopted vault with `dream.adopted_notes:
 * read-only` (the default), the notes a person wrote; the dream writes its own pages and links to them.
 * Empty on any other vault. Read from `root`'s history (the run's scratch tree: its HEAD is the run's base).
 */
export async function readOnlyPages(root: string, adoptedNotes: 'read-only' | 'append'): Promise<Set<string>> {
  if (adoptedNotes !== 'read-only' || !(await isAdopted(root))) return new Set();
  return personPages(root);
}

/** Whether the consolidator may not write `rel` (a read-only person's note): what offline rules and tools ask. */
export function isReadOnlyPage(readOnly: ReadonlySet<string> | undefined, rel: string): boolean {
  return readOnly !== undefined && readOnly.has(rel);
}
