/**
 * Tombstones (DESIGN §5): `.vaultkeeper/tombstones.jsonl`, one JSON object a line. A tombstoned fact
 * never comes back — not from its log, not from a page that cites or repeats it, not after a rebuild.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { WriteLock } from '../core/lock.js';
import { containsWords, normalizeText } from '../text/normalize.js';
import { confinedPath } from '../vault/confine.js';
import { appendConfined } from '../vault/confined-write.js';

export const TOMBSTONES_FILE = '.vaultkeeper/tombstones.jsonl';

export interface Tombstone {
  id: string;
  text: string;
  at: string;
  reason?: string | undefined;
}

/**
 * One tombstone line's object, or undefined when it is not one; a plain check rather than a schema
 * library, since every search reads this file. Other keys are dropped.
 */
export function asTombstone(value: unknown): Tombstone | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { id, text, at, reason } = value as Record<string, unknown>;
  if (typeof id !== 'string' || id === '' || typeof text !== 'string' || typeof at !== 'string') return undefined;
  if (reason !== undefined && typeof reason !== 'string') return undefined;
  return reason === undefined ? { id, text, at } : { id, text, at, reason };
}

export interface TombstoneSet {
  entries: Tombstone[];
  /** Lines of the file that did not parse (reported by doctor, otherwise ignored). */
  badLines: number[];
  hasId(id: string): boolean;
  /** True when the text contains a tombstoned text as a run of whole words. */
  repeats(text: string): boolean;
}

export async function readTombstones(root: string): Promise<TombstoneSet> {
  let content = '';
  try {
    content = await readFile(path.join(root, TOMBSTONES_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return parseTombstones(content);
}

export function parseTombstones(content: string): TombstoneSet {
  const entries: Tombstone[] = [];
  const badLines: number[] = [];
  content.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      const entry = asTombstone(JSON.parse(line));
      if (entry !== undefined) entries.push(entry);
      else badLines.push(index + 1);
    } catch {
      badLines.push(index + 1);
    }
  });
  const ids = new Set(entries.map((e) => e.id));
  const texts = [...new Set(entries.map((e) => normalizeText(e.text)).filter((t) => t !== ''))];
  return {
    entries,
    badLines,
    hasId: (id) => ids.has(id),
    repeats: (text) => {
      if (texts.length === 0) return false;
      const normalized = normalizeText(text);
      return texts.some((t) => containsWords(normalized, t));
    },
  };
}

/** Appends tombstones; the caller holds the write lock and commits the file. */
export async function appendTombstones(lock: WriteLock, entries: readonly Tombstone[]): Promise<void> {
  if (entries.length === 0) return;
  const file = await confinedPath(lock.root, TOMBSTONES_FILE);
  await mkdir(path.dirname(file), { recursive: true });
  let prefix = '';
  try {
    const existing = await readFile(file, 'utf8');
    if (existing.length > 0 && !existing.endsWith('\n')) prefix = '\n';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // O_NOFOLLOW: a link swapped in after the check above is refused, not appended through.
  await appendConfined(lock.root, TOMBSTONES_FILE, prefix + entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
}
