/**
 * What the index holds, file by file: fingerprints and the hash of every row, kept beside the index.
 * It lets a reindex touch only what changed. A pass marks the index dirty before it writes the table and clean
 * after, so a crash between the two leads to a rebuild instead of a silently stale index: the mark is a small file
 * (DIRTY_FILE) naming the pass, which the manifest written after the table names too (`pass`), so the summary of a
 * million facts' vault (~0.8 MB) is written once a pass, not twice (issue 31).
 *
 * On disk it is the summary (`index-manifest.json`: each file's fingerprint and row counts) and the row hashes
 * in shards under `index-rows/` (most of the bytes: ~55 MB at a million facts), one shard a month of logs and
 * PAGE_SHARDS for the other files. The summary names each shard's digest. The freshness check before every
 * search reads only the summary (fresh.ts); a pass that indexes reads the shards of the files it re-projects
 * and rewrites only those, so one new fact costs a month's shard, not the vault's (docs/benchmarks.md).
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { VaultkeeperError } from '../core/errors.js';
import { failpoint } from '../core/failpoint.js';
import { byCodeUnit } from '../text/compare.js';
import { confinedPath } from '../vault/confine.js';
import { writeConfined } from '../vault/confined-write.js';
import { manifestOpening, newCheckTag, readCheckFile, writeCheckFile, type CheckHeader, type CheckView, type RowCounts } from './check-file.js';
import { sortSources } from './sources.js';
import type { StoredReadings } from './state-readings.js';

export const MANIFEST_FILE = '.vaultkeeper/index-manifest.json';
/**
 * Written before a pass changes the table, holding the pass's id; the manifest that pass writes after names the
 * same id (`pass`). A mark whose id the manifest does not name is a pass that did not finish: the index is dirty.
 */
export const DIRTY_FILE = '.vaultkeeper/index-dirty';
/** The row hash shards, one JSON file each (`<shard>.json`). */
export const ROWS_DIR = '.vaultkeeper/index-rows';
/** Where versions 5 to 11 kept every row hash, in one file: deleted once a newer manifest is written. */
const LEGACY_ROWS_FILE = '.vaultkeeper/index-rows.json';
/**
 * 2: rows carry `context` and `subject`; 3: a page row is a statement, not a section; 4: what a result shows
 * is one `shown` column (store.ts); 5: the row hashes live in their own file; 6: a row's hash is of its
 * stored values, not of its JSON; 7: of their UTF-8 bytes, each after its length (row-hash.ts); 8: the
 * full-text columns hold index terms (terms.ts), not text for LanceDB to stem; 9: a file's row keys and hashes
 * are two lists in the rows file, not an object (an object of 100k keys cost a rebuild ~0.1 s to build), and a
 * row's hash is a 64-bit xxHash (row-hash.ts); 10: a fact stating a change of state in plain English has a
 * subject and its subject's words (text/state-change.ts); 11: a part page's "Part of [[hub]]." line is
 * navigation, not a row; 12: the row hashes in shards (ROWS_DIR), so a small change rewrites a shard, not all
 * of them. An older index is rebuilt: its hashes would match no row, and rewriting every row through deletes
 * costs more than a rebuild.
 */
const VERSION = 12;

export interface FileEntry {
  size: number;
  mtimeMs: number;
  fingerprint: string;
  /** Row key → row hash, in row order. */
  rows: Map<string, string>;
  /** For a page: the fact ids it cites (the facts it places). */
  cited?: string[];
}

export interface ManifestHeader extends CheckHeader {
  version: typeof VERSION;
  /** Writes since the last compaction. */
  writes: number;
  /**
   * Fingerprint of the table's index files (store.ts `indexFilesFolder`) when they last passed the full probe. A
   * `reindex` that finds them the same reads one row, not every index again: a write that adds or deletes rows
   * leaves those files as they were (only a compaction rewrites them), and a file damaged in place changes its mtime.
   */
  probedIndices?: string;
}

/** The whole manifest, every file's row hashes loaded (tests, and callers that need every row key). */
export interface Manifest extends ManifestHeader {
  files: Record<string, FileEntry>;
}

/** A file's entry without its row hashes: how many rows of each kind it projects. */
export type FileSummary = Omit<FileEntry, 'rows'> & RowCounts;


/** The manifest as `index-manifest.json` holds it: no row hashes, and the digest of each shard that holds them. */
export interface ManifestSummary extends ManifestHeader {
  /** Shard name → digest of its file. */
  rows: Record<string, string>;
  files: Record<string, FileSummary>;
}

export function emptyManifest(uri: string, embedder: string, dimensions: number | null): ManifestSummary {
  return { version: VERSION, uri, embedder, dimensions, inputs: '', tombstones: { count: 0, digest: '' }, cited: '', dirty: false, writes: 0, rows: {}, files: {} };
}

/** The manifest without row hashes, or null when it is missing, unreadable or of an older version. */
export async function readManifestSummary(root: string): Promise<ManifestSummary | null> {
  let summary: ManifestSummary | null;
  try {
    summary = asSummary(JSON.parse(await readFile(path.join(root, MANIFEST_FILE), 'utf8')));
  } catch {
    return null;
  }
  return summary === null ? null : withDirtyMark(summary, await readDirtyMark(root));
}

/** The id in DIRTY_FILE, or null when there is none (a mark that cannot be read counts as one no manifest names). */
export async function readDirtyMark(root: string): Promise<string | null> {
  try {
    return await readFile(path.join(root, DIRTY_FILE), 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : '';
  }
}

/** The summary, dirty when a mark names a pass it does not (that pass changed the table and did not finish). */
export function withDirtyMark(summary: ManifestSummary, mark: string | null): ManifestSummary {
  return mark === null || mark === summary.pass || summary.dirty ? summary : { ...summary, dirty: true };
}

/** The whole manifest, or null when it is missing or unreadable, or a shard is not the one it names (either way: rebuild). */
export async function readManifest(root: string): Promise<Manifest | null> {
  const summary = await readManifestSummary(root);
  if (summary === null) return null;
  const shards = new RowShards(root, summary.rows);
  const { rows: _digests, files, ...rest } = summary;
  const manifest: Manifest = { ...rest, files: {} };
  for (const [rel, entry] of Object.entries(files)) {
    const { facts: _f, pages: _p, core: _c, ...kept } = entry;
    const hashes = shards.tryRowsOf(rel);
    if (hashes === null) return null;
    manifest.files[rel] = { ...kept, rows: hashes };
  }
  return manifest;
}

/** True when the manifest on disk was written by an older version (its index is rebuilt, not read). */
export async function olderManifest(root: string): Promise<boolean> {
  try {
    const value: unknown = JSON.parse(await readFile(path.join(root, MANIFEST_FILE), 'utf8'));
    return isObject(value) && typeof value.version === 'number' && value.version < VERSION;
  } catch {
    return false;
  }
}

/** A file's row keys and hashes as a shard holds them: two lists, in row order; and its state-change readings. */
interface RowHashLists {
  keys: string[];
  hashes: string[];
  readings?: StoredReadings;
}

export type Shard = Record<string, RowHashLists>;

/**
 * Shards a warm process has read or written, by name, with the digest they had (reindex.ts `WarmPasses`): a shard
 * the summary still names by that digest is not read and parsed again (a month of logs: ~0.4 MB at a million facts).
 * The shards are never changed in place: a pass builds new ones.
 */
export type ShardCache = Map<string, { digest: string; shard: Shard }>;

/** Shards of the files other than logs, by a hash of the path: a few hundred pages each in a vault of thousands. */
const PAGE_SHARDS = 32;
const LOG_MONTH_RE = /^logs\/(\d{4}-\d{2})-\d{2}\.md$/;

/** The shard a file's row hashes are kept in: its month for a log (a day's new facts rewrite one month), else a hash bucket. */
export function shardOf(rel: string): string {
  const month = LOG_MONTH_RE.exec(rel)?.[1];
  if (month !== undefined) return `logs-${month}`;
  return `files-${createHash('sha256').update(rel).digest()[0]! % PAGE_SHARDS}`;
}

/**
 * The row hashes of a manifest, read a shard at a time when a file's are first asked for, each checked against
 * the digest the summary names. Synchronous: the indexer reads the files it projects the same way.
 */
export class RowShards {
  private readonly loaded = new Map<string, Shard>();

  constructor(
    private readonly root: string,
    /** Shard name → digest, as the summary names them. */
    readonly digests: Readonly<Record<string, string>>,
    private readonly cache?: ShardCache,
  ) {}

  /** A file's row hashes; a shard missing or not the one the summary names is an index error (the indexer then rebuilds). */
  rowsOf(rel: string): Map<string, string> {
    const rows = this.tryRowsOf(rel);
    if (rows === null) throw new VaultkeeperError('VK_INDEX', `the index's row hashes for ${rel} are missing or not those its manifest names`);
    return rows;
  }

  /** A file's row hashes (empty when the manifest names none), or null when its shard cannot be trusted. */
  tryRowsOf(rel: string): Map<string, string> | null {
    const shard = this.shard(shardOf(rel));
    if (shard === null) return null;
    const lists = shard[rel];
    return lists === undefined ? new Map() : rowHashes(lists);
  }

  /**
   * A file's state-change readings as its last projection kept them (state-readings.ts), none when its shard holds
   * none or cannot be trusted: then every text is read again, which gives the same rows.
   */
  readingsOf(rel: string): StoredReadings | undefined {
    const readings = this.shard(shardOf(rel))?.[rel]?.readings;
    if (!Array.isArray(readings)) return undefined;
    return readings.every((r) => Array.isArray(r) && r.length === 3 && r.every((v) => typeof v === 'string')) ? readings : undefined;
  }

  /** A shard's contents ({} when the summary names none), or null when missing, unreadable or not the digest named. */
  shard(name: string): Shard | null {
    const cached = this.loaded.get(name);
    if (cached !== undefined) return cached;
    const expected = this.digests[name];
    if (expected === undefined) return {};
    const kept = this.cache?.get(name);
    if (kept !== undefined && kept.digest === expected) {
      this.loaded.set(name, kept.shard);
      return kept.shard;
    }
    try {
      const text = readFileSync(path.join(this.root, ROWS_DIR, `${name}.json`), 'utf8');
      if (digest(text) !== expected) return null;
      const value: unknown = JSON.parse(text);
      if (!isObject(value)) return null;
      this.loaded.set(name, value as Shard);
      this.cache?.set(name, { digest: expected, shard: value as Shard });
      return value as Shard;
    } catch {
      return null;
    }
  }
}

/** The shards a pass rewrites, serialized: name → text and digest (and the shard itself), or null for a shard left with no files. */
export type ShardTexts = Map<string, { text: string; digest: string; shard?: Shard } | null>;

/**
 * Serializes the shards that `changed` touches (the row hashes of files projected this pass; null for a file gone):
 * each from the old shard, its files still in `files`, with the changed ones replaced. Done while LanceDB builds
 * a new table's indices (reindex.ts).
 */
export function shardTexts(
  old: RowShards,
  files: Readonly<Record<string, unknown>>,
  changed: ReadonlyMap<string, ReadonlyMap<string, string> | null>,
  readings: ReadonlyMap<string, StoredReadings> = new Map(),
): ShardTexts {
  const byShard = new Map<string, string[]>();
  for (const rel of changed.keys()) {
    const name = shardOf(rel);
    const list = byShard.get(name);
    if (list === undefined) byShard.set(name, [rel]);
    else list.push(rel);
  }
  const out: ShardTexts = new Map();
  for (const [name, rels] of byShard) {
    const before = old.shard(name);
    if (before === null) throw new VaultkeeperError('VK_INDEX', `the index's row hash shard ${name} is missing or not the one its manifest names`);
    const kept = new Map<string, RowHashLists>();
    for (const [rel, lists] of Object.entries(before)) if (!changed.has(rel) && rel in files) kept.set(rel, lists);
    for (const rel of rels) {
      const rows = changed.get(rel);
      const read = readings.get(rel);
      if (rows !== null && rows !== undefined && rel in files) kept.set(rel, { keys: [...rows.keys()], hashes: [...rows.values()], ...(read === undefined || read.length === 0 ? {} : { readings: read }) });
    }
    // Files in path order: a shard's bytes are the same however the passes that wrote it went (workers or not, update or rebuild).
    const shard: Shard = {};
    for (const rel of [...kept.keys()].sort(byCodeUnit)) shard[rel] = kept.get(rel)!;
    if (kept.size === 0) out.set(name, null);
    else {
      const text = JSON.stringify(shard);
      out.set(name, { text, digest: digest(text), shard });
    }
  }
  return out;
}

/** A file's row hashes from a shard, or null when they are not two string lists of one length. */
function rowHashes(value: unknown): Map<string, string> | null {
  if (!isObject(value)) return null;
  const { keys, hashes } = value as Partial<RowHashLists>;
  if (!Array.isArray(keys) || !Array.isArray(hashes) || keys.length !== hashes.length) return null;
  const rows = new Map<string, string>();
  for (let i = 0; i < keys.length; i++) {
    const key: unknown = keys[i];
    const hash: unknown = hashes[i];
    if (typeof key !== 'string' || typeof hash !== 'string') return null;
    rows.set(key, hash);
  }
  return rows;
}

/**
 * Marks the index dirty before the table is written, with a new pass id for the manifest written after to name
 * (`writeManifest`): a few bytes, where rewriting the summary cost a pass ~15-27 ms at a million facts.
 */
export async function markDirty(root: string): Promise<string> {
  const pass = randomBytes(9).toString('base64url');
  await writeConfined(root, DIRTY_FILE, pass);
  return pass;
}

/**
 * Writes the shards that changed, then the summary that names them: a crash between the two leaves a summary
 * whose shards do not match (a rebuild when they are next read). Then the check file made from the summary
 * (check-file.ts): a crash before it leaves one that names another manifest, which the freshness check does not use.
 * Shards left with no files are deleted, and so is an older version's single rows file. The caller then removes the dirty mark (`clearDirtyMark`): the summary
 * names its pass (`summary.pass`), so a crash before that leaves a mark that counts for nothing; one no summary names
 * (a pass that failed before this one rebuilt) is removed with it. Returns the summary as written, for a warm process
 * to keep.
 */
export async function writeManifest(root: string, summary: ManifestSummary, shards: ShardTexts, cache?: ShardCache): Promise<ManifestSummary> {
  const written: ManifestSummary = { ...summary, dirty: false, rows: await writeShards(root, summary.rows, shards, cache) };
  // The tag first, so the check file written after can tell this manifest by its first bytes (check-file.ts).
  const tag = newCheckTag();
  const file = await writeConfined(root, MANIFEST_FILE, `${manifestOpening(tag)},${JSON.stringify(written).slice(1)}`);
  const { size, mtimeMs } = await stat(file);
  failpoint('reindex:before-check-file');
  await writeCheckFile(root, { tag, size, mtimeMs }, summaryView(written));
  await rm(await confinedPath(root, LEGACY_ROWS_FILE), { force: true });
  return written;
}

/**
 * What the freshness check reads of the manifest: from CHECK_FILE when it was made from the manifest on disk, else
 * from the manifest itself; null when neither is readable. Either way marked dirty as `readManifestSummary` would.
 */
export async function readManifestCheck(root: string): Promise<CheckView | null> {
  const view = readCheckFile(root, VERSION, MANIFEST_FILE);
  if (view === null) {
    const summary = await readManifestSummary(root);
    return summary === null ? null : summaryView(summary);
  }
  const mark = await readDirtyMark(root);
  return mark === null || mark === view.pass ? view : { ...view, dirty: true };
}

/** A summary as the freshness check sees it. */
export function summaryView(summary: ManifestSummary): CheckView {
  const paths = sortSources(Object.keys(summary.files));
  const files = { paths, sizes: paths.map((rel) => summary.files[rel]!.size), mtimes: paths.map((rel) => summary.files[rel]!.mtimeMs) };
  return { ...summary, files, citedAgrees: () => citedDigest(summary, paths) === summary.cited, counts: () => rowCounts(summary) };
}

/** The digest of every fact id the pages cite, as the indexer records it in `cited`. */
export function citedDigest(m: Pick<ManifestSummary, 'files'>, files: readonly string[]): string {
  const cited = new Set<string>();
  for (const rel of files) for (const id of m.files[rel]?.cited ?? []) cited.add(id);
  return createHash('sha256').update([...cited].sort().join('\n')).digest('base64url');
}

/**
 * Writes the shards' files (a null shard: its file removed) and returns `rows` (shard name → digest) with them: what
 * the manifest written after names. A shard file no manifest names is never read, so they may go first (a rebuild
 * writes them while LanceDB builds its indices, reindex.ts).
 */
export async function writeShards(root: string, rows: Readonly<Record<string, string>>, shards: ShardTexts, cache?: ShardCache): Promise<Record<string, string>> {
  const digests = { ...rows };
  for (const [name, shard] of shards) {
    cache?.delete(name);
    if (shard === null) {
      delete digests[name];
      await rm(await confinedPath(root, `${ROWS_DIR}/${name}.json`), { force: true });
    } else {
      await writeConfined(root, `${ROWS_DIR}/${name}.json`, shard.text);
      digests[name] = shard.digest;
      if (shard.shard !== undefined) cache?.set(name, { digest: shard.digest, shard: shard.shard });
    }
  }
  return digests;
}

/** Removes the dirty mark, once a manifest that names its pass (or a rebuild's, which names none) is written. */
export async function clearDirtyMark(root: string): Promise<void> {
  await rm(await confinedPath(root, DIRTY_FILE), { force: true });
}

/** Deletes every shard (a rebuild starts from none: a shard a new manifest does not name would never be read). */
export async function clearShards(root: string): Promise<void> {
  const dir = await confinedPath(root, ROWS_DIR, 'folder');
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) if (name.endsWith('.json')) await rm(path.join(dir, name), { force: true });
}

export function manifestRowCount(manifest: Manifest | ManifestSummary): number {
  const { facts, pages, core } = rowCounts(manifest);
  return facts + pages + core;
}

/** Rows by kind, from the row keys (`f:` a fact, `c:` a core item, any other a page row). */
export function rowCounts(manifest: Manifest | ManifestSummary): RowCounts {
  const total: RowCounts = { facts: 0, pages: 0, core: 0 };
  for (const entry of Object.values(manifest.files) as Array<FileEntry | FileSummary>) {
    const counts = 'rows' in entry ? countRows(entry.rows.keys()) : entry;
    total.facts += counts.facts;
    total.pages += counts.pages;
    total.core += counts.core;
  }
  return total;
}

/** A file's row counts, from its row keys. */
export function countRows(keys: Iterable<string>): RowCounts {
  const counts: RowCounts = { facts: 0, pages: 0, core: 0 };
  for (const key of keys) {
    if (key.startsWith('f:')) counts.facts++;
    else if (key.startsWith('c:')) counts.core++;
    else counts.pages++;
  }
  return counts;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/**
 * A checked manifest summary, or null. Read before every search (fresh.ts), so a plain structural check rather
 * than a schema library: for a vault of thousands of files it costs a fraction of a millisecond instead of tens.
 */
function asSummary(value: unknown): ManifestSummary | null {
  if (!hasHeader(value)) return null;
  const m = value as Partial<ManifestSummary> & Record<string, unknown>;
  if (!isObject(m.rows) || !Object.values(m.rows).every((d) => typeof d === 'string') || !isObject(m.files)) return null;
  for (const entry of Object.values(m.files) as unknown[]) if (!isFileSummary(entry)) return null;
  // The check file's tag names the manifest it was made from: never carried into another one.
  const { check: _tag, ...summary } = m;
  return { ...(summary as ManifestSummary), cited: m.cited ?? '' };
}

function hasHeader(value: unknown): boolean {
  if (!isObject(value)) return false;
  const m = value as Partial<Manifest> & Record<string, unknown>;
  if (m.version !== VERSION || typeof m.uri !== 'string' || typeof m.embedder !== 'string' || typeof m.inputs !== 'string') return false;
  if (!(m.dimensions === null || typeof m.dimensions === 'number') || typeof m.dirty !== 'boolean' || typeof m.writes !== 'number') return false;
  if (m.cited !== undefined && typeof m.cited !== 'string') return false;
  const t = m.tombstones as Partial<ManifestHeader['tombstones']> | undefined;
  if (!isObject(t) || typeof t.count !== 'number' || typeof t.digest !== 'string') return false;
  if (m.pass !== undefined && typeof m.pass !== 'string') return false;
  return (m.indexFiles === undefined || typeof m.indexFiles === 'string') && (m.verified === undefined || typeof m.verified === 'boolean') && (m.probedIndices === undefined || typeof m.probedIndices === 'string');
}

function isFileBase(e: Record<string, unknown>): boolean {
  if (typeof e.size !== 'number' || typeof e.mtimeMs !== 'number' || typeof e.fingerprint !== 'string') return false;
  return e.cited === undefined || (Array.isArray(e.cited) && e.cited.every((id) => typeof id === 'string'));
}

function isFileSummary(value: unknown): value is FileSummary {
  return isObject(value) && isFileBase(value) && typeof value.facts === 'number' && typeof value.pages === 'number' && typeof value.core === 'number';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
