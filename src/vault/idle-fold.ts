/**
 * Folding the rows a vault's index holds outside its full-text index (written since the last compaction, searched
 * flat: ~14 µs a row per query) into it once the vault has been quiet a while, for a process that lives long and
 * searches often: the daemon and `serve` (daemon/warm.ts) and the MCP server. A write folds them itself only once
 * there are FOLD_IN_ROWS of them (indexer/reindex.ts), so that a `remember` or a one-note update stays quick; a
 * process that would otherwise search them flat for hours does it when nobody waits.
 */
import { VaultkeeperError } from '../core/errors.js';
import { readManifestSummary, rowCounts } from '../indexer/manifest.js';
import { FOLD_WRITES, foldLaterRows } from '../indexer/reindex.js';
import type { Vault } from './vault.js';

/** How long the vault must be quiet after the last `poke` (docs/ARCHITECTURE.md). */
export const FOLD_IN_IDLE_MS = 2_000;

export class IdleFold {
  private timer: NodeJS.Timeout | undefined;
  private folding: Promise<void> = Promise.resolve();

  /** `vault` is read at each fold, so a process that reopens its vault (a config reload) folds the current one. */
  constructor(
    private readonly vault: () => Vault,
    private readonly onError: (error: unknown) => void,
    private readonly idleMs = FOLD_IN_IDLE_MS,
    /**
     * How to fold (default: in this process). The MCP server folds in a child process: at a million facts a fold
     * took its RSS from ~330 MB to ~850-980 MB, which the allocator kept after it (docs/benchmarks.md).
     */
    private readonly foldIn: (vault: Vault) => Promise<unknown> = (vault) => vault.reindex({ foldIn: true, lockWaitMs: 0 }),
  ) {}

  /** After something that may have written to the index: fold once nothing has happened for `idleMs`. */
  poke(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.folding = this.fold();
    }, this.idleMs);
    // A process ending (a client closing the MCP server's stdin) does not wait for a fold nobody asked for.
    this.timer.unref();
  }

  /** Cancels a pending fold and waits for one under way. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    await this.folding;
  }

  private async fold(): Promise<void> {
    const vault = this.vault();
    try {
      // The manifest counts writes since the last compaction: none, nothing to fold (and no pass over the files).
      const m = await readManifestSummary(vault.root);
      if (m === null || m.writes === 0) return;
      // A large table is folded only once a fold is due (indexer/reindex.ts, FOLD_LATER_ROWS: each fold rewrites it
      // whole); below the bound of writes one most often is not, and flat rows past FOLD_LATER_FLAT_ROWS the next
      // pass folds.
      const { facts, pages, core } = rowCounts(m);
      if (facts + pages + core >= foldLaterRows() && m.writes < FOLD_WRITES) return;
      await this.foldIn(vault);
    } catch (error) {
      // Another indexer at work is no failure: the next poke asks again.
      if (!(error instanceof VaultkeeperError && error.code === 'VK_LOCKED')) this.onError(error);
    }
  }
}
