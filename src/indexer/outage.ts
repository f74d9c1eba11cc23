/**
 * An index on object storage that cannot be reached is an outage, not a corrupt index (issue 29): the endpoint
 * down, a timeout, missing or refused credentials. Such a read is retried with backoff and then reported in one
 * line; nothing is rebuilt, since a clearing rebuild would drop a remote table that is intact. Only a table that
 * was read and found damaged is rebuilt (reindex.ts, Vault.search).
 */
import { errorMessage, VaultkeeperError } from '../core/errors.js';
import { isRemote } from './location.js';

/** What object-store clients (LanceDB's, through object_store and reqwest) say when the store is not there. */
const UNREACHABLE =
  /connection refused|ECONNREFUSED|ECONNRESET|connection reset|error sending request|dns error|failed to lookup|timed? ?out|connect error|broken pipe|service unavailable|SlowDown|InvalidAccessKeyId|SignatureDoesNotMatch|ExpiredToken|AccessDenied|credential|Generic S3 error|Generic \w+ error|HTTP error|status: 5\d\d|\b50[0234]\b|\b403\b|tcp connect|hyper|reqwest|object.?store/i;

/** The error's message and its causes', where the store's own words are. */
function messages(error: unknown): string {
  const parts: string[] = [];
  let at: unknown = error;
  for (let depth = 0; at !== undefined && at !== null && depth < 5; depth++) {
    parts.push(errorMessage(at));
    at = (at as { cause?: unknown }).cause;
  }
  return parts.join('\n');
}

/** True when `error`, from the index at `uri`, says the object store could not be reached (never for a local index). */
export function isOutage(uri: string, error: unknown): boolean {
  if (!isRemote(uri) || error instanceof IndexOutageError) return error instanceof IndexOutageError;
  return UNREACHABLE.test(messages(error));
}

export class IndexOutageError extends VaultkeeperError {
  constructor(uri: string, error: unknown, tries: number) {
    const first = messages(error).split('\n')[0]!.split(/\s*Caused by:/)[0]!.replace(/,?\s*\/\S+\.rs:\d+:\d+/g, '').trim();
    super('VK_INDEX_UNREACHABLE', `the index at ${uri} could not be reached after ${tries} ${tries === 1 ? 'try' : 'tries'} (${first}); nothing was rebuilt`, {
      hint: 'check the object store (endpoint, network, credentials) and run the command again; the index is intact',
      cause: error,
    });
  }
}

/** Delays between tries, in ms: LanceDB already retries each request 3 times with its own backoff (a try against a
 * store that is down took ~19 s here), so one more try after a pause lets a blip pass without doubling the wait again. */
export const OUTAGE_DELAYS_MS = [1_000] as const;

/** Runs `fn`, again after each delay while the index at `uri` is unreachable; then throws IndexOutageError. Other errors pass through. */
export async function withOutageRetries<T>(uri: string, fn: () => Promise<T>, delays: readonly number[] = OUTAGE_DELAYS_MS): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isOutage(uri, error)) throw error;
      if (error instanceof IndexOutageError) throw error;
      const delay = delays[attempt];
      if (delay === undefined) throw new IndexOutageError(uri, error, attempt + 1);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
