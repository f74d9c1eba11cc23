/**
 * Atomic file writes: a temp file in the target's folder, flushed, then renamed over the target, so a
 * reader (Obsidian, the watcher, a crash) sees the old page or the new one, never half of one.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes `content` to `abs` atomically, creating missing parent folders. The caller has checked that
 * `abs` and its folders are where they may write. An existing file keeps its permission bits.
 */
export async function writeFileAtomic(abs: string, content: string | Uint8Array): Promise<void> {
  const dir = path.dirname(abs);
  await mkdir(dir, { recursive: true });
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
}
