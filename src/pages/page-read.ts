/**
 * A page's bytes kept while its file is unchanged (same inode, size, mtime and ctime, as StatMemo): a dream run
 * reads every page several times (the consolidator, coverage, placed and cited ids, the link resolver, index.md,
 * MEMORY.md, the current values), and the scratch tree a run leaves for the next keeps the files it did not
 * change, so a later run reads only what changed (issue 31). Synchronous: thousands of small reads through the
 * thread pool were a chain of round trips on a busy machine (four calls a file where a stat is one).
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { listWikiPages } from './discover.js';

/** Past this many bytes of pages the memo starts afresh, so a warm server stays within its memory budget. */
const MAX_BYTES = 64_000_000;

interface Kept {
  stamp: string;
  bytes: Buffer;
  text?: string;
}

const memo = new Map<string, Kept>();
let held = 0;

function kept(file: string): Kept {
  // The stat comes before the read, so a write racing the read only costs a read again next time.
  const s = statSync(file, { bigint: true });
  const stamp = `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  const found = memo.get(file);
  if (found !== undefined && found.stamp === stamp) return found;
  const bytes = readFileSync(file);
  if (held + bytes.length > MAX_BYTES) {
    memo.clear();
    held = 0;
  }
  const entry: Kept = { stamp, bytes };
  memo.set(file, entry);
  held += bytes.length - (found?.bytes.length ?? 0);
  return entry;
}

/** The page's bytes (as readFile gives them; it throws as readFile does). Shared: callers must not change them. */
export function pageBytes(root: string, rel: string): Buffer {
  return kept(path.join(root, rel)).bytes;
}

/** The page's text, decoded as readFile(…, 'utf8') decodes it. */
export function pageText(root: string, rel: string): string {
  const entry = kept(path.join(root, rel));
  entry.text ??= entry.bytes.toString('utf8');
  return entry.text;
}

/** Every wiki page of `root` with its text, in listWikiPages' order (a page that vanished since the listing is left out). */
export async function readPages(root: string): Promise<Array<{ rel: string; text: string }>> {
  const out: Array<{ rel: string; text: string }> = [];
  for (const rel of await listWikiPages(root)) {
    try {
      out.push({ rel, text: pageText(root, rel) });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return out;
}
