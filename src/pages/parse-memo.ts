/**
 * parsePage, kept per page while its bytes are unchanged: a dream run's checks, index.md and MEMORY.md each
 * read every page, and a backlog's later runs read a vault many times the size of their batch (issue 31).
 * Keyed by the path and a hash of the bytes, so a scratch tree at a new path, the vault and the next run all
 * share one parse of an unchanged page. The value is shared: callers must not change it.
 */
import { createHash } from 'node:crypto';
import { parsePage, type ParsedPage } from './parse.js';

/** Past this many characters of parsed pages the memo starts afresh (it holds about three times that): a warm
 * server keeps it, so it stays well under its memory budget (issue 31: ≤ 500 MB at 1M facts). */
const MAX_CHARS = 24_000_000;

const memo = new Map<string, ParsedPage>();
let held = 0;

export function parsePageMemo(rel: string, content: string | Uint8Array): ParsedPage {
  // A string and bytes are decoded differently (a lone surrogate, invalid UTF-8): never one key for both.
  const key = `${typeof content === 'string' ? 's' : 'b'}${rel}\u0000${createHash('sha1').update(content).digest('base64')}`;
  const kept = memo.get(key);
  if (kept !== undefined) return kept;
  const parsed = parsePage(rel, content);
  if (held + content.length > MAX_CHARS) {
    memo.clear();
    held = 0;
  }
  memo.set(key, parsed);
  held += content.length;
  return parsed;
}
