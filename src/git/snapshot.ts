/**
 * A person's uncommitted edits committed as theirs before the program changes the vault (a `snapshot:` commit):
 * sync commits them all so a merge neither stops on them nor takes them, the dream so it starts from them and a revert
 * of its run keeps them; forget commits the pages it is about to
 * rewrite, so its own commit holds only the lines it removed and a later dream still sees the rest as the person's.
 */
import type { Config } from '../core/config.js';
import type { WriteLock } from '../core/lock.js';
import { commitPaths, refreshIndexStat, uncommittedChanges, type WorkingChange } from './audit.js';

export interface SnapshotRequest {
  /** What comes next, for the subject: `snapshot: a person's edits before <before>`. */
  before: string;
  /** Why they are committed now (the commit body's first paragraph). */
  why: string;
  /** Which uncommitted changes to commit (default: all). */
  only?: (change: WorkingChange) => Promise<boolean>;
}

/** Commits the chosen uncommitted changes as a person's; returns their paths (none: no commit). */
export async function snapshotEdits(lock: WriteLock, config: Config, request: SnapshotRequest): Promise<string[]> {
  const paths: string[] = [];
  await refreshIndexStat(lock);
  for (const change of await uncommittedChanges(lock.root)) {
    if (change.path === '') continue;
    if (request.only === undefined || (await request.only(change))) paths.push(change.path);
  }
  if (paths.length === 0) return [];
  await commitPaths(lock, config, {
    op: 'snapshot',
    subject: `snapshot: a person's edits before ${request.before}`,
    body: `${request.why}\n\n${paths.map((p) => `- ${p}`).join('\n')}`,
    paths,
  });
  return paths;
}
