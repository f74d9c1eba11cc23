/**
 * Tombstones (DESIGN §5): `.vaultkeeper/tombstones.jsonl`, one JSON object a line. A tombstoned fact
 * never comes back — not from its log, not from a page that cites or repeats it, not after a rebuild.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { VaultkeeperError } from '../core/errors.js';
import path from 'node:path';
import type { WriteLock } from '../core/lock.js';
import { containsWords, normalizeText } from '../text/normalize.js';
import { confinedPath } from '../vault/confine.js';
import { writeConfined } from '../vault/confined-write.js';

export const TOMBSTONES_FILE = '.vaultkeeper/tombstones.jsonl';

/**
 * A tombstone holds the forgotten text as a hash (`hash`: sha256 of the normalized text, `words`: its word
 * count), so the file that hides a fact does not keep it; entries written before hold `text` and still count.
 */
export interface Tombstone {
  id: string;
  text?: string | undefined;
  hash?: string | undefined;
  words?: number | undefined;
  at: string;
  reason?: string | undefined;
}

/** The hashed form of a text for a tombstone: what `repeats` compares, without the text. */
export function hashedText(text: string): { hash: string; words: number } {
  const normalized = normalizeText(text);
  return { hash: hashWords(normalized), words: normalized === '' ? 0 : normalized.split(' ').length };
}

function hashWords(normalized: string): string {
  return `sha256:${createHash('sha256').update(normalized).digest('hex')}`;
}

/**
 * One tombstone line's object, or undefined when it is not one; a plain check rather than a schema
 * library, since every search reads this file. Other keys are dropped.
 */
export function asTombstone(value: unknown): Tombstone | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { id, text, hash, words, at, reason } = value as Record<string, unknown>;
  if (typeof id !== 'string' || id === '' || typeof at !== 'string') return undefined;
  const hashed = typeof hash === 'string' && typeof words === 'number' && Number.isInteger(words) && words >= 0;
  if (typeof text !== 'string' && !hashed) return undefined;
  if (reason !== undefined && typeof reason !== 'string') return undefined;
  return {
    id,
    ...(typeof text === 'string' ? { text } : {}),
    ...(hashed ? { hash: hash as string, words: words as number } : {}),
    at,
    ...(reason === undefined ? {} : { reason: reason as string }),
  };
}

export interface TombstoneSet {
  entries: Tombstone[];
  /** Lines of the file that did not parse: writers stop on them (assertIntact), doctor --fix restores them. */
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

/** The fact id a damaged tombstone line names, if any. */
export const DAMAGED_ID_RE = /"id"\s*:\s*"(f-[0-9a-z]+)"/;

export function parseTombstones(content: string): TombstoneSet {
  const entries: Tombstone[] = [];
  const badLines: number[] = [];
  // A damaged line still forgets the fact id it names (a torn `{"id":"f-…","te`): readers never un-forget it.
  content.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    let entry: Tombstone | undefined;
    try {
      entry = asTombstone(JSON.parse(line));
    } catch {
      entry = undefined;
    }
    if (entry !== undefined) {
      entries.push(entry);
      return;
    }
    badLines.push(index + 1);
    // Kept as an entry with no text, so every reader (the index's workers get the entries) leaves the fact out.
    const id = DAMAGED_ID_RE.exec(line)?.[1];
    if (id !== undefined) entries.push({ id, text: '', at: '' });
  });
  const ids = new Set(entries.map((e) => e.id));
  const texts = [...new Set(entries.flatMap((e) => (e.text === undefined ? [] : [normalizeText(e.text)])).filter((t) => t !== ''))];
  // Hashed entries by word count: a text repeats one when a run of that many of its words hashes the same.
  const hashes = new Map<number, Set<string>>();
  for (const e of entries) if (e.hash !== undefined && e.words !== undefined && e.words > 0) hashes.set(e.words, (hashes.get(e.words) ?? new Set()).add(e.hash));
  return {
    entries,
    badLines,
    hasId: (id) => ids.has(id),
    repeats: (text) => {
      if (texts.length === 0 && hashes.size === 0) return false;
      const normalized = normalizeText(text);
      if (texts.some((t) => containsWords(normalized, t))) return true;
      if (hashes.size === 0 || normalized === '') return false;
      const words = normalized.split(' ');
      for (const [count, set] of hashes) {
        for (let i = 0; i + count <= words.length; i++) if (set.has(hashWords(words.slice(i, i + count).join(' ')))) return true;
      }
      return false;
    },
  };
}

/**
 * Adds a batch of tombstones in one atomic, durable step (the whole file rewritten by temp file, fsync and
 * rename): a full disk or a power cut leaves the file as it was or with every new line, never a torn last
 * line that would be read as no tombstone and so un-forget a fact. The caller holds the write lock and
 * commits the file. A file already damaged is not written to: the writer stops with doctor's fix.
 */
export async function appendTombstones(lock: WriteLock, entries: readonly Tombstone[]): Promise<void> {
  if (entries.length === 0) return;
  const file = await confinedPath(lock.root, TOMBSTONES_FILE);
  let existing = '';
  try {
    existing = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  assertIntact(parseTombstones(existing));
  const prefix = existing.length > 0 && !existing.endsWith('\n') ? '\n' : '';
  try {
    await writeConfined(lock.root, TOMBSTONES_FILE, existing + prefix + entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      throw new VaultkeeperError('VK_DISK_FULL', `the disk is full: no fact was forgotten (${TOMBSTONES_FILE} is as it was)`, { hint: 'free some space, then run forget again', cause: error });
    }
    throw error;
  }
}

/**
 * Stops a writer when the tombstone file holds a line that is not a tombstone (a torn write of an older
 * version, a hand edit): ignoring it would bring back the fact it forgot. Doctor restores the line.
 */
export function assertIntact(set: TombstoneSet): void {
  if (set.badLines.length === 0) return;
  const lines = set.badLines.length === 1 ? `line ${set.badLines[0]}` : `lines ${set.badLines.join(', ')}`;
  throw new VaultkeeperError('VK_TOMBSTONES_DAMAGED', `${TOMBSTONES_FILE} is damaged (${lines} not a tombstone): a forgotten fact could come back, so nothing was written`, {
    hint: 'run `vaultkeeper doctor --fix` (it restores each line it can from the fact id it names and says what to do with the rest), then run the command again',
  });
}

/** The tombstones for a writer: stops it (VK_TOMBSTONES_DAMAGED) when the file is damaged. */
export async function readTombstonesIntact(root: string): Promise<TombstoneSet> {
  const set = await readTombstones(root);
  assertIntact(set);
  return set;
}

/** Replaces the whole file (purge rewrites an entry that held the text); the caller holds the write lock and commits. */
export async function rewriteTombstones(lock: WriteLock, entries: readonly Tombstone[]): Promise<void> {
  await writeConfined(lock.root, TOMBSTONES_FILE, entries.map((e) => JSON.stringify(e)).join('\n') + (entries.length === 0 ? '' : '\n'));
}
