/**
 * parsePage, kept per page while its bytes are unchanged: a dream run's checks, index.md and MEMORY.md each
 * read every page, and a backlog's later runs read a vault many times the size of their batch (issue 31).
 * Keyed by the path and a hash of the bytes, so a scratch tree at a new path, the vault and the next run all
 * share one parse of an unchanged page. The value is shared: callers must not change it.
 *
 * A path keeps its two newest versions (the scratch tree's and the vault's, while a run has changed the page),
 * so what is kept is about the vault's pages, not every version a backlog wrote: the memo used to start afresh
 * every few late runs of a 50k backlog, and the next pass parsed every page again (issue 31, d31e).
 */
import { createHash } from 'node:crypto';
import { parsePage, type ParsedPage } from './parse.js';

/** Past this many characters of parsed pages the memo starts afresh (it holds about three times that): a warm
 * server keeps it, so it stays well under its memory budget (issue 31: ≤ 500 MB at 1M facts). A path holds at
 * most two versions, so this is reached only by a vault whose pages pass about half of it. */
const MAX_CHARS = 48_000_000;

interface Version {
  hash: string;
  parsed: ParsedPage;
  chars: number;
}

/** Per path (and kind of content): its newest version first. */
const memo = new Map<string, Version[]>();
/** The bytes a parse was made from (the page memo hands the same Buffer while a file is unchanged): no hash needed. */
const byBytes = new WeakMap<Uint8Array, ParsedPage>();
let held = 0;

export function parsePageMemo(rel: string, content: string | Uint8Array): ParsedPage {
  if (typeof content !== 'string') {
    const same = byBytes.get(content);
    if (same !== undefined && same.path === rel) return same;
  }
  // A string and bytes are decoded differently (a lone surrogate, invalid UTF-8): never one key for both.
  const key = `${typeof content === 'string' ? 's' : 'b'}${rel}`;
  const hash = createHash('sha1').update(content).digest('base64');
  const versions = memo.get(key);
  const at = versions?.findIndex((v) => v.hash === hash) ?? -1;
  let parsed: ParsedPage;
  if (versions !== undefined && at >= 0) {
    const found = versions[at]!;
    if (at > 0) versions.splice(0, 0, ...versions.splice(at, 1));
    parsed = found.parsed;
  } else {
    parsed = parsePage(rel, content);
    if (held + content.length > MAX_CHARS) {
      memo.clear();
      held = 0;
    }
    const kept = memo.get(key) ?? [];
    kept.unshift({ hash, parsed, chars: content.length });
    held += content.length;
    for (const dropped of kept.splice(2)) held -= dropped.chars;
    memo.set(key, kept);
  }
  if (typeof content !== 'string') byBytes.set(content, parsed);
  return parsed;
}
