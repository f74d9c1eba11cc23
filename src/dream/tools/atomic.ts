/**
 * Atomic, durable file writes: a temp file in the target's folder, flushed, renamed over the target, then the
 * folder flushed, so a reader (Obsidian, the watcher, a crash) sees the old file or the new one, never half of
 * one, and a power cut after the call returns keeps the new one (the rename lives in the folder's entry).
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';

export interface AtomicOptions {
  /**
   * Collects the folders to flush instead of flushing each now: a caller writing many files (the dream's apply)
   * flushes each folder once at the end with syncDirs, before it says the write is done.
   */
  dirs?: Set<string>;
}

/**
 * Writes `content` to `abs` atomically, creating missing parent folders (each new folder's entry flushed in its
 * parent, so a power cut cannot lose the folder the file was renamed into). The caller has checked that `abs`
 * and its folders are where they may write. An existing file keeps its permission bits.
 */
export async function writeFileAtomic(abs: string, content: string | Uint8Array, options: AtomicOptions = {}): Promise<void> {
  const dir = path.dirname(abs);
  const made = await mkdir(dir, { recursive: true });
  const flush = options.dirs ?? new Set<string>();
  // The folders mkdir made, from the first down to `dir`: each one's entry lives in its parent.
  if (made !== undefined) for (let at = dir; at.length >= made.length; at = path.dirname(at)) flush.add(path.dirname(at));
  flush.add(dir);
  let mode = 0o644;
  try {
    mode = (await stat(abs)).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // Hidden, so neither Obsidian nor the indexer picks up a temp file that a crash leaves behind.
  const temp = path.join(dir, `.${path.basename(abs)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, abs);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  if (options.dirs === undefined) await syncDirs(flush);
}

/** Flushes each folder once, deepest first (a new folder's own entries before its entry in its parent). */
export async function syncDirs(dirs: Iterable<string>): Promise<void> {
  for (const dir of [...new Set(dirs)].sort((a, b) => b.length - a.length)) await syncDir(dir);
}

/**
 * Flushes a folder's entries (a file created, renamed or removed in it) to the disk: without it a power cut
 * can lose a file whose own data was flushed. Best effort where the platform cannot open a folder (Windows).
 */
export async function syncDir(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR' || code === 'EPERM' || code === 'EACCES') return;
    throw error;
  }
  try {
    await handle.sync().catch((error: NodeJS.ErrnoException) => {
      // Some file systems refuse fsync on a folder (EINVAL): their entries are then as durable as they get.
      if (error.code !== 'EINVAL' && error.code !== 'EBADF') throw error;
    });
  } finally {
    await handle.close();
  }
}
