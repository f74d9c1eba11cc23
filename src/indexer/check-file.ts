/**
 * What the freshness check reads of the manifest (fresh.ts), kept beside it in a file of its own: the header's
 * fields, each file's size and mtime as parallel lists, the row counts and whether `cited` is the digest of the
 * files' cited ids. At a million facts the manifest is ~0.8 MB of objects a fresh process parsed (~13 ms) and walked
 * (~4.5 ms) before every CLI search; this is a fraction of that (docs/benchmarks.md).
 *
 * Bound to one manifest by a random tag, its size and its mtime: the manifest written with it starts with
 * `{"check":"<tag>"`, so a stat and a read of its first bytes say whether this file was made from it. Written after
 * the manifest: a crash between the two, another writer of the manifest (one that kept the opening it parsed changes
 * the size or the mtime), a copy of either file alone, all leave a manifest this file does not name, and the check
 * reads the manifest instead (the same answer, slower). A copy of the vault that keeps mtimes (`cp -a`) keeps both.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';
import { writeConfined } from '../vault/confined-write.js';

export const CHECK_FILE = '.vaultkeeper/index-check.json';
const FORMAT = 1;

/** Rows by kind, as the manifest counts them. */
export interface RowCounts {
  facts: number;
  pages: number;
  core: number;
}

/** The manifest header's fields the check reads; manifest.ts's `ManifestHeader` extends it. */
export interface CheckHeader {
  version: number;
  uri: string;
  embedder: string;
  dimensions: number | null;
  /** Hash of the watermark and skipped dates the rows were projected with (tombstones: `tombstones`). */
  inputs: string;
  /**
   * The tombstones the rows were projected with: how many entries, and the digest of those entries. A pass that
   * finds the same entries and more re-projects only the files the new ones touch (reindex.ts); any other change
   * re-projects every file.
   */
  tombstones: { count: number; digest: string };
  /** Hash of every fact id the pages cite: consolidated logs show their uncited facts, so it matters to them. */
  cited: string;
  /** An earlier pass changed the table and did not finish (on disk: DIRTY_FILE, or `true` from an older version). */
  dirty: boolean;
  /** The id of the pass that wrote this manifest after changing the table (its DIRTY_FILE mark). */
  pass?: string;
  /**
   * Fingerprint of the index folder's files (names, sizes, mtimes) when a pass last checked or wrote the
   * table; a freshness check that finds the same folder skips opening it (fresh.ts). Local indexes only.
   */
  indexFiles?: string;
  /** True when that folder passed the full probe of every index (the `reindex` command) and was not written since. */
  verified?: boolean;
}

/** The manifest as the freshness check sees it, from the manifest itself or from CHECK_FILE. */
export interface CheckView extends CheckHeader {
  /** Each file's size and mtime as indexed. */
  files: IndexedFiles;
  /** True when `cited` is the digest of every cited id the files' entries list. */
  citedAgrees(): boolean;
  counts(): RowCounts;
}

/**
 * The files as indexed, as parallel lists: each one's path, size and mtime. Written in the order `vaultFiles` lists
 * (sources.ts `sortSources`), so the check pairs the listing with them by position, without a lookup per file.
 */
export interface IndexedFiles {
  paths: readonly string[];
  sizes: readonly number[];
  mtimes: readonly number[];
}

/** The first bytes of a manifest written with `tag`. */
export function manifestOpening(tag: string): string {
  return `{"check":${JSON.stringify(tag)}`;
}

export function newCheckTag(): string {
  return randomBytes(12).toString('base64url');
}

/** The manifest file as CHECK_FILE names it: its tag, and its size and mtime once written. */
export interface ManifestIdentity {
  tag: string;
  size: number;
  mtimeMs: number;
}

/** Writes CHECK_FILE for the manifest just written. */
export async function writeCheckFile(root: string, manifest: ManifestIdentity, view: CheckView): Promise<void> {
  const record = {
    format: FORMAT,
    tag: manifest.tag,
    manifest: { size: manifest.size, mtimeMs: manifest.mtimeMs },
    version: view.version,
    uri: view.uri,
    embedder: view.embedder,
    dimensions: view.dimensions,
    inputs: view.inputs,
    tombstones: view.tombstones,
    cited: view.cited,
    citedAgrees: view.citedAgrees(),
    ...(view.pass === undefined ? {} : { pass: view.pass }),
    ...(view.indexFiles === undefined ? {} : { indexFiles: view.indexFiles }),
    ...(view.verified === undefined ? {} : { verified: view.verified }),
    counts: view.counts(),
    paths: view.files.paths,
    sizes: view.files.sizes,
    mtimes: view.files.mtimes,
  };
  await writeConfined(root, CHECK_FILE, JSON.stringify(record));
}

/**
 * CHECK_FILE as a view, when it is whole and the manifest on disk starts with its tag; null otherwise (missing,
 * unreadable, malformed, made from another manifest). Not yet marked dirty: the caller applies the dirty mark.
 * Synchronous: two small reads in a command that waits for them, without the thread pool's round trips.
 */
export function readCheckFile(root: string, version: number, manifestRel: string): CheckView | null {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path.join(root, CHECK_FILE), 'utf8'));
  } catch {
    return null;
  }
  const view = asView(value, version);
  if (view === null) return null;
  const { tag, manifest } = value as { tag: string; manifest: { size: number; mtimeMs: number } };
  return isManifest(path.join(root, manifestRel), { tag, ...manifest }) ? view : null;
}

/** True when `file` has the size and mtime named and opens with the tag. */
function isManifest(file: string, manifest: ManifestIdentity): boolean {
  const want = Buffer.from(manifestOpening(manifest.tag));
  const got = Buffer.alloc(want.length);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    const info = fstatSync(fd);
    if (info.size !== manifest.size || info.mtimeMs !== manifest.mtimeMs) return false;
    return readSync(fd, got, 0, got.length, 0) === got.length && got.equals(want);
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

function asView(value: unknown, version: number): CheckView | null {
  if (typeof value !== 'object' || value === null) return null;
  const c = value as Record<string, unknown>;
  const m = c.manifest as Record<string, unknown> | null;
  if (typeof m !== 'object' || m === null || typeof m.size !== 'number' || typeof m.mtimeMs !== 'number') return null;
  if (c.format !== FORMAT || c.version !== version || typeof c.tag !== 'string' || typeof c.uri !== 'string' || typeof c.embedder !== 'string') return null;
  if (!(c.dimensions === null || typeof c.dimensions === 'number') || typeof c.inputs !== 'string' || typeof c.cited !== 'string' || typeof c.citedAgrees !== 'boolean') return null;
  const t = c.tombstones as Record<string, unknown> | null;
  if (typeof t !== 'object' || t === null || typeof t.count !== 'number' || typeof t.digest !== 'string') return null;
  if ((c.pass !== undefined && typeof c.pass !== 'string') || (c.indexFiles !== undefined && typeof c.indexFiles !== 'string') || (c.verified !== undefined && typeof c.verified !== 'boolean')) return null;
  const n = c.counts as Record<string, unknown> | null;
  if (typeof n !== 'object' || n === null || typeof n.facts !== 'number' || typeof n.pages !== 'number' || typeof n.core !== 'number') return null;
  const { paths, sizes, mtimes } = c;
  if (!Array.isArray(paths) || !Array.isArray(sizes) || !Array.isArray(mtimes) || sizes.length !== paths.length || mtimes.length !== paths.length) return null;
  for (let i = 0; i < paths.length; i++) {
    if (typeof paths[i] !== 'string' || typeof sizes[i] !== 'number' || typeof mtimes[i] !== 'number') return null;
  }
  const files: IndexedFiles = { paths: paths as string[], sizes: sizes as number[], mtimes: mtimes as number[] };
  const counts = { facts: n.facts as number, pages: n.pages as number, core: n.core as number };
  const citedAgrees = c.citedAgrees as boolean;
  return {
    version,
    uri: c.uri as string,
    embedder: c.embedder as string,
    dimensions: c.dimensions as number | null,
    inputs: c.inputs as string,
    tombstones: { count: t.count as number, digest: t.digest as string },
    cited: c.cited as string,
    dirty: false,
    ...(c.pass === undefined ? {} : { pass: c.pass as string }),
    ...(c.indexFiles === undefined ? {} : { indexFiles: c.indexFiles as string }),
    ...(c.verified === undefined ? {} : { verified: c.verified as boolean }),
    files,
    citedAgrees: () => citedAgrees,
    counts: () => counts,
  } as CheckView;
}
