/**
 * Whose a page is (issue 10): a page whose first commit is a dream run's is the dream's, and only such a
 * page may be archived (by the runner when it goes cold, or by the model's archive_page). Every other
 * committed page (a person's, the template's, a snapshot of a person's edits) is a person's own and
 * never moves. A page with no commit yet was made by the run itself.
 */
import { pathHistories, type HistoryEntry } from '../git/audit.js';

export type PageOwner = 'dream' | 'person' | 'new';

/** The owner by a page's history, newest commit first (as git log lists it): its last entry added the page. */
export function ownerOf(commits: readonly HistoryEntry[]): PageOwner {
  if (commits.length === 0) return 'new';
  return commits.at(-1)!.op === 'dream' ? 'dream' : 'person';
}

/** The owner of each of `rels` (vault-relative pages) by the history of `root`'s HEAD, in one git process. */
export async function pageOwners(root: string, rels: readonly string[]): Promise<Map<string, PageOwner>> {
  const histories = await pathHistories(root, rels);
  return new Map(rels.map((rel) => [rel, ownerOf(histories.get(rel) ?? [])]));
}
