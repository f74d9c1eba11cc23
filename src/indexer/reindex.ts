/**
 * The indexer: projects the vault's files into the index by the rules of projection.ts, touching only
 * what changed. It is the only writer of the index; a cross-process lock serializes it.
 */
import { failpoint } from '../core/failpoint.js';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import { withLock } from '../core/lock.js';
import { BATCH_TIERING_BYTES, batchTiering, endQuickTiering } from '../core/tiering.js';
import { readJournal } from '../dream/journal.js';
import type { Embedder } from '../embed/embedder.js';
import { readTombstones } from '../tombstones/tombstones.js';
import { confinedPath, isWithin } from '../vault/confine.js';
import type { VaultContext } from '../vault/context.js';
import { clearDirtyMark, clearShards, countRows, emptyManifest, manifestRowCount, markDirty, olderManifest, readDirtyMark, readManifestSummary, RowShards, shardOf, shardTexts, withDirtyMark, writeManifest, writeShards, type FileSummary, type ManifestSummary, type ShardTexts } from './manifest.js';
import type { WarmPasses } from './warm-passes.js';
import type * as Chunks from './project-chunk.js';
import type { ChunkFile, ChunkResult, FileProjection } from './project-chunk.js';
import type { PreparedPage } from './projection.js';
import type { StoredReadings } from './state-readings.js';
import type { EncodedBatch } from './arrow-rows.js';
import type { FileCounts, ReindexResult } from './result.js';
import { indexFingerprint, inputsHash, statAll, tombstoneState, vaultFiles } from './fresh.js';
import { touchedByTombstones } from './tombstone-touch.js';
import { writeLogFacts, type LogFactsEntry } from '../logs/log-facts.js';
import { indexUri, isRemote, recordedUri, sameLocation } from './location.js';
import { dependsOnCitations, sourceKind } from './sources.js';
import { embeddingText, type IndexRow } from './rows.js';
import { clearNewestKeyed, NewestKeyedPass } from './newest-keyed-file.js';
import { IndexStore, VECTOR_INDEX_ROWS, indexError, indexFilesFolder, lanceMessage, type StoredRow } from './store.js';
import { ProjectionPool, chunksOf, poolSize, workersFromEnv } from './project-pool.js';
import { TableParts, partRowsFromEnv } from './table-parts.js';
import { isOutage, withOutageRetries } from './outage.js';

export interface ReindexProgress {
  phase: 'scan' | 'embed' | 'write';
  done: number;
  total: number;
}

export interface ReindexOptions {
  clear?: boolean;
  embedder: Embedder | null;
  onProgress?: (progress: ReindexProgress) => void;
  /** Things a person should know: a rebuild and why, a file that could not be read. */
  onNote?: (message: string) => void;
  /** How long to wait for another indexer; 0 returns `busy` at once. */
  lockWaitMs?: number;
  /**
   * Read every index of the table once before trusting it (the `reindex` command), so a damaged index
   * file is rebuilt now. A search's freshness pass leaves this out: a search that meets a damaged index
   * fails, and the vault rebuilds then, so every search does not pay for the probe.
   */
  verify?: boolean;
  /**
   * Fold rows written since the last compaction into the full-text index, however few, which LanceDB otherwise
   * searches flat (docs/benchmarks.md). Every write folds them once they reach FOLD_IN_ROWS; a long-lived process
   * (the daemon, `serve`, the MCP server) asks for the rest once idle (vault/idle-fold.ts), where the compaction's
   * cost delays no one. Either way the manifest then counts no writes since the last compaction.
   */
  foldIn?: boolean;
  /**
   * A pass nobody waits on to go on (the `reindex` command, the daemon's index job): it folds a large table as soon
   * as a fold is due, where a pass someone waits for (a search's, `forget`'s, the watcher's) leaves it to such work
   * a while longer (FOLD_LATER_ROWS).
   */
  idle?: boolean;
  /**
   * Projection workers beside this thread (project-pool.ts): by default one when there is much to project
   * and no embedder, none otherwise; VAULTKEEPER_INDEX_WORKERS or this sets the number (0: none) for tests and measuring.
   */
  workers?: number;
  /**
   * The files (vault-relative) that may have changed since the last pass, from a watcher that saw every change since
   * that pass began (watch.ts: no error, no folder added or removed) and that pass skipped no file: only these, and
   * files the manifest does not know, are statted; every other file is taken to be as the manifest recorded it. At a
   * million facts statting the ~5,200 files cost a pass 90-140 ms (issue 31). Unset: every file is statted.
   */
  changed?: readonly string[];
  /** What a warm process keeps between its passes (warm-passes.ts): the table, the row-hash shards, the summary. */
  warm?: WarmPasses;
}

export type { FileCounts, ReindexResult } from './result.js';
export { indexUri } from './location.js';
export { vaultFiles } from './fresh.js';
export { WarmPasses } from './warm-passes.js';

/**
 * Empties the index before a rebuild. A local index is a projection kept under .vaultkeeper/ (DESIGN §6):
 * its folder is deleted, since LanceDB cannot drop a table whose files it cannot read. A folder outside
 * .vaultkeeper/ is never deleted (no program write leaves the vault's state, §9): LanceDB drops the table
 * there, as it does for a remote index.
 */
async function clearIndex(ctx: VaultContext, uri: string): Promise<void> {
  const state = path.join(ctx.root, '.vaultkeeper');
  if (isRemote(uri) || !isWithin(state, uri) || path.resolve(uri) === path.resolve(state)) {
    await IndexStore.dropRemote(uri).catch(() => undefined);
    return;
  }
  const rel = path.relative(ctx.root, uri).split(path.sep).join('/');
  await rm(await confinedPath(ctx.root, rel, 'folder'), { recursive: true, force: true });
}

async function openStore(ctx: VaultContext, uri: string, dimensions: number | null): Promise<IndexStore> {
  // LanceDB writes below a local index in the vault: a link on its way (a linked .vaultkeeper/index) is refused.
  if (!isRemote(uri) && isWithin(ctx.root, uri) && path.resolve(uri) !== path.resolve(ctx.root)) {
    await confinedPath(ctx.root, path.relative(ctx.root, uri).split(path.sep).join('/'), 'folder');
  }
  try {
    return await IndexStore.open(uri, dimensions);
  } catch (error) {
    throw indexError('be opened', error);
  }
}

export async function reindex(ctx: VaultContext, options: ReindexOptions): Promise<ReindexResult> {
  // A pass can run for minutes: a quick command's setting ends here (core/tiering.ts).
  await endQuickTiering();
  return withLock(ctx.root, 'index', () => reindexLocked(ctx, options), { waitMs: options.lockWaitMs ?? 300_000 });
}

async function reindexLocked(ctx: VaultContext, options: ReindexOptions): Promise<ReindexResult> {
  failpoint('reindex:full-pass'); // lets a test tell the full pass from the freshness check that skips it
  const uri = indexUri(ctx);
  try {
    // An object store that cannot be reached is retried, then reported: never taken for a broken table.
    return await withOutageRetries(uri, () => indexOnce(ctx, options));
  } catch (error) {
    if (isOutage(uri, error)) throw error;
    // A table that breaks while being written is rebuilt from the files once; a second failure is real.
    if (options.clear || !(error instanceof VaultkeeperError) || error.code !== 'VK_INDEX') throw error;
    options.onNote?.(`rebuilding the index: ${error.message}`);
    return indexOnce(ctx, { ...options, clear: true }, error.message);
  }
}

/** `because`: why a rebuild was asked for, when it is a retry after a failed pass (said once, by the caller). */
async function indexOnce(ctx: VaultContext, options: ReindexOptions, because?: string): Promise<ReindexResult> {
  const started = performance.now();
  const { embedder } = options;
  const model = embedder?.model ?? 'none';
  const dimensions = embedder?.dimensions ?? null;
  const uri = indexUri(ctx);
  const note = options.onNote ?? (() => undefined);

  // A rebuild projects every file: the parser's modules (markdown-it, js-yaml: ~60-100 ms) load while the index
  // is cleared and the files are listed, statted and read, not after.
  let loading = options.clear ? loadChunks(true) : null;
  const warm = options.warm;
  if (options.clear) {
    warm?.reset();
    await clearIndex(ctx, uri);
  }
  let store = warm?.takeStore(uri, dimensions) ?? (await openStore(ctx, uri, dimensions));
  let finished = false;
  try {
    // The summary only: a file's row hashes are read, a shard at a time, when the file is projected again.
    let manifest = options.clear ? null : await readSummary(ctx.root, warm);
    // The index files as they are before this pass: the full-text matches of the probe read them, unless they are
    // as the last full probe left them (rows added or deleted since leave them so; a compaction rewrites them).
    const indices = options.verify && !isRemote(uri) ? await indexFingerprint(indexFilesFolder(uri)) : undefined;
    const probed = indices !== undefined && manifest?.probedIndices === indices;
    // The table's folder as the pass that wrote the manifest left it (every file's name, size and mtime): its rows
    // and vectors are those that pass wrote, so a pass that does not verify need not read the table to know it.
    const asLeft = !(options.verify ?? false) && !isRemote(uri) && manifest?.indexFiles !== undefined && manifest.indexFiles === (await indexFingerprint(uri));
    const reason = await rebuildReason(store, manifest, { clear: options.clear ?? false, verify: options.verify ?? false, probed, asLeft, uri, model, dimensions, root: ctx.root });
    const rebuilt = reason === 'requested' && because !== undefined ? because : reason;
    if (rebuilt !== null) {
      if (reason !== 'requested' && reason !== 'new index') note(`rebuilding the index: ${rebuilt}`);
      if (reason !== 'requested') {
        store.close();
        await clearIndex(ctx, uri);
        store = await openStore(ctx, uri, dimensions);
      }
      failpoint('reindex:after-clear');
      warm?.reset();
      await clearShards(ctx.root);
      manifest = emptyManifest(recordedUri(ctx.root, uri), model, dimensions);
      loading ??= loadChunks(true);
    }
    const m = manifest!;
    // Each keyed subject's newest row, beside the manifest (newest-keyed-file.ts): a new table's from the rows this
    // pass adds, else from the files as the last pass left them and this pass's changes.
    const keyed = await NewestKeyedPass.begin(ctx.root, recordedUri(ctx.root, uri), store, rebuilt !== null || !store.exists);
    // A rebuild keeps no shard for later: it would hold every shard of the vault (~200 MB at a million facts).
    const shards = new RowShards(ctx.root, m.rows, rebuilt === null ? warm?.shards : undefined);

    const journal = await readJournal(ctx.root);
    const tombstones = await readTombstones(ctx.root);
    const inputs = inputsHash(journal);
    const tomb = tombstoneState(tombstones, m.tombstones);

    // Pages first: the facts they cite decide what consolidated logs still show as facts.
    const all = await vaultFiles(ctx.root);
    const pages = all.filter((rel) => sourceKind(rel) !== 'log');
    const logs = all.filter((rel) => sourceKind(rel) === 'log');
    const files = [...pages, ...logs];
    // A watcher's list of what changed (`changed`): only those files are statted.
    const known = options.changed === undefined || rebuilt !== null ? null : statChanged(ctx.root, files, m, options.changed);
    // Stat every file at once: the common case is that nothing changed, and then this is the whole pass.
    const stats = known ?? (await statAll(ctx.root, files));
    // New tombstones re-project the files they may change (tombstone-touch.ts); other changes to them, every file.
    const touchedByNew =
      tomb.added === 'all' || rebuilt !== null ? null : touchedByTombstones(ctx.root, logs, pages, tomb.added, stats.slice(pages.length));
    const inputsChanged = inputs !== m.inputs || touchedByNew === null;
    const forgotten = (rel: string): boolean => inputsChanged || touchedByNew!.has(rel);
    const wanted = new Set(files);
    const counts: FileCounts = { indexed: 0, updated: 0, unchanged: 0, removed: 0, skipped: 0 };
    const toDelete: string[] = [];
    const toAdd: IndexRow[] = [];
    const encoded: EncodedBatch[] = [];
    const nextEntries = new Map<string, FileSummary>();
    /** The row hashes of files projected this pass (null: a file gone), for the shards they are kept in. */
    const changedRows = new Map<string, Map<string, string> | null>();
    /** The state-change readings of files projected this pass, kept beside their row hashes (state-readings.ts). */
    const changedReadings = new Map<string, StoredReadings>();
    /** The live facts of logs projected this pass (logs/log-facts.ts), with the size and mtime they were read at. */
    const changedLogFacts = new Map<string, LogFactsEntry | null>();
    /** Shards serialized during a rebuild once their logs were all projected (ShardSeal): their row hashes are not kept to the end. */
    const sealed: ShardTexts = new Map();
    const allShardTexts = (): ShardTexts => new Map([...sealed, ...shardTexts(shards, next.files, changedRows, changedReadings)]);
    /** Fills in the row hashes of new files (project-chunk.ts: `unhashed`), once LanceDB has the rows to work on. */
    const unhashed: Array<() => void> = [];
    const hashRows = (): void => {
      for (const fill of unhashed.splice(0)) fill();
    };
    let unchangedRows = 0;
    let scanned = 0;
    const progress = (files: number): void => {
      scanned += files;
      options.onProgress?.({ phase: 'scan', done: scanned, total: all.length });
    };

    // Files to project, in bytes at most (a log's rows may also change with the citations, found out later):
    // above a threshold a worker projects beside this thread, started now so it loads while files are read.
    const maybe = files.reduce((sum, rel, i) => {
      const info = stats[i];
      const previous = m.files[rel];
      const same = previous !== undefined && !forgotten(rel) && previous.size === info?.size && previous.mtimeMs === info.mtimeMs;
      return sum + (info === null || info === undefined || same ? 0 : info.size);
    }, 0);
    // A long batch of projection has V8 optimize its code later (core/tiering.ts: fewer compilations thrown away).
    if (maybe >= BATCH_TIERING_BYTES) await batchTiering();
    // With an embedder the rows are embedded here, so they stay objects in this thread.
    const forced = options.workers ?? workersFromEnv();
    const workers = embedder === null ? poolSize(maybe, forced) : 0;
    const pool = workers > 0 ? new ProjectionPool(workers, forced !== undefined) : null;
    // A new table is written in parts while the rest is projected (table-parts.ts), without an embedder (which must
    // see every row first): a rebuild holds a part's rows at a time, not the table's.
    const newTable = !store.exists;
    /** The id of the dirty mark this pass wrote before changing the table, for the manifest written after to name. */
    let pass: string | undefined;
    const markTable = async (): Promise<void> => {
      pass = await markDirty(ctx.root);
      failpoint('reindex:after-dirty');
    };
    const parts = newTable && embedder === null ? new TableParts(store, partRowsFromEnv(), markTable) : null;
    // The page parser (markdown-it) loads only when some file must be projected (a rebuild started loading it above).
    let chunks: typeof Chunks | null = null;
    let local: Chunks.ChunkProjector | null = null;
    let touched = false;
    let citedDigest = m.cited;
    type Task = ChunkFile & { info: { size: number; mtimeMs: number }; fingerprint: string };

    /** The files of a group to project (new, changed, or `stale`); the rest are counted, and kept as they are. */
    const readTasks = (group: readonly string[], offset: number, stale: (rel: string) => boolean): Task[] => {
      const tasks: Task[] = [];
      for (const [j, rel] of group.entries()) {
        const previous = m.files[rel];
        const info = stats[offset + j];
        if (info === null || info === undefined) {
          wanted.delete(rel); // gone since the listing
          progress(1);
          continue;
        }
        if (previous !== undefined && !stale(rel) && previous.size === info.size && previous.mtimeMs === info.mtimeMs) {
          counts.unchanged++;
          unchangedRows += rowTotal(previous);
          progress(1);
          continue;
        }
        touched = true;
        let content: Buffer;
        try {
          // Read synchronously: for many small files fs/promises' readFile (a FileHandle each) cost ~5× the CPU (docs/benchmarks.md).
          content = readFileSync(path.join(ctx.root, rel));
        } catch (error) {
          counts.skipped++;
          note(`skipped ${rel}: ${errorMessage(error)}`);
          if (previous !== undefined) nextEntries.set(rel, previous); // keep its rows until it can be read
          progress(1);
          continue;
        }
        const fingerprint = createHash('sha256').update(content).digest('base64url');
        if (previous !== undefined && !stale(rel) && previous.fingerprint === fingerprint) {
          counts.unchanged++;
          unchangedRows += rowTotal(previous);
          nextEntries.set(rel, { ...previous, size: info.size, mtimeMs: info.mtimeMs });
          progress(1);
          continue;
        }
        const readings = previous === undefined ? undefined : shards.readingsOf(rel);
        tasks.push({ rel, content, info, fingerprint, ...(previous === undefined ? {} : { previous: shards.rowsOf(rel) }), ...(readings === undefined ? {} : { readings }) });
      }
      return tasks;
    };

    /** Projects the tasks on the pool, in parts, or on this thread; prepared pages (`prepared`) on this thread. */
    const project = async (tasks: readonly Task[], cited: readonly string[], prepared?: readonly PreparedPage[]): Promise<void> => {
      const inputs = { root: ctx.root, journal, tombstones: tombstones.entries, cited };
      let results: ChunkResult[];
      if (pool !== null && prepared === undefined) {
        results = await pool.run(inputs, chunksOf(tasks, pool.threads), local!, progress);
        if (parts !== null) {
          for (const result of results) await takePart(parts, result, chunks!.hashesOf, keyed);
        }
      } else if (parts !== null) results = await projectInParts(local!, tasks, parts, progress, chunks!.hashesOf, keyed, prepared);
      else {
        results = [local!.project(tasks, embedder === null ? 'encoded' : 'rows', false, prepared)];
        progress(tasks.length);
      }
      for (const result of results) {
        if (result.batches !== undefined) {
          keyed.addBatches(result.batches);
          encoded.push(...result.batches);
        }
        if (result.rows !== undefined) {
          keyed.addRows(result.rows);
          toAdd.push(...result.rows);
        }
      }
      record(tasks, results.flatMap((result) => result.files));
    };

    /** The manifest entries of projected files, and the rows a changed file no longer has. */
    const record = (tasks: readonly Task[], projected: readonly FileProjection[]): void => {
      tasks.forEach((task, i) => {
        const file = projected[i]!;
        unchangedRows += file.unchanged;
        if (file.readings !== undefined) changedReadings.set(task.rel, file.readings);
        // Kept only when the bytes projected are the size statted before the read: an append in between is read again.
        if (file.facts !== undefined && task.content.length === task.info.size) changedLogFacts.set(task.rel, { size: task.info.size, mtimeMs: task.info.mtimeMs, ...file.facts });
        const entry: FileSummary = { size: task.info.size, mtimeMs: task.info.mtimeMs, fingerprint: task.fingerprint, ...(file.cited.length > 0 ? { cited: file.cited } : {}), facts: 0, pages: 0, core: 0 };
        const hashed = (rows: Map<string, string>): Map<string, string> => {
          changedRows.set(task.rel, rows);
          Object.assign(entry, countRows(rows.keys()));
          return rows;
        };
        if (task.previous === undefined) {
          counts.indexed++;
          // A new file's rows are all written whatever their hashes: they are hashed while the table is written.
          if (file.unhashed !== undefined) unhashed.push(() => hashed(chunks!.hashesOf(file)));
          else hashed(chunks!.hashesOf(file));
        } else {
          counts.updated++;
          const rows = hashed(chunks!.hashesOf(file));
          for (const [key, hash] of task.previous) {
            if (rows.get(key) !== hash) toDelete.push(key);
          }
        }
        nextEntries.set(task.rel, entry);
      });
    };

    try {
      // Pages first: the facts they cite decide what consolidated logs still show as facts. When the vault has logs,
      // a page is parsed now for its citations and its rows made after the logs, which hand over the passages it
      // cites as they are parsed (project-chunk.ts: preparePages).
      // A page's rows do not read the journal (only a log's do: pending or consolidated), so a dream's move of the
      // watermark re-projects the logs, not every page of the vault (issue 31: the pass after a late run).
      const pageTasks = readTasks(pages, 0, (rel) => touchedByNew === null || touchedByNew.has(rel));
      let prepared: PreparedPage[] | null = null;
      if (pageTasks.length > 0) {
        chunks ??= await (loading ?? loadChunks());
        await chunks.loadPages();
        local = new chunks.ChunkProjector({ root: ctx.root, journal, tombstones: tombstones.entries, cited: [] });
        if (logs.length > 0) prepared = local.preparePages(pageTasks);
        else await project(pageTasks, []);
      }
      const citedBy = new Map(prepared === null ? [] : pageTasks.map((task, i) => [task.rel, prepared![i]!.cited]));
      if (logs.length > 0) {
        const cited = new Set<string>();
        for (const page of pages) for (const id of citedBy.get(page) ?? (nextEntries.get(page) ?? m.files[page])?.cited ?? []) cited.add(id);
        citedDigest = createHash('sha256').update([...cited].sort().join('\n')).digest('base64url');
        const citedChanged = citedDigest !== m.cited;
        const stale = (rel: string): boolean => forgotten(rel) || (citedChanged && dependsOnCitations(rel, journal));
        const inputs = { root: ctx.root, journal, tombstones: tombstones.entries, cited: [...cited] };
        let withCited = false;
        const sealing = parts === null ? null : new ShardSeal(shards, pages, logs);
        // Read and projected a group at a time: a rebuild holds a group's bytes, not the vault's (118 MB of logs at 1M facts).
        for (const [from, to] of readGroups(stats, pages.length, logs.length)) {
          const logTasks = readTasks(logs.slice(from, to), pages.length + from, stale);
          if (logTasks.length === 0) continue;
          chunks ??= await (loading ?? loadChunks());
          if (!withCited) {
            local = local === null ? new chunks.ChunkProjector(inputs) : local.withCited(inputs.cited);
            withCited = true;
          }
          await project(logTasks, inputs.cited);
          hashRows();
          sealing?.sealBefore(to, changedRows, changedReadings, sealed);
        }
      }
      if (prepared !== null) await project(pageTasks, [], prepared);
    } finally {
      // A worker that died (a crash, or out of memory) lost nothing: this thread projected its chunks.
      if (pool !== null && pool.lost > 0) note(`${pool.lost} of ${workers} projection workers stopped; their files were projected in the main thread`);
      await pool?.close();
    }
    for (const [rel, entry] of Object.entries(m.files)) {
      if (wanted.has(rel)) continue;
      touched = true;
      counts.removed++;
      if (rowTotal(entry) > 0) toDelete.push(...shards.rowsOf(rel).keys());
      changedRows.set(rel, null);
    }

    const stored = await embedRows(toAdd, embedder, options.onProgress);
    const embedded = stored.embedded;
    const adding = stored.rows.length + encoded.reduce((sum, batch) => sum + batch.length, 0) + (parts?.rows ?? 0);

    const next: ManifestSummary = { ...m, uri: recordedUri(ctx.root, uri), embedder: model, dimensions, inputs, tombstones: { count: tomb.count, digest: tomb.digest }, cited: citedDigest, files: {} };
    for (const rel of files) {
      const entry = nextEntries.get(rel) ?? m.files[rel];
      if (entry !== undefined && wanted.has(rel)) next.files[rel] = entry;
    }

    const wrote = toDelete.length > 0 || adding > 0;
    let rows: ShardTexts | undefined;
    /** Writes the shards (`rows`, then none left to write) and the log facts the manifest and the end of the pass would. */
    const writeBesideIndices = async (): Promise<void> => {
      const shards = rows ?? allShardTexts();
      rows = new Map();
      const logFacts = new Map(changedLogFacts);
      changedLogFacts.clear();
      await Promise.all([
        writeShards(ctx.root, next.rows, shards).then((digests) => (next.rows = digests)),
        logFacts.size > 0 ? writeLogFacts(ctx.root, logFacts) : undefined,
      ]);
    };
    if (wrote) {
      if (!(parts?.started ?? false)) await markTable();
      options.onProgress?.({ phase: 'write', done: 0, total: adding });
      try {
        await store.deleteKeys(toDelete);
        await parts?.finish();
        await store.addEncoded(encoded);
        // A new table builds its indices once over every row of its first build; added in batches without them,
        // most rows would stay unindexed until a compaction read them all again.
        const indexed = newTable && store.exists ? store.buildIndices() : Promise.resolve();
        // While LanceDB's threads build a new table's indices, this one hashes the new rows and serializes the
        // row hashes it writes after (Dendron: ~0.1 s off a rebuild's wall time, docs/benchmarks.md).
        hashRows();
        rows = allShardTexts();
        // A rebuild's row-hash shards and log facts are written while those threads build the indices too: after them,
        // their ~530 files' writes and fsyncs were ~3 s of a 1M-fact rebuild's wall time with both cores idle (issue 31).
        // A shard is read only once a manifest names it (writeShards); a log's facts vouch for it by its size and mtime
        // alone, whenever written (log-facts.ts).
        const beside = rebuilt !== null ? writeBesideIndices() : Promise.resolve();
        const [built, wroteBeside] = await Promise.allSettled([indexed, beside]);
        if (built.status === 'rejected') throw built.reason;
        if (wroteBeside.status === 'rejected') throw wroteBeside.reason;
        const batch = store.exists ? 5_000 : Math.max(1, stored.rows.length);
        for (let i = 0; i < stored.rows.length; i += batch) {
          await store.add(stored.rows.slice(i, i + batch));
          options.onProgress?.({ phase: 'write', done: Math.min(i + batch, stored.rows.length), total: stored.rows.length });
        }
        options.onProgress?.({ phase: 'write', done: adding, total: adding });
        next.writes = m.writes + 1;
        if (await maintenanceDue(store, next.writes, !(options.idle ?? false))) {
          await store.optimize();
          next.writes = 0;
        }
      } catch (error) {
        throw indexError('be written', error);
      }
    }
    let compacted = false;
    // Idle work folds what passes someone waited for left, written or not this time (FOLD_LATER_ROWS).
    if (!wrote && !options.foldIn && options.idle && next.writes > 0 && rebuilt === null) {
      try {
        if (await maintenanceDue(store, next.writes, false)) {
          await store.optimize();
          next.writes = 0;
          touched = true;
          compacted = true;
        }
      } catch (error) {
        throw indexError('be compacted', error);
      }
    }
    if (options.foldIn && next.writes > 0) {
      try {
        // A large table's fold rewrites it whole (FOLD_LATER_ROWS): an idle fold after every write kept a warm server
        // at 1M compacting 10 s under the index lock after each `remember`. It folds such a table once a fold is due.
        if ((await store.count()) < foldLaterRows()) {
          if ((await store.unindexedRows()) > 0) await store.optimize();
          // Folded, or nothing to fold: either way the next idle fold has nothing to do (vault/idle-fold.ts reads this).
          next.writes = 0;
          touched = true;
        } else if (await maintenanceDue(store, next.writes, false)) {
          await store.optimize();
          next.writes = 0;
          touched = true;
        }
      } catch (error) {
        throw indexError('be compacted', error);
      }
    }
    hashRows(); // when nothing was written (new files without rows)
    failpoint('reindex:before-newest-keyed');
    // After the table, before the manifest: a crash between the table and these files leaves the index dirty (a
    // rebuild), and the head names the table state it describes, so files older than the table are never used.
    keyed.remove(toDelete);
    try {
      await keyed.write(store);
    } catch (error) {
      // The files only spare a search a query: without them LanceDB answers. None is left that could describe an older table.
      note(`the keyed subjects' newest rows were not kept beside the index (${errorMessage(error)}); searches ask the index for them`);
      await clearNewestKeyed(ctx.root).catch(() => undefined);
    }
    failpoint('reindex:before-manifest');
    next.dirty = false;
    if (pass !== undefined) next.pass = pass;
    // The folder as this pass leaves it: the next freshness check skips the table when it is unchanged.
    // Full-probe verified only when this pass probed every index and wrote nothing after.
    const folder = isRemote(uri) ? undefined : await indexFingerprint(uri);
    const verified = rebuilt === null && !wrote && !compacted && ((options.verify ?? false) || (m.verified === true && m.indexFiles === folder));
    if (folder === undefined) delete next.indexFiles;
    else next.indexFiles = folder;
    next.verified = verified;
    // The index files this pass probed (or found as the last probe left them) and did not rewrite since.
    if (indices !== undefined && rebuilt === null && (await indexFingerprint(indexFilesFolder(uri))) === indices) next.probedIndices = indices;
    else if (options.verify) delete next.probedIndices;
    // Nothing read, nothing removed, same inputs, same index folder: the manifest on disk is already this one.
    const sameFolder = folder === m.indexFiles && verified === (m.verified ?? false);
    const sameTombstones = tomb.count === m.tombstones.count && tomb.digest === m.tombstones.digest;
    if (touched || rebuilt !== null || inputs !== m.inputs || !sameTombstones || citedDigest !== m.cited || m.dirty || !sameFolder || next.probedIndices !== m.probedIndices) {
      const written = await writeManifest(ctx.root, next, rows ?? allShardTexts(), rebuilt === null ? warm?.shards : undefined);
      failpoint('reindex:after-manifest');
      await clearDirtyMark(ctx.root);
      warm?.keepSummary(ctx.root, written);
    }
    for (const rel of Object.keys(m.files)) if (!wanted.has(rel) && sourceKind(rel) === 'log') changedLogFacts.set(rel, null);
    // After the manifest (a rebuild wrote them beside its index build): a log's kept facts vouch for it only while it
    // has the size and mtime they name.
    if (changedLogFacts.size > 0) await writeLogFacts(ctx.root, changedLogFacts);

    const byKind = { fact: 0, page: 0, core: 0 };
    for (const entry of Object.values(next.files)) {
      byKind.fact += entry.facts;
      byKind.page += entry.pages;
      byKind.core += entry.core;
    }
    const result: ReindexResult = {
      rows: manifestRowCount(next),
      facts: byKind.fact,
      pages: byKind.page,
      core: byKind.core,
      added: adding,
      removed: toDelete.length,
      unchangedRows,
      embedded,
      files: counts,
      workers,
      rebuilt,
      ...(known === null ? {} : { statted: known.statted }),
      ms: Math.round(performance.now() - started),
    };
    finished = true;
    return result;
  } finally {
    if (warm !== undefined && finished) warm.keepStore(store, uri, dimensions);
    else {
      warm?.reset();
      store.close();
    }
  }
}

/** The manifest's summary: the one this process last wrote when its file is still that one (warm-passes.ts), else read. */
async function readSummary(root: string, warm: WarmPasses | undefined): Promise<ManifestSummary | null> {
  const held = warm?.summaryOf(root);
  if (held === undefined || held === null) return readManifestSummary(root);
  return withDirtyMark(held, await readDirtyMark(root));
}

/**
 * The stats of a pass a watcher vouched for (`ReindexOptions.changed`): the named files and any the manifest does
 * not know are statted, the others are as the manifest recorded them. `statted`: how many were.
 */
function statChanged(
  root: string,
  files: readonly string[],
  manifest: ManifestSummary,
  changed: readonly string[],
): Array<{ size: number; mtimeMs: number } | null> & { statted: number } {
  const named = new Set(changed);
  const out = Object.assign([] as Array<{ size: number; mtimeMs: number } | null>, { statted: 0 });
  for (const rel of files) {
    const entry = manifest.files[rel];
    if (entry !== undefined && !named.has(rel)) {
      out.push({ size: entry.size, mtimeMs: entry.mtimeMs });
      continue;
    }
    out.statted++;
    try {
      const s = statSync(`${root}${path.sep}${rel}`, { throwIfNoEntry: false });
      out.push(s === undefined ? null : { size: s.size, mtimeMs: s.mtimeMs });
    } catch {
      out.push(null);
    }
  }
  return out;
}

/**
 * Files projected a slice at a time: each slice's rows go to the table's parts before the next slice is projected.
 * A slice is at most 256 KB and, with small parts (tests), about half a part (a row is ~100–200 bytes of a file).
 */
const SLICE_BYTES = 256 * 1024;

async function projectInParts(
  local: Chunks.ChunkProjector,
  tasks: readonly ChunkFile[],
  parts: TableParts,
  progress: (files: number) => void,
  hashesOf: (file: FileProjection) => Map<string, string>,
  keyed: NewestKeyedPass,
  prepared?: readonly PreparedPage[],
): Promise<ChunkResult[]> {
  const results: ChunkResult[] = [];
  const sliceBytes = Math.min(SLICE_BYTES, parts.partRows * 64);
  let from = 0;
  while (from < tasks.length) {
    let to = from;
    let bytes = 0;
    while (to < tasks.length && (to === from || bytes < sliceBytes)) bytes += tasks[to++]!.content.byteLength;
    const result = local.project(tasks.slice(from, to), 'encoded', false, prepared?.slice(from, to));
    await takePart(parts, result, hashesOf, keyed);
    results.push(result);
    progress(to - from);
    from = to;
  }
  return results;
}

/**
 * Hands a projection's rows to the table's parts and hashes its new files' rows now, from their batches: held for
 * hashing after the write, every batch of a rebuild lived to its end (1.7 GB at 1M facts, issue 31).
 */
async function takePart(parts: TableParts, result: ChunkResult, hashesOf: (file: FileProjection) => Map<string, string>, keyed: NewestKeyedPass): Promise<void> {
  keyed.addBatches(result.batches ?? []);
  await parts.take(result.batches ?? []);
  delete result.batches;
  for (const file of result.files) if (file.unhashed !== undefined) hashesOf(file);
}

/**
 * The row hashes of a rebuild's logs, serialized a shard at a time as soon as every log of the shard has been
 * projected: held as maps to the end, the row hashes of a million rows were ~200 MB of the heap at a rebuild's
 * peak (issue 31), where their shards' text is ~50 MB. Shards that hold a page wait for the end, since pages are
 * projected after the logs. The texts are the ones `shardTexts` makes at the end for the same files.
 */
class ShardSeal {
  /** Each log shard's last log (its index in the logs), or Infinity for a shard that also holds a page. */
  private readonly last = new Map<string, number>();

  constructor(
    private readonly shards: RowShards,
    pages: readonly string[],
    logs: readonly string[],
  ) {
    logs.forEach((rel, i) => this.last.set(shardOf(rel), i));
    for (const rel of pages) this.last.set(shardOf(rel), Infinity);
  }

  /** Moves the row hashes (and readings) of shards whose logs all come before `to` from `changed` into `sealed`, as text. */
  sealBefore(to: number, changed: Map<string, Map<string, string> | null>, readings: Map<string, StoredReadings>, sealed: ShardTexts): void {
    const done = new Map<string, Map<string, string> | null>();
    for (const [rel, rows] of changed) {
      if ((this.last.get(shardOf(rel)) ?? Infinity) < to) done.set(rel, rows);
    }
    if (done.size === 0) return;
    const files = Object.fromEntries([...done].filter(([, rows]) => rows !== null).map(([rel]) => [rel, true]));
    // As text only: the shards' objects of a rebuild are not held to its end.
    for (const [name, text] of shardTexts(this.shards, files, done, readings)) sealed.set(name, text === null ? null : { text: text.text, digest: text.digest });
    for (const rel of done.keys()) {
      changed.delete(rel);
      readings.delete(rel);
    }
  }
}

/** Bytes of files read before they are projected: enough for a worker's chunks, few enough to bound a rebuild's memory. */
const READ_GROUP_BYTES = 16 * 1024 * 1024;

/** The files `[from, to)` of a list whose stats start at `offset` in `stats`, in runs of about READ_GROUP_BYTES. */
function readGroups(stats: ReadonlyArray<{ size: number } | null | undefined>, offset: number, count: number): Array<[number, number]> {
  const groups: Array<[number, number]> = [];
  let from = 0;
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    bytes += stats[offset + i]?.size ?? 0;
    if (bytes >= READ_GROUP_BYTES) {
      groups.push([from, i + 1]);
      from = i + 1;
      bytes = 0;
    }
  }
  if (from < count) groups.push([from, count]);
  return groups;
}

/**
 * The projection's modules, loading; a failure surfaces where they are awaited, never as an unhandled rejection.
 * `pages`: the page projection too (a rebuild); otherwise it loads when a page is projected.
 */
function loadChunks(pages = false): Promise<typeof Chunks> {
  const loading = import('./project-chunk.js').then(async (chunks) => {
    await Promise.all([chunks.rowHashing, pages ? chunks.loadPages() : undefined]);
    return chunks;
  });
  loading.catch(() => undefined);
  return loading;
}

/** How many rows a file projects, by its manifest entry. */
function rowTotal(entry: FileSummary): number {
  return entry.facts + entry.pages + entry.core;
}

async function rebuildReason(
  store: IndexStore,
  manifest: ManifestSummary | null,
  want: { clear: boolean; verify: boolean; probed: boolean; asLeft: boolean; uri: string; model: string; dimensions: number | null; root: string },
): Promise<string | null> {
  if (want.clear) return 'requested';
  if (manifest === null && !store.exists) return 'new index';
  if (manifest === null) return (await olderManifest(want.root)) ? 'it was built by an older version' : 'its manifest is missing or unreadable';
  if (manifest.dirty) return 'an earlier indexing run was interrupted';
  if (!sameLocation(manifest.uri, want.root, want.uri)) return `the index location changed to ${want.uri}`;
  if (manifest.embedder !== want.model || manifest.dimensions !== want.dimensions) {
    return `the embedder changed from ${manifest.embedder} to ${want.model}`;
  }
  const expected = manifestRowCount(manifest);
  if (!store.exists) return expected === 0 ? null : 'the index is missing';
  if (want.asLeft) return null;
  try {
    const dims = await store.tableDimensions();
    if (dims !== want.dimensions) return `the index holds ${dims ?? 'no'}-dimension vectors, the embedder makes ${want.dimensions ?? 'none'}`;
    await store.probe(want.verify, !want.probed);
    const count = await store.count();
    if (count !== expected) return `the index holds ${count} rows where the vault projects ${expected}`;
  } catch (error) {
    // Unreachable is not damaged: the caller retries and reports it; only a table read and found broken is rebuilt.
    if (isOutage(want.uri, error)) throw error;
    return `the index could not be read (${lanceMessage(error)})`;
  }
  return null;
}

/**
 * Rows written since the last compaction are searched flat, not through the full-text index: each costs every
 * query ~14 µs (Dendron vault, docs/benchmarks.md), so at this many a write folds them in. Folding costs a
 * compaction (~0.2–0.5 s on 18k rows, 1–3 s on 100k), so a `remember` and the search after it stay quick, and
 * a warm process folds what is left once idle (daemon/warm.ts).
 */
export const FOLD_IN_ROWS = 50;

/**
 * A table this large is not folded by a pass that someone waits for (a search's freshness pass, `forget`'s, the
 * watcher's) until its writes since the last compaction reach FOLD_LATER_FACTOR × FOLD_WRITES, or its flat rows
 * FOLD_LATER_FLAT_ROWS: LanceDB's compaction rewrites every fragment below a million rows, and at 1M facts (one
 * table of ~1.0M rows) a fold rewrites the whole table and remaps and merges its five indices, 7–8 s of CPU (about
 * half of it the compaction alone). Idle work folds sooner: the `reindex` command (the daemon's index job runs it
 * every 10 minutes), the daemon's and `serve`'s and the MCP server's idle fold, `reindex --fold-in`. What a waited
 * fold bounds is what flat parts cost a search at 1M (docs/benchmarks.md, "forget at 1M: the folds"): ~0.15–0.2 ms
 * a fragment (a write adds one), ~2 ms a thousand flat rows in a few fragments. A `forget` writes one fragment of
 * 4–11 rows (its fact's neighbours, whose passage held it), so the bound of twice FOLD_IN_ROWS flat rows it had
 * before had it pay a fold every 7–19 forgets at 1M; these bounds, every 80–100.
 */
export const FOLD_LATER_ROWS = 200_000;
/** Writes since the last compaction that make a fold due (each leaves a fragment at most). */
export const FOLD_WRITES = 50;
export const FOLD_LATER_FACTOR = 2;
/** Flat rows that make a fold due for a pass someone waits for on a large table (FOLD_LATER_ROWS). */
export const FOLD_LATER_FLAT_ROWS = 1_000;

/** FOLD_LATER_ROWS, or VAULTKEEPER_FOLD_LATER_ROWS for tests (a table of a few hundred rows) and measuring. */
export function foldLaterRows(): number {
  const value = process.env.VAULTKEEPER_FOLD_LATER_ROWS;
  return value !== undefined && /^[1-9]\d*$/.test(value) ? Number(value) : FOLD_LATER_ROWS;
}

/**
 * Compaction now and then, so thousands of small appends do not leave thousands of fragments or flat rows. Each
 * write adds one fragment at most, so the writes since the last compaction bound the fragments it left: a table
 * built in parts (table-parts.ts: 50 at 1M facts) starts with many, which are no reason to rewrite it. `waited`:
 * a pass someone waits for, which leaves a large table's fold to idle work (FOLD_LATER_ROWS).
 */
async function maintenanceDue(store: IndexStore, writes: number, waited: boolean): Promise<boolean> {
  const rows = await store.count();
  const later = waited && rows >= foldLaterRows();
  if (writes >= FOLD_WRITES * (later ? FOLD_LATER_FACTOR : 1)) return true;
  if (store.dimensions !== null && rows >= VECTOR_INDEX_ROWS && !(await store.hasVectorIndex())) return true;
  // A small table is folded sooner: a compaction costs little there, and flat rows would be most of it.
  const unindexed = await store.unindexedRows();
  return unindexed >= (later ? FOLD_LATER_FLAT_ROWS : FOLD_IN_ROWS) || unindexed * 2 > rows;
}

async function embedRows(
  rows: readonly IndexRow[],
  embedder: Embedder | null,
  onProgress?: (progress: ReindexProgress) => void,
): Promise<{ rows: StoredRow[]; embedded: number }> {
  if (embedder === null || rows.length === 0) return { rows: [...rows], embedded: 0 };
  const out: StoredRow[] = [];
  const before = embedderCount(embedder);
  const batch = 256;
  for (let i = 0; i < rows.length; i += batch) {
    const slice = rows.slice(i, i + batch);
    const vectors = await embedder.embed(slice.map(embeddingText));
    slice.forEach((row, j) => out.push({ ...row, vector: vectors[j]! }));
    onProgress?.({ phase: 'embed', done: Math.min(i + batch, rows.length), total: rows.length });
  }
  const after = embedderCount(embedder);
  return { rows: out, embedded: before === undefined || after === undefined ? rows.length : after - before };
}

/** Cache misses so far, when the embedder counts them (a cached embedder); undefined when it does not (then every text counts). */
function embedderCount(embedder: Embedder): number | undefined {
  return (embedder as { stats?: { embedded: number } }).stats?.embedded;
}
