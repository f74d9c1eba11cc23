/**
 * What the index holds, file by file: fingerprints and the hash of every row, kept beside the index.
 * It lets a reindex touch only what changed. `dirty` is set before the table is written and cleared
 * after, so a crash between the two leads to a rebuild instead of a silently stale index.
 *
 * On disk it is two files: the row hashes (`index-rows.json`, most of the bytes) and the rest with each
 * file's row counts (`index-manifest.json`), which names the digest of the rows file it goes with. The
 * freshness check before every search reads only the second (fresh.ts); a pass that indexes reads both.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeConfined } from '../vault/confined-write.js';

export const MANIFEST_FILE = '.vaultkeeper/index-manifest.json';
export const ROWS_FILE = '.vaultkeeper/index-rows.json';
/**
 * 2: rows carry `context` and `subject`; 3: a page row is a statement, not a section; 4: what a result shows
 * is one `shown` column (store.ts); 5: the row hashes live in their own file; 6: a row's hash is of its
 * stored values, not of its JSON; 7: of their UTF-8 bytes, each after its length (row-hash.ts); 8: the
 * full-text columns hold index terms (terms.ts), not text for LanceDB to stem; 9: a file's row keys and hashes
 * are two lists in the rows file, not an object (an object of 100k keys cost a rebuild ~0.1 s to build), and a
 * row's hash is a 64-bit xxHash (row-hash.ts); 10: a fact stating a change of state in plain English has a
 * subject and its subject's words (text/state-change.ts); 11: a part page's "Part of [[hub]]." line is
 * navigation, not a row. An older
 * index is rebuilt: its hashes would match no row, and rewriting every row through deletes costs more than a rebuild.
 */
const VERSION = 11;

export interface FileEntry {
  size: number;
  mtimeMs: number;
  fingerprint: string;
  /** Row key → row hash, in row order. */
  rows: Map<string, string>;
  /** For a page: the fact ids it cites (the facts it places). */
  cited?: string[];
}

export interface Manifest {
  version: typeof VERSION;
  uri: string;
  embedder: string;
  dimensions: number | null;
  /** Hash of the watermark, skipped dates and tombstones the rows were projected with. */
  inputs: string;
  /** Hash of every fact id the pages cite: consolidated logs show their uncited facts, so it matters to them. */
  cited: string;
  dirty: boolean;
  /** Writes since the last compaction. */
  writes: number;
  /**
   * Fingerprint of the index folder's files (names, sizes, mtimes) when a pass last checked or wrote the
   * table; a freshness check that finds the same folder skips opening it (fresh.ts). Local indexes only.
   */
  indexFiles?: string;
  /** True when that folder passed the full probe of every index (the `reindex` command) and was not written since. */
  verified?: boolean;
  files: Record<string, FileEntry>;
}

/** A file's entry without its row hashes: how many rows of each kind it projects. */
export type FileSummary = Omit<FileEntry, 'rows'> & RowCounts;

export interface RowCounts {
  facts: number;
  pages: number;
  core: number;
}

/** The manifest as `index-manifest.json` holds it: no row hashes, and the digest of the rows file it goes with. */
export type ManifestSummary = Omit<Manifest, 'files'> & { rows: string; files: Record<string, FileSummary> };

export function emptyManifest(uri: string, embedder: string, dimensions: number | null): Manifest {
  return { version: VERSION, uri, embedder, dimensions, inputs: '', cited: '', dirty: false, writes: 0, files: {} };
}

/** The manifest without row hashes, or null when it is missing, unreadable or of an older version. */
export async function readManifestSummary(root: string): Promise<ManifestSummary | null> {
  try {
    return asSummary(JSON.parse(await readFile(path.join(root, MANIFEST_FILE), 'utf8')));
  } catch {
    return null;
  }
}

/** The whole manifest, or null when it is missing or unreadable, or its rows file is not the one it names (either way: rebuild). */
export async function readManifest(root: string): Promise<Manifest | null> {
  try {
    const summary = asSummary(JSON.parse(await readFile(path.join(root, MANIFEST_FILE), 'utf8')));
    if (summary === null) return null;
    const text = await readFile(path.join(root, ROWS_FILE), 'utf8');
    if (digest(text) !== summary.rows) return null;
    const rows: unknown = JSON.parse(text);
    if (!isObject(rows)) return null;
    const { rows: _digest, files, ...rest } = summary;
    const manifest: Manifest = { ...rest, files: {} };
    for (const [rel, entry] of Object.entries(files)) {
      const { facts: _f, pages: _p, core: _c, ...kept } = entry;
      const hashes = rowHashes(rows[rel]);
      if (hashes === null) return null;
      manifest.files[rel] = { ...kept, rows: hashes };
    }
    return manifest;
  } catch {
    return null;
  }
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

/** The rows file of a manifest, as written: its text and the digest the manifest names it by. */
export interface RowsFile {
  text: string;
  digest: string;
}

/** A file's row keys and hashes as the rows file holds them: two lists, in row order. */
interface RowHashLists {
  keys: string[];
  hashes: string[];
}

/** Serializes a manifest's row hashes (~6 MB at 100k facts): reindex.ts does it while LanceDB builds the indices. */
export function rowsFile(manifest: Manifest): RowsFile {
  const rows: Record<string, RowHashLists> = {};
  for (const [rel, entry] of Object.entries(manifest.files)) rows[rel] = { keys: [...entry.rows.keys()], hashes: [...entry.rows.values()] };
  const text = JSON.stringify(rows);
  return { text, digest: digest(text) };
}

/** A file's row hashes from the rows file, or null when they are not two string lists of one length. */
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
 * Writes the rows file, then the manifest that names it: a crash between the two leaves a manifest whose rows
 * file does not match (a rebuild). `rows` is `rowsFile(manifest)`, when it was made ahead.
 */
export async function writeManifest(root: string, manifest: Manifest, rows: RowsFile = rowsFile(manifest)): Promise<void> {
  const files: Record<string, FileSummary> = {};
  for (const [rel, { rows: hashes, ...entry }] of Object.entries(manifest.files)) files[rel] = { ...entry, ...countRows(hashes.keys()) };
  await writeConfined(root, ROWS_FILE, rows.text);
  const summary: ManifestSummary = { ...manifest, rows: rows.digest, files };
  await writeConfined(root, MANIFEST_FILE, JSON.stringify(summary));
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

function countRows(keys: Iterable<string>): RowCounts {
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
  if (typeof m.rows !== 'string' || !isObject(m.files)) return null;
  for (const entry of Object.values(m.files) as unknown[]) if (!isFileSummary(entry)) return null;
  return { ...(m as ManifestSummary), cited: m.cited ?? '' };
}

function hasHeader(value: unknown): boolean {
  if (!isObject(value)) return false;
  const m = value as Partial<Manifest> & Record<string, unknown>;
  if (m.version !== VERSION || typeof m.uri !== 'string' || typeof m.embedder !== 'string' || typeof m.inputs !== 'string') return false;
  if (!(m.dimensions === null || typeof m.dimensions === 'number') || typeof m.dirty !== 'boolean' || typeof m.writes !== 'number') return false;
  if (m.cited !== undefined && typeof m.cited !== 'string') return false;
  return (m.indexFiles === undefined || typeof m.indexFiles === 'string') && (m.verified === undefined || typeof m.verified === 'boolean');
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
