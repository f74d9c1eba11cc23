/**
 * The programmatic API: the CLI, the MCP server and the daemon all go through a Vault.
 * Heavy parts (index, LLM) are imported lazily by the methods that need them.
 */
import type { RememberOptions, RememberResult } from '../capture/remember.js';
import type { ContextOptions, SubjectContext } from '../recall/context.js';
import type { RecentActivity, RecentOptions } from '../recall/recent.js';
import type { DashboardResult } from '../dashboard/dashboard.js';
import type { DoctorReport } from '../doctor/doctor.js';
import type { FixIdsResult } from '../logs/fix-ids.js';
import type { HistoryEntry } from '../git/audit.js';
import type { Fact, FactInput } from '../logs/factlog.js';
import type { CachedEmbedder } from '../embed/cached.js';
import type { ReindexOptions, ReindexResult } from '../indexer/reindex.js';
import type { SearchOptions, SearchResult } from '../indexer/search.js';
import type { IndexStore as IndexStoreType } from '../indexer/store.js';
import type { WarmCheck } from '../indexer/fresh.js';
import type { WarmPasses } from '../indexer/warm-passes.js';
import type { ChangeTracker } from '../indexer/change-tracker.js';
import type * as SearchModules from './search-modules.js';
import type { DreamOptions, DreamResult } from '../dream/runner.js';
import type { UndoResult } from '../dream/undo.js';
import type { OpenConflict } from '../dream/generate.js';
import type { ForgetResult, ForgetTarget } from '../tombstones/forget.js';
import type { PurgeResult, PurgeTarget } from '../purge/purge.js';
import { purgeInterrupted } from '../purge/intent.js';
import { loadContext, type VaultContext } from './context.js';
import type { LocateOptions } from './locate.js';
import type { VaultStatus } from './status.js';
import type { SyncResult } from '../sync/sync.js';

export type VaultReindexOptions = Omit<ReindexOptions, 'embedder'>;

export interface VaultSearchOptions extends SearchOptions {
  /** Bring the index up to date first (default true); skipped when another indexer is busy. */
  refresh?: boolean;
  onNote?: (message: string) => void;
}

export class Vault {
  private embedder: Promise<CachedEmbedder | null> | undefined;
  private store: Promise<IndexStoreType> | undefined;
  private modules: Promise<typeof SearchModules> | undefined;
  /** What the freshness checks keep between searches of a warm process (fresh.ts). */
  private warm: WarmCheck | undefined;
  /** What index passes keep between them in a process that runs more than one (warm-passes.ts). */
  private passes: WarmPasses | undefined;
  private passCount = 0;
  /** The files changed since the last pass, in a long-lived process without a watcher (the MCP server). */
  private tracker: ChangeTracker | null = null;

  constructor(readonly ctx: VaultContext) {}

  /**
   * Called after each pass that went past the freshness check (it may have written rows): a long-lived process folds
   * them into the full-text index once idle (vault/idle-fold.ts; the MCP server).
   */
  onReindexed: (() => void) | undefined;

  get root(): string {
    return this.ctx.root;
  }

  // Each method imports its stage when called: a search never loads git, a remember never loads the index.
  async remember(inputs: readonly FactInput[], options?: RememberOptions): Promise<RememberResult> {
    const { remember } = await import('../capture/remember.js');
    return remember(this.ctx, inputs, options);
  }

  /**
   * Tombstones facts, removes the page lines that cite or repeat them and regenerates MEMORY.md (one commit), then
   * reindexes: they leave the files, search, the MCP resource and memory_read at once, not at the next dream. The
   * pass is given the files the forget changed (forgetChanged): statting the other ~5,200 at a million facts is left
   * to the next command's freshness check, which sees a person's earlier edit since the manifest keeps its old stat.
   */
  async forget(target: ForgetTarget, options?: { reason?: string | undefined; now?: Date; onNote?: (message: string) => void }): Promise<ForgetResult> {
    const { forget, forgetChanged } = await import('../tombstones/forget.js');
    const result = await forget(this.ctx, target, options);
    if (result.commit === null) return result;
    const { VaultkeeperError } = await import('../core/errors.js');
    try {
      await this.reindex({ lockWaitMs: 10_000, changed: forgetChanged(result), ...(options?.onNote === undefined ? {} : { onNote: options.onNote }) });
    } catch (error) {
      // Another indexer holds the lock; the next pass re-projects the files the new tombstones can change.
      if (!(error instanceof VaultkeeperError && error.code === 'VK_LOCKED')) throw error;
    }
    return result;
  }

  /** Fetches, merges and pushes the vault's remote (sync/sync.ts), then brings the index up to date. */
  async sync(options: { remote?: string | undefined; now?: Date } = {}): Promise<SyncResult> {
    const { sync } = await import('../sync/sync.js');
    const result = await sync(this.ctx, options);
    await this.reindex({ lockWaitMs: 10_000 });
    return result;
  }

  /**
   * Erases facts (purge/purge.ts), then drops the embedding cache and rebuilds the index from scratch, so that no
   * cached vector and no old index version (a local folder or a remote table is dropped whole) keeps the text.
   */
  async purge(target: PurgeTarget, options?: { reason?: string | undefined; now?: Date; onNote?: (message: string) => void }): Promise<PurgeResult & { index: 'rebuilt' | 'busy' }> {
    const { purge } = await import('../purge/purge.js');
    const result = await purge(this.ctx, target, options);
    return { ...result, index: await this.purgeIndex(60_000, options?.onNote) };
  }

  /**
   * Finishes a purge a crash interrupted (purge/intent.ts): its files and history, then the index. openVault calls
   * it, so the next command of any kind leaves no copy of the text. True when there was one to finish.
   */
  async finishPurge(): Promise<boolean> {
    const { resumePurge } = await import('../purge/purge.js');
    const { VaultkeeperError, errorMessage } = await import('../core/errors.js');
    let intent;
    try {
      intent = await resumePurge(this.ctx);
    } catch (error) {
      throw new VaultkeeperError('VK_PURGE_UNFINISHED', `an interrupted purge could not be finished: ${errorMessage(error).split('\n')[0]}`, {
        hint: 'fix the cause and run the command again: every command finishes the purge first (its record: .git/vaultkeeper-purge.json)',
        cause: error,
      });
    }
    if (intent === null) return false;
    await this.purgeIndex(10_000);
    return true;
  }

  /** The embedding cache dropped and the index rebuilt from scratch; the purge's record goes once that is done. */
  private async purgeIndex(lockWaitMs: number, onNote?: (message: string) => void): Promise<'rebuilt' | 'busy'> {
    const { rm } = await import('node:fs/promises');
    const { EMBEDDING_CACHE_DIR } = await import('../embed/cache.js');
    const { confinedPath } = await import('./confine.js');
    const { clearPurgeIntent } = await import('../purge/intent.js');
    await rm(await confinedPath(this.root, EMBEDDING_CACHE_DIR, 'folder'), { recursive: true, force: true });
    const { VaultkeeperError } = await import('../core/errors.js');
    try {
      await this.reindex({ clear: true, lockWaitMs, ...(onNote === undefined ? {} : { onNote }) });
    } catch (error) {
      // The record stays: the next command rebuilds the index.
      if (!(error instanceof VaultkeeperError && error.code === 'VK_LOCKED')) throw error;
      return 'busy';
    }
    await clearPurgeIntent(this.root);
    return 'rebuilt';
  }

  /** The facts a purge of `target` would erase, for the confirmation. */
  async purgeTargets(target: PurgeTarget): Promise<Fact[]> {
    const { purgeTargets } = await import('../purge/purge.js');
    return purgeTargets(this.ctx, target);
  }

  async history(options: { path?: string; limit?: number } = {}): Promise<HistoryEntry[]> {
    const { history } = await import('../git/audit.js');
    return history(this.ctx.root, options);
  }

  async doctor(): Promise<DoctorReport> {
    // Lazy: doctor reads pages with the markdown parser, which `remember` must never load.
    const { runDoctor } = await import('../doctor/doctor.js');
    return runDoctor(this.ctx.root, this.ctx.env);
  }

  /** `doctor --fix`: appends the derived `^id` to hand-written fact lines that lack one, in one commit. */
  async fixIds(): Promise<FixIdsResult> {
    const { fixMissingIds } = await import('../logs/fix-ids.js');
    return fixMissingIds(this.ctx.root, this.ctx.config);
  }

  /** Consolidates the oldest pending log days into pages (DESIGN §7). */
  async dream(options: DreamOptions = {}): Promise<DreamResult> {
    const { dream } = await import('../dream/runner.js');
    return dream(this.ctx, options, {
      search: (query, k) => this.search(query, { k, refresh: false, recordRecall: false }),
      reindex: () => this.reindex(),
    });
  }

  async undo(run: string): Promise<UndoResult> {
    const { undo } = await import('../dream/undo.js');
    const result = await undo(this.ctx, run);
    await this.reindex();
    return result;
  }

  async status(now?: Date): Promise<VaultStatus> {
    const { vaultStatus } = await import('./status.js');
    return vaultStatus(this.ctx, now);
  }

  /** Everything known about a subject within a character budget: its pages, links, recent facts, commitments. */
  async context(subject: string, options?: ContextOptions): Promise<SubjectContext> {
    const { subjectContext } = await import('../recall/context.js');
    return subjectContext(this, subject, options);
  }

  /** New facts, changed pages and the last dreams of the last days. */
  async recent(options?: RecentOptions): Promise<RecentActivity> {
    const { recentActivity } = await import('../recall/recent.js');
    return recentActivity(this, options);
  }

  /** Regenerates the dashboard page (Mermaid charts) and commits it when it changed. */
  async dashboard(now?: Date): Promise<DashboardResult> {
    const { writeDashboard } = await import('../dashboard/dashboard.js');
    return writeDashboard(this, now);
  }

  /** What the dream flagged for review (0_Inbox/conflicts.md), each read against its page: resolved there is resolved. */
  async conflicts(): Promise<OpenConflict[]> {
    const { readConflicts } = await import('../dream/conflicts.js');
    return readConflicts(this.ctx.root);
  }

  /** The configured embedder behind the embedding cache, loaded once (null for full-text only). */
  loadEmbedder(onWarning?: (message: string) => void): Promise<CachedEmbedder | null> {
    this.embedder ??= this.searchModules().then(({ loadEmbedder }) => loadEmbedder(this.ctx, onWarning));
    return this.embedder;
  }

  /**
   * Keeps a list of the files changed between passes (indexer/change-tracker.ts), so a pass stats only those: for a
   * process that lives long and has no watcher (the MCP server). Until `stopTracking`; `close` keeps it.
   */
  async trackChanges(): Promise<void> {
    const { ChangeTracker } = await import('../indexer/change-tracker.js');
    this.tracker ??= ChangeTracker.start(this.root);
  }

  stopTracking(): void {
    this.tracker?.close();
    this.tracker = null;
  }

  /** Releases what searches keep open (the index handle). */
  async close(): Promise<void> {
    const store = this.store;
    this.store = undefined;
    this.warm?.close();
    this.warm = undefined;
    this.passes?.close();
    this.passes = undefined;
    (await store?.catch(() => null))?.close();
  }

  async reindex(options: VaultReindexOptions = {}): Promise<ReindexResult> {
    const embedder = await this.loadEmbedder(options.onNote);
    // A fold-in is asked for when nothing changed since the last pass: it goes past the check to the table. A
    // watcher that names the files changed (watch.ts) goes there too: it knows some did.
    if (!(options.clear ?? false) && !(options.foldIn ?? false) && !(options.changed !== undefined && options.changed.length > 0)) {
      // Nothing changed (the common case before a search): answered without the lock, LanceDB or the parser.
      const { unchangedIndex, WarmCheck } = await import('../indexer/fresh.js');
      this.warm ??= new WarmCheck();
      const same = await unchangedIndex(this.ctx, { model: embedder?.model ?? 'none', dimensions: embedder?.dimensions ?? null, verify: options.verify ?? false }, this.warm);
      if (same !== null) {
        options.onProgress?.({ phase: 'scan', done: same.files.unchanged, total: same.files.unchanged });
        return same;
      }
    }
    const { reindex, WarmPasses } = await import('../indexer/reindex.js');
    // From a process's second pass on (the watcher, the daemon, the MCP server), the table and what the passes read
    // stay loaded between them; a command that indexes once keeps nothing.
    if (++this.passCount >= 2) this.passes ??= new WarmPasses();
    const warm = this.passes === undefined ? {} : { warm: this.passes };
    // A pass given its list (a forget's) leaves the tracker's list whole for its next pass: every change since its last.
    const tracker = options.changed === undefined ? this.tracker : null;
    const result =
      tracker === null
        ? await reindex(this.ctx, { ...options, embedder, ...warm })
        : await tracker.pass((changed) => reindex(this.ctx, { ...options, embedder, ...warm, ...(changed === undefined ? {} : { changed }) }));
    this.onReindexed?.();
    return result;
  }

  /** What a search needs, imported once: resolving the modules again on each call cost a warm search ~0.1 ms (docs/benchmarks.md). */
  private searchModules(): Promise<typeof SearchModules> {
    this.modules ??= import('./search-modules.js');
    return this.modules;
  }

  async search(query: string, options: VaultSearchOptions = {}): Promise<SearchResult[]> {
    const { validateSearch, lanceMessage, VaultkeeperError, isOutage, withOutageRetries, indexUri } = await this.searchModules();
    validateSearch(query, options);
    if (options.refresh ?? true) {
      const early = await this.searchIfUnchanged(query, options);
      if (early !== null) return early;
      try {
        await this.reindex({ lockWaitMs: 2_000, ...(options.onNote === undefined ? {} : { onNote: options.onNote }) });
      } catch (error) {
        // A vault on a read-only mount cannot be indexed, but its index can still be read: search it, and say so.
        const fsCode = (error as NodeJS.ErrnoException).code;
        if (fsCode === 'EROFS' || fsCode === 'EACCES' || fsCode === 'EPERM') {
          options.onNote?.('the vault is read-only here: searching its index as it is, without bringing it up to date');
        } else {
          // Another indexer (the watcher, the daemon) holds the lock: search what is there, and say so.
          if (!(error instanceof VaultkeeperError && error.code === 'VK_LOCKED')) throw error;
          options.onNote?.('another process is indexing the vault; these results may miss its latest changes');
        }
      }
    }
    const reopen = async (): Promise<void> => {
      const stale = this.store;
      this.store = undefined;
      (await stale?.catch(() => null))?.close();
    };
    const uri = indexUri(this.ctx);
    try {
      const results = await this.searchIndex(query, options);
      if (options.refresh === false && !(await this.store)?.exists) options.onNote?.('the vault has no index yet, so nothing was searched: run `vaultkeeper reindex`, or search without --no-refresh');
      return results;
    } catch (error) {
      if (error instanceof VaultkeeperError) throw error;
      await reopen();
      // Object storage that cannot be reached: retried with backoff, then one line; the remote table is never dropped.
      if (isOutage(uri, error)) return withOutageRetries(uri, () => this.searchIndex(query, options).catch(async (again: unknown) => {
        await reopen();
        throw again;
      }));
      try {
        return await this.searchIndex(query, options); // a table rebuilt by another indexer needs a fresh handle
      } catch (again) {
        if (again instanceof VaultkeeperError) throw again;
        await reopen();
        if (isOutage(uri, again)) throw again;
      }
      // The index is a projection: when it cannot be read, rebuild it from the files and search again.
      options.onNote?.(`the index could not be searched (${lanceMessage(error)}); rebuilding it`);
      await this.reindex({ clear: true, ...(options.onNote === undefined ? {} : { onNote: options.onNote }) });
      return this.searchIndex(query, options);
    }
  }

  /** The query against the index as it is. The store stays open across searches (opening costs tens of ms); it sees other processes' writes. */
  private async searchIndex(query: string, options: VaultSearchOptions): Promise<SearchResult[]> {
    const { search, IndexStore, indexUri, recordedUri, NewestKeyedFiles } = await this.searchModules();
    const embedder = await this.loadEmbedder(options.onNote);
    const uri = indexUri(this.ctx);
    // The keyed subjects' newest rows as the last index pass left them: a search's keyed lookup without a second query.
    this.store ??= IndexStore.openToSearch(uri, embedder?.dimensions ?? null, new NewestKeyedFiles(this.ctx.root, recordedUri(this.ctx.root, uri)));
    // A query is embedded once: reading the whole embedding cache for it would cost more than it saves.
    return search(this.ctx, await this.store, embedder?.uncached ?? null, query, options);
  }

  /**
   * The search run side by side with the freshness check, its answer kept when the check finds nothing changed
   * (null otherwise, and on any error: the caller then brings the index up to date and searches as before). In a
   * fresh process (a CLI search) LanceDB opens the table and reads its full-text index on its own threads while the
   * check reads the manifest and stats the files here (docs/benchmarks.md). The index is the one the check
   * vouched for, so the answer is the one a search after the check returns.
   */
  private async searchIfUnchanged(query: string, options: VaultSearchOptions): Promise<SearchResult[] | null> {
    const { unchangedIndex, indexUri, isRemote, recordSearch, WarmCheck } = await this.searchModules();
    // A remote index always takes the full pass (fresh.ts): nothing to overlap.
    if (isRemote(indexUri(this.ctx))) return null;
    const embedder = await this.loadEmbedder(options.onNote);
    const opened = this.store !== undefined;
    const answer = this.searchIndex(query, { ...options, recordRecall: false }).catch(() => null);
    const want = { model: embedder?.model ?? 'none', dimensions: embedder?.dimensions ?? null, verify: false };
    this.warm ??= new WarmCheck();
    const same = await unchangedIndex(this.ctx, want, this.warm).catch(() => null);
    const results = await answer;
    if (same === null || results === null) {
      // Something changed: the reindex that follows may rebuild the table, so a handle opened just now is not kept.
      if (!opened) await this.close();
      return null;
    }
    if (options.recordRecall ?? true) await recordSearch(this.ctx, query, options, results);
    return results;
  }
}

export async function openVault(options: LocateOptions = {}): Promise<Vault> {
  const vault = new Vault(await loadContext(options));
  // One failed stat when no purge was interrupted.
  if (await purgeInterrupted(vault.root)) await vault.finishPurge();
  return vault;
}
