/**
 * A purge rewrote the history this clone shares with its remote: the next `sync` must force-push it rather than
 * fetch and merge, which would bring the purged text back. The purge records here, in .git/ (this clone's own
 * state, never committed), each remote and the heads its remote-tracking refs named before they were deleted:
 * the push is made with --force-with-lease on those heads, so commits another machine pushed meanwhile are
 * never dropped unseen. sync removes the record once the push went through.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../dream/tools/atomic.js';

const PUSH_FILE = 'vaultkeeper-purge-push.json';

export interface PushDue {
  at: string;
  /** remote name → branch → the head the remote had when this clone last fetched (null: never fetched). */
  remotes: Record<string, Record<string, string | null>>;
}

const pushPath = (root: string): string => path.join(root, '.git', PUSH_FILE);

export async function readPushDue(root: string): Promise<PushDue | null> {
  try {
    const value = JSON.parse(await readFile(pushPath(root), 'utf8')) as PushDue;
    return typeof value.remotes === 'object' && value.remotes !== null ? value : null;
  } catch {
    return null;
  }
}

/**
 * Marks a force push due for `remotes` (each with the heads its tracking refs named). A mark already there keeps
 * its heads: a purge resumed after a crash, or a second purge before a sync, finds the tracking refs gone.
 */
export async function markPushDue(root: string, remotes: Record<string, Record<string, string | null>>, at: Date): Promise<void> {
  if (Object.keys(remotes).length === 0) return;
  const known = (await readPushDue(root))?.remotes ?? {};
  const merged: PushDue['remotes'] = { ...remotes };
  for (const [remote, heads] of Object.entries(known)) merged[remote] = { ...merged[remote], ...heads };
  await writeFileAtomic(pushPath(root), `${JSON.stringify({ at: at.toISOString(), remotes: merged } satisfies PushDue)}\n`);
}

export async function clearPushDue(root: string, remote: string): Promise<void> {
  const due = await readPushDue(root);
  if (due === null) return;
  delete due.remotes[remote];
  if (Object.keys(due.remotes).length === 0) await rm(pushPath(root), { force: true });
  else await writeFileAtomic(pushPath(root), `${JSON.stringify(due)}\n`);
}
