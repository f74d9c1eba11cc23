/**
 * A purge in progress (DESIGN §9: a crash at any point leaves the vault consistent). Before it changes anything,
 * purge records what it erases in `.git/vaultkeeper-purge.json` (inside .git: never a vault file, never committed,
 * never pushed); every step after that is idempotent, so a purge a crash interrupted is finished by the next
 * command that opens the vault (Vault.finishPurge) and the record removed, with it the last copy of the text.
 * `stage: 'index'` says the files and the history are done and only the index and embedding cache are left.
 */
import { access, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../dream/tools/atomic.js';

const INTENT_FILE = 'vaultkeeper-purge.json';

export interface PurgeIntent {
  ids: string[];
  /** The texts erased wherever they occur (they are still in the files while the purge runs). */
  texts: string[];
  /** Each purged fact with its text's hash (its tombstone), never the text. */
  facts: { id: string; date: string; line: number; hash: string; words: number }[];
  reason?: string | undefined;
  /** When the purge began: its log.md line carries it, so a resumed purge writes that line once. */
  at: string;
  stage: 'files' | 'index';
}

const intentPath = (root: string): string => path.join(root, '.git', INTENT_FILE);

/** Whether a purge's record is there (one stat): every command checks it when it opens the vault. */
export async function purgeInterrupted(root: string): Promise<boolean> {
  return access(intentPath(root)).then(
    () => true,
    () => false,
  );
}

export async function readPurgeIntent(root: string): Promise<PurgeIntent | null> {
  let text: string;
  try {
    text = await readFile(intentPath(root), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw error;
  }
  try {
    const value = JSON.parse(text) as PurgeIntent;
    return Array.isArray(value.ids) && Array.isArray(value.texts) && typeof value.at === 'string' ? value : null;
  } catch {
    return null; // torn while being written: the purge had not begun
  }
}

export async function writePurgeIntent(root: string, intent: PurgeIntent): Promise<void> {
  await writeFileAtomic(intentPath(root), `${JSON.stringify(intent)}\n`);
}

export async function clearPurgeIntent(root: string): Promise<void> {
  await rm(intentPath(root), { force: true });
}
