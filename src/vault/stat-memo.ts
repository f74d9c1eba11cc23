/**
 * What a long-lived process (the daemon's gate on every tick) computed from a file, kept while the file is
 * unchanged: same inode, size, mtime and ctime (ctime moves on every write, even one that restores the
 * mtime). The stat comes before the read, so a write racing the read only costs a re-read next time.
 */
import { stat } from 'node:fs/promises';

/** Past this many files the memo starts afresh: pages renamed or archived leave stale keys behind. */
const MAX_ENTRIES = 100_000;

export class StatMemo<T> {
  private readonly entries = new Map<string, { stamp: string; value: T }>();

  async get(file: string, compute: () => Promise<T>): Promise<T> {
    const s = await stat(file, { bigint: true }).catch(() => null);
    const stamp = s === null ? 'missing' : `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
    const kept = this.entries.get(file);
    if (kept !== undefined && kept.stamp === stamp) return kept.value;
    const value = await compute();
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(file, { stamp, value });
    return value;
  }
}
