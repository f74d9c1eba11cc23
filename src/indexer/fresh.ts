/**
 * The freshness check a search and a reindex start with, made without the lock and without LanceDB:
 * when the manifest says every file is as it was indexed, and the index folder's files are as the last
 * pass that checked them left them, there is nothing to do. It loads only the manifest, the journal,
 * the tombstones and a listing of the vault, so a search of an unchanged vault opens LanceDB once, for
 * its query, and a no-op `reindex` never opens it.
 */
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { QUICK_TIERING_FILES, quickTiering } from '../core/tiering.js';
import { isPending, readJournal, type Journal } from '../dream/journal.js';
import { listLogDates, logRelPath } from '../logs/factlog.js';
import { listWikiPages } from '../pages/discover.js';
import { DASHBOARD_PAGE } from '../vault/layout.js';
import { readTombstones, type Tombstone, type TombstoneSet } from '../tombstones/tombstones.js';
import type { VaultContext } from '../vault/context.js';
import { ChangeWatch, watchable } from './change-watch.js';
import { indexUri, isRemote, sameLocation } from './location.js';
import type { RowCounts } from './check-file.js';
import { readManifestCheck, type ManifestSummary } from './manifest.js';
import type { ReindexResult } from './result.js';
import { CORE_FILE, sourceKind } from './sources.js';

export interface FreshnessWant {
  model: string;
  dimensions: number | null;
  /** The `reindex` command: the index folder must be as the last full probe of every index left it. */
  verify: boolean;
}

/**
 * The result a reindex would return when nothing changed, or null when a real pass must decide (a file
 * changed, the index folder changed since it was last checked, the index is remote, the manifest is dirty).
 * A warm process passes its `WarmCheck`: once a check has passed, it answers from the kernel's word that nothing
 * changed since, without reading or statting anything (change-watch.ts).
 */
export async function unchangedIndex(ctx: VaultContext, want: FreshnessWant, warm?: WarmCheck): Promise<ReindexResult | null> {
  const started = performance.now();
  const uri = indexUri(ctx);
  if (isRemote(uri)) return null;
  const key = `${want.model}\u0000${want.dimensions}\u0000${want.verify}`;
  const held = await warm?.held(key);
  if (held !== undefined && held !== null) return { ...held, ms: Math.round(performance.now() - started) };
  const armed = warm?.arm(ctx.root, uri) ?? null;
  const result = await checkUnchanged(ctx.root, uri, want, started);
  if (result !== null && armed !== null) await warm?.vouch(armed, key, result);
  return result;
}

/** The check itself: the manifest against the journal, the tombstones, the index folder and every file's stat. */
async function checkUnchanged(root: string, uri: string, want: FreshnessWant, started: number): Promise<ReindexResult | null> {
  const m = await readManifestCheck(root);
  if (m === null || m.dirty || !sameLocation(m.uri, root, uri) || m.embedder !== want.model || m.dimensions !== want.dimensions) return null;
  if (m.indexFiles === undefined || (want.verify && !m.verified)) return null;
  const [journal, tombstones, files, folder] = await Promise.all([readJournal(root), readTombstones(root), vaultFiles(root), indexFingerprint(uri)]);
  if (folder !== m.indexFiles || inputsHash(journal) !== m.inputs) return null;
  const tomb = tombstoneState(tombstones, m.tombstones);
  if (tomb.added === 'all' || tomb.added.length > 0) return null;
  const { paths, sizes, mtimes } = m.files;
  if (files.length !== paths.length) return null;
  // A stat per file ahead, in a command that ends soon after (a CLI search): V8's optimizing compiler off, where the
  // process allows it. Node's own modules are loaded by now: those loaded after the change are compiled again.
  if (files.length >= QUICK_TIERING_FILES) await quickTiering();
  // The listing and the files indexed are in one order (sources.ts `sortSources`): paired by position. A file
  // elsewhere in the list (one written by an older version) is looked up; one not there at all is new.
  let position: Map<string, number> | undefined;
  // From the end of the listing (MEMORY.md, the pages, then the newest logs): a file changed is most often today's
  // log, and the check stops at the first one changed (the pass that follows stats every file anyway).
  for (let i = files.length - 1, n = 0; i >= 0; i--, n++) {
    if (n > 0 && n % STAT_BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
    const rel = files[i]!;
    let at = i;
    if (paths[i] !== rel) {
      position ??= new Map(paths.map((p, k) => [p, k]));
      at = position.get(rel) ?? -1;
      if (at < 0) return null;
    }
    const info = statOne(`${root}${path.sep}${rel}`, false);
    if (info === null || info.size !== sizes[at] || info.mtimeMs !== mtimes[at]) return null;
  }
  // The indexer digests citations once it reaches the logs; a vault without logs keeps the recorded one.
  // Every file listed is one the manifest names (and as many): the digest of its cited lists is the one over `files`.
  if (files.some((rel) => sourceKind(rel) === 'log') && !m.citedAgrees()) return null;
  return unchangedResult(m.counts(), files.length, Math.round(performance.now() - started));
}

/** A check's start: the watch's generation and the state of the linked-in files then. */
interface Armed {
  generation: number;
  linked: string;
}

/**
 * What a warm process (the MCP server, the daemon, a Vault kept open) keeps between freshness checks: the last
 * passing check's result, good while its `ChangeWatch` has seen no change since the check began. The watch is made
 * on the second check, so a process that checks once (a CLI search) never pays for watching.
 */
export class WarmCheck {
  private checks = 0;
  private watch: ChangeWatch | null = null;
  private vouched: { generation: number; key: string; result: ReindexResult; linked: string } | null = null;

  /** The result of the last check that passed, when nothing it read has changed since (null otherwise). */
  async held(key: string): Promise<ReindexResult | null> {
    const vouched = this.vouched;
    if (this.watch === null || vouched === null || vouched.key !== key) return null;
    await this.watch.settle();
    if (this.watch.generation !== vouched.generation || this.watch.linkedState() !== vouched.linked) return null;
    return vouched.result;
  }

  /** Watches (again) what a check reads, before it reads it: what to vouch with, or null (not watched). */
  arm(root: string, index: string): Armed | null {
    this.vouched = null;
    if (++this.checks < 2 || !watchable(root) || !watchable(index)) return null;
    this.watch ??= new ChangeWatch(root, index);
    if (!this.watch.arm()) return null;
    // Linked-in files are statted before the check reads them: one changed after this differs at the next use.
    return { generation: this.watch.generation, linked: this.watch.linkedState() };
  }

  /** Keeps a passing check's result when no change was seen while it ran. */
  async vouch(armed: Armed, key: string, result: ReindexResult): Promise<void> {
    const watch = this.watch;
    if (watch === null) return;
    await watch.settle();
    if (watch.generation === armed.generation) this.vouched = { ...armed, key, result };
  }

  close(): void {
    this.watch?.close();
    this.watch = null;
    this.vouched = null;
  }
}

/** What a pass that found nothing to do reports (the same figures as the full pass would). */
function unchangedResult({ facts, pages, core }: RowCounts, files: number, ms: number): ReindexResult {
  const rows = facts + pages + core;
  return {
    rows,
    facts,
    pages,
    core,
    added: 0,
    removed: 0,
    unchangedRows: rows,
    workers: 0,
    embedded: 0,
    files: { indexed: 0, updated: 0, unchanged: files, removed: 0, skipped: 0 },
    rebuilt: null,
    ms,
  };
}

/**
 * Names, sizes and mtimes of every file under a local index folder, hashed ('missing' without one).
 * LanceDB never rewrites a file in place, and a file damaged in place changes its mtime, so a folder whose
 * fingerprint is the one recorded after a check is the folder that passed it.
 */
export async function indexFingerprint(uri: string): Promise<string> {
  let names: string[];
  try {
    names = listTree(uri).sort();
  } catch (error) {
    // Unreadable: no fingerprint matches it, so the full pass decides (and says what is wrong).
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : `unreadable ${String((error as NodeJS.ErrnoException).code)}`;
  }
  const stats = await statAll(uri, names, true);
  const hash = createHash('sha256');
  for (const [i, name] of names.entries()) {
    const info = stats[i];
    if (info !== null && info !== undefined) hash.update(`${name}\u0000${info.size}\u0000${info.mtimeMs}\n`);
  }
  return hash.digest('base64url');
}

/**
 * Every entry under `dir`, as paths relative to it, folders too: what `readdir` with `recursive` lists, except
 * that a link to a folder is listed and not walked into (Node 20's readdir follows it, even out of the index or
 * round a loop; LanceDB makes no links). Walked by hand, synchronously: on Node 20 the recursive readdir took
 * 3-6 ms for an index folder of 50 entries, 6-45 ms with a promise on a loaded machine (a thread-pool round trip
 * per folder), this 0.5 ms.
 */
function listTree(dir: string, rel = '', out: string[] = []): string[] {
  for (const entry of readdirSync(rel === '' ? dir : `${dir}${path.sep}${rel}`, { withFileTypes: true })) {
    const name = rel === '' ? entry.name : `${rel}${path.sep}${entry.name}`;
    out.push(name);
    if (entry.isDirectory()) listTree(dir, name, out);
  }
  return out;
}

/** Stats between two yields to the event loop: ~2 ms of a warm process's time on this machine. */
const STAT_BATCH = 512;

/**
 * Every file's size and mtime, or null for one gone since the listing (or unreadable). Synchronous stats,
 * a batch at a time: a promise per stat goes through libuv's thread pool and took three times as long for
 * a thousand files (docs/benchmarks.md); the yield between batches keeps a warm process answering.
 */
export async function statAll(root: string, files: readonly string[], filesOnly = false): Promise<Array<{ size: number; mtimeMs: number } | null>> {
  const out: Array<{ size: number; mtimeMs: number } | null> = [];
  for (const [i, rel] of files.entries()) {
    if (i > 0 && i % STAT_BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
    // Joined by hand: path.join normalizes each path, ~6 ms of the ~16 ms a thousand stats took (docs/benchmarks.md).
    out.push(statOne(`${root}${path.sep}${rel}`, filesOnly));
  }
  return out;
}

function statOne(file: string, filesOnly: boolean): { size: number; mtimeMs: number } | null {
  try {
    const s = statSync(file, { throwIfNoEntry: false });
    return s === undefined || (filesOnly && !s.isFile()) ? null : { size: s.size, mtimeMs: s.mtimeMs };
  } catch {
    return null;
  }
}

/**
 * Everything the indexer reads: logs, wiki pages (not the dashboard) and MEMORY.md, as vault-relative paths, in
 * the order of `sortSources`: the logs by date, the pages by path, MEMORY.md last.
 */
export async function vaultFiles(root: string): Promise<string[]> {
  const [dates, pages, core] = await Promise.all([
    listLogDates(root),
    listWikiPages(root),
    stat(path.join(root, CORE_FILE)).then(() => [CORE_FILE], () => []),
  ]);
  // The dashboard charts what the vault holds; it is never an answer to a search (its Mermaid source would match).
  return [...dates.map(logRelPath), ...pages.filter((rel) => rel !== DASHBOARD_PAGE), ...core];
}

/** The hash of the watermark and skipped dates that rows are projected with (the tombstones: `tombstoneState`). */
export function inputsHash(journal: Journal): string {
  const hash = createHash('sha256');
  hash.update(`w=${journal.watermark ?? ''}\n`);
  for (const date of [...journal.skipped].sort()) hash.update(`s=${date}\n`);
  return hash.digest('base64url');
}

/**
 * The tombstones as the manifest records them (how many, and a digest of them in file order), and those added
 * since `recorded`: the entries after the recorded ones when the file still starts with them (forget appends),
 * 'all' when it does not (purge rewrote an entry, a line was lost): then every file is projected again.
 */
export function tombstoneState(tombstones: TombstoneSet, recorded: { count: number; digest: string }): { count: number; digest: string; added: Tombstone[] | 'all' } {
  const hash = createHash('sha256');
  let prefix: string | null = recorded.count === 0 ? recorded.digest : null;
  tombstones.entries.forEach((entry, i) => {
    hash.update(`t=${entry.id}\u0000${entry.text ?? entry.hash}\n`);
    if (i + 1 === recorded.count) prefix = hash.copy().digest('base64url');
  });
  const count = tombstones.entries.length;
  const digest = count === 0 ? '' : hash.digest('base64url');
  const added = prefix === recorded.digest && recorded.count <= count ? tombstones.entries.slice(recorded.count) : 'all';
  return { count, digest, added };
}

/**
 * How many live facts (not forgotten) a log holds, by the index's manifest, without parsing the log: `status` at
 * a million facts parsed every pending log (4.5 s, issue 31). Known for a log the index projected as pending (every
 * live fact a row) from the file as it is now (same size and mtime) with the tombstones as they are now; undefined
 * otherwise, and then the caller parses the log.
 */
export function indexedLiveFacts(root: string, m: ManifestSummary | null, tombstones: TombstoneSet, journal: Journal): (date: string) => number | undefined {
  if (m === null || m.dirty || m.inputs !== inputsHash(journal)) return () => undefined;
  const tomb = tombstoneState(tombstones, m.tombstones);
  if (tomb.added === 'all' || tomb.added.length > 0) return () => undefined;
  return (date) => {
    const rel = logRelPath(date);
    const entry = m.files[rel];
    if (entry === undefined || !isPending(journal, date)) return undefined;
    const info = statOne(`${root}${path.sep}${rel}`, true);
    return info !== null && info.size === entry.size && info.mtimeMs === entry.mtimeMs ? entry.facts : undefined;
  };
}
