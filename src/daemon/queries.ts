/** What the daemon answers over its query socket: the same calls the CLI would make in process. */
import type { SearchOptions } from '../indexer/search.js';
import type { Vault } from '../vault/vault.js';
import type { QueryRequest } from './query-protocol.js';

/** The search options a client may set; anything else in a request is ignored. */
const SEARCH_OPTIONS = ['k', 'kind', 'category', 'tag', 'since', 'until', 'archived', 'maxChars', 'minScore'] as const;

export async function answerQuery(vault: Vault, request: QueryRequest): Promise<unknown> {
  if (request.op === 'status') return vault.status();
  if (request.op === 'search') {
    const options: Record<string, unknown> = {};
    for (const name of SEARCH_OPTIONS) if (request.options[name] !== undefined) options[name] = request.options[name];
    // The watcher keeps the index current: no freshness pass per query.
    return vault.search(String(request.query), { ...(options as SearchOptions), refresh: false });
  }
  // A newer CLI asking an older daemon: not an error of the request, so the CLI answers in process.
  throw new Error(`the daemon does not answer '${String((request as { op: unknown }).op)}'`);
}
