/**
 * A vault kept warm for quick queries: a watcher keeps its index current and the query socket answers
 * search and status from it, with no freshness pass per query. The daemon runs this beside its
 * scheduler; `vaultkeeper serve` runs it alone.
 */
import { errorMessage } from '../core/errors.js';
import { watchVault } from '../indexer/watch.js';
import { IdleFold } from '../vault/idle-fold.js';
import type { Vault } from '../vault/vault.js';
import { answerQuery } from './queries.js';
import { serveQueries, type QueryServer } from './query-server.js';

export interface WarmHooks {
  onIndexed?: (changed: string[]) => void;
  onIndexError: (error: unknown) => void;
}

export interface WarmVault {
  /** The socket queries are answered on, or null when it could not be opened (then `socketProblem` says why). */
  queries: QueryServer | null;
  socketProblem: string | null;
  /** Resolves once the first full indexing pass is done (queries wait for it). */
  caughtUp: Promise<void>;
  close(): Promise<void>;
}

/** `vault` is read at each use, so a daemon that reloads its config swaps the vault under a running watcher. */
export async function startWarm(vault: () => Vault, hooks: WarmHooks): Promise<WarmVault> {
  const root = vault().root;
  // Rows a watcher pass writes are searched flat until a compaction folds them into the full-text index:
  // once the vault is quiet, do it, so queries stay as fast as on a fresh build (docs/benchmarks.md).
  const fold = new IdleFold(vault, hooks.onIndexError);
  const watcher = watchVault(root, (changed) => vault().reindex(changed === undefined ? {} : { changed }), {
    onIndexed: (changed) => {
      fold.poke();
      hooks.onIndexed?.(changed);
    },
    onError: hooks.onIndexError,
  });
  await watcher.ready;
  // Queries wait for one full pass (changes made while nothing watched; the index's files verified once, as
  // search's own pass no longer does), then the watcher keeps the index current.
  // Rows written before this process started (a CLI search's update, say) are folded in as well, once quiet.
  const caughtUp = vault()
    .reindex({ verify: true })
    .then(() => fold.poke(), hooks.onIndexError);
  let socketProblem: string | null = null;
  const queries = await serveQueries(root, async (request) => {
    await caughtUp;
    await watcher.flush();
    return answerQuery(vault(), request);
  }).catch((error: unknown) => {
    socketProblem = errorMessage(error);
    return null;
  });
  return {
    queries,
    socketProblem,
    caughtUp,
    close: async () => {
      await queries?.close().catch(() => undefined);
      await watcher.close().catch(() => undefined);
      await fold.close();
    },
  };
}
