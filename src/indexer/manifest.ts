/**
 * What the index holds, file by file: fingerprints and the hash of every row, kept beside the index.
 * It lets a reindex touch only what changed. `dirty` is set before the table is written and cleared
 * after, so a crash between the two leads to a rebuild instead of a silently stale index.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

export const MANIFEST_FILE = '.vaultkeeper/index-manifest.json';
/** 2: rows carry `context` and `subject` (an older index is rebuilt). */
const VERSION = 2;

const FileEntry = z.object({
  size: z.number(),
  mtimeMs: z.number(),
  fingerprint: z.string(),
  /** row key → row hash */
  rows: z.record(z.string(), z.string()),
  /** For a page: the fact ids it cites (the facts it places). */
  cited: z.array(z.string()).optional(),
});
export type FileEntry = z.infer<typeof FileEntry>;

const ManifestSchema = z.object({
  version: z.literal(VERSION),
  uri: z.string(),
  embedder: z.string(),
  dimensions: z.number().nullable(),
  /** Hash of the watermark, skipped dates and tombstones the rows were projected with. */
  inputs: z.string(),
  /** Hash of every fact id the pages cite: consolidated logs show their uncited facts, so it matters to them. */
  cited: z.string().default(''),
  dirty: z.boolean(),
  /** Writes since the last compaction. */
  writes: z.number(),
  files: z.record(z.string(), FileEntry),
});
export type Manifest = z.infer<typeof ManifestSchema>;

export function emptyManifest(uri: string, embedder: string, dimensions: number | null): Manifest {
  return { version: VERSION, uri, embedder, dimensions, inputs: '', cited: '', dirty: false, writes: 0, files: {} };
}

/** The manifest, or null when it is missing or unreadable (either way: rebuild). */
export async function readManifest(root: string): Promise<Manifest | null> {
  try {
    const parsed = ManifestSchema.safeParse(JSON.parse(await readFile(path.join(root, MANIFEST_FILE), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export async function writeManifest(root: string, manifest: Manifest): Promise<void> {
  const file = path.join(root, MANIFEST_FILE);
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(manifest));
  await rename(temp, file);
}

export function manifestRowCount(manifest: Manifest): number {
  let count = 0;
  for (const entry of Object.values(manifest.files)) count += Object.keys(entry.rows).length;
  return count;
}
