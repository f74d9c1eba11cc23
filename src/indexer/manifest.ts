/**
 * What the index holds, file by file: fingerprints and the hash of every row, kept beside the index.
 * It lets a reindex touch only what changed. `dirty` is set before the table is written and cleared
 * after, so a crash between the two leads to a rebuild instead of a silently stale index.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeConfined } from '../vault/confined-write.js';

export const MANIFEST_FILE = '.vaultkeeper/index-manifest.json';
/**
 * 2: rows carry `context` and `subject`; 3: a page row is a statement, not a section; 4: what a result shows
 * is one `shown` column (store.ts). An older index is rebuilt.
 */
const VERSION = 4;

export interface FileEntry {
  size: number;
  mtimeMs: number;
  fingerprint: string;
  /** row key → row hash */
  rows: Record<string, string>;
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

export function emptyManifest(uri: string, embedder: string, dimensions: number | null): Manifest {
  return { version: VERSION, uri, embedder, dimensions, inputs: '', cited: '', dirty: false, writes: 0, files: {} };
}

/** The manifest, or null when it is missing or unreadable (either way: rebuild). */
export async function readManifest(root: string): Promise<Manifest | null> {
  try {
    return asManifest(JSON.parse(await readFile(path.join(root, MANIFEST_FILE), 'utf8')));
  } catch {
    return null;
  }
}

export async function writeManifest(root: string, manifest: Manifest): Promise<void> {
  await writeConfined(root, MANIFEST_FILE, JSON.stringify(manifest));
}

export function manifestRowCount(manifest: Manifest): number {
  let count = 0;
  for (const entry of Object.values(manifest.files)) count += Object.keys(entry.rows).length;
  return count;
}

/**
 * A checked manifest, or null. Read before every search, so a plain structural check rather than a schema
 * library: for a vault of thousands of files it costs a fraction of a millisecond instead of tens.
 */
export function asManifest(value: unknown): Manifest | null {
  if (!isObject(value)) return null;
  const m = value as Partial<Manifest> & Record<string, unknown>;
  if (m.version !== VERSION || typeof m.uri !== 'string' || typeof m.embedder !== 'string' || typeof m.inputs !== 'string') return null;
  if (!(m.dimensions === null || typeof m.dimensions === 'number') || typeof m.dirty !== 'boolean' || typeof m.writes !== 'number') return null;
  if (m.cited !== undefined && typeof m.cited !== 'string') return null;
  if ((m.indexFiles !== undefined && typeof m.indexFiles !== 'string') || (m.verified !== undefined && typeof m.verified !== 'boolean')) return null;
  if (!isObject(m.files)) return null;
  for (const entry of Object.values(m.files) as unknown[]) if (!isFileEntry(entry)) return null;
  return { ...(m as Manifest), cited: m.cited ?? '' };
}

function isFileEntry(value: unknown): value is FileEntry {
  if (!isObject(value)) return false;
  const e = value as Record<string, unknown>;
  if (typeof e.size !== 'number' || typeof e.mtimeMs !== 'number' || typeof e.fingerprint !== 'string' || !isObject(e.rows)) return false;
  for (const hash of Object.values(e.rows)) if (typeof hash !== 'string') return false;
  return e.cited === undefined || (Array.isArray(e.cited) && e.cited.every((id) => typeof id === 'string'));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
