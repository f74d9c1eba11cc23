/** How long to wait before retrying an LLM call: the server's Retry-After when it sends one, else exponential backoff with jitter. */

/** First backoff, doubled on each failed try of a call, up to MAX_BACKOFF_MS. */
export const BASE_BACKOFF_MS = 1_000;
export const MAX_BACKOFF_MS = 60_000;
/** The longest Retry-After the executor waits out; a server asking for longer gets no retry until then. */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;

interface HeaderSource {
  get(name: string): string | null;
}

/**
 * The wait a response asks for, in ms: `retry-after-ms` (OpenAI's), else `Retry-After` as seconds or an
 * HTTP date. Null when there is none, or it cannot be read.
 */
export function retryAfterMs(headers: HeaderSource | null | undefined, now: Date): number | null {
  if (headers === null || headers === undefined) return null;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers.get('retry-after')?.trim();
  if (after === undefined || after === '') return null;
  if (/^\d+(\.\d+)?$/.test(after)) return Number(after) * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : Math.max(0, date - now.getTime());
}

/**
 * The wait after the `failures`-th failed try (1-based): the server's Retry-After plus up to 10% (at most
 * a second) of jitter, else exponential backoff in [half, full] of BASE·2^(failures-1), capped.
 */
export function backoffMs(failures: number, retryAfter: number | null, random: () => number): number {
  if (retryAfter !== null) return retryAfter + random() * Math.min(1_000, retryAfter * 0.1);
  const full = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** Math.max(0, failures - 1));
  return full / 2 + (random() * full) / 2;
}
