/**
 * What each log holds, kept so that `forget` finds a fact by its id, and the index pass after it the logs a new
 * tombstone can change, without reading every log (issue 31: at a million facts each read the 118 MB of logs).
 * For each log an index pass projected: a 32-bit hash of each live fact's id, and a 64-bit mask of its text's
 * words (normalizeText's words, each setting one bit), under LOG_FACTS_DIR, a file a month of each.
 *
 * An entry holds the size and mtime the log had when the pass read it, and is used only while the log still has
 * both; otherwise the log itself is read. So a missing, stale or damaged file costs time, never a fact, and any
 * writer may leave it behind (nothing else depends on it). Every test on it can only say "maybe": a hash or a mask
 * that matches sends the reader to the log's text.
 */
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { FNV1A_OFFSET, FNV1A_PRIME, fnv1a } from '../text/fnv.js';
import { ASCII_SEPARATOR, normalizeText } from '../text/normalize.js';
import { writeConfined } from '../vault/confined-write.js';

export const LOG_FACTS_DIR = '.vaultkeeper/log-facts';
const FORMAT = 1;
/**
 * The id hashes and the word masks in files of their own (`ids/<month>`, `words/<month>`): `forget` reads only the
 * ids, the pass after it the masks as well. A file is a line a log, `path TAB size TAB mtimeMs TAB data`, after a
 * header line: the ids as 8 hex digits each, which a reader looks for in the month's text at once (no decoding, no
 * JSON: at a million facts decoding them all cost `forget` ~0.5 s), the masks as base64 of two uint32s a fact.
 */
export type LogFactsKind = 'ids' | 'words';
const HEADER = (kind: LogFactsKind): string => `vaultkeeper log facts ${FORMAT} ${kind}\n`;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const LOG_RE = /^logs\/(\d{4}-\d{2})-\d{2}\.md$/;

/** A log's facts as one pass read them, as text: they cross a worker and land in a file as they are. */
export interface LogFactsText {
  /** 8 hex digits a live fact: its id's hash. */
  ids: string;
  /** Base64 of two little-endian uint32s (low, high) a fact: its word mask, in the same order. */
  words: string;
}

/** An entry as the month file keeps it: the log's size and mtime when read, and its facts. */
export interface LogFactsEntry extends LogFactsText {
  size: number;
  mtimeMs: number;
}

/** An id's hash, as the ids file writes it. */
export function idHash(id: string): string {
  return fnv1a(id).toString(16).padStart(8, '0');
}

/** The mask of a normalized text's words: a word sets bit (hash mod 64), so a text holding every word of another holds its bits. */
export function wordMask(normalized: string): [low: number, high: number] {
  let low = 0;
  let high = 0;
  if (normalized === '') return [0, 0];
  for (const word of normalized.split(' ')) {
    const bit = fnv1a(word) & 63;
    if (bit < 32) low |= 1 << bit;
    else high |= 1 << (bit - 32);
  }
  return [low >>> 0, high >>> 0];
}

/**
 * `wordMask(normalizeText(text))`, for an ASCII text straight from its characters: NFKC leaves ASCII as it is, so
 * its normalized words are its runs of non-separators in lower case, hashed here as they are read. A rebuild masks
 * every fact; at a million facts normalizing them, splitting the words and hashing them was ~2.6 s of its CPU
 * (issue 31). Any other text takes the long way. test/unit/log-facts.test.ts keeps the two the same.
 */
export function textMask(text: string): [low: number, high: number] {
  let low = 0;
  let high = 0;
  let hash = FNV1A_OFFSET;
  let inWord = false;
  for (let i = 0; i <= text.length; i++) {
    let code = i === text.length ? 0x20 : text.charCodeAt(i);
    if (code >= 0x80) return wordMask(normalizeText(text));
    if (!ASCII_SEPARATOR[code]!) {
      if (code >= 0x41 && code <= 0x5a) code += 0x20; // A-Z: lower case
      hash = Math.imul(hash ^ code, FNV1A_PRIME);
      inWord = true;
      continue;
    }
    if (!inWord) continue;
    const bit = hash & 63;
    if (bit < 32) low |= 1 << bit;
    else high |= 1 << (bit - 32);
    hash = FNV1A_OFFSET;
    inWord = false;
  }
  return [low >>> 0, high >>> 0];
}

function encode(values: Uint32Array): string {
  if (LITTLE_ENDIAN) return Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64');
  const bytes = Buffer.alloc(values.length * 4);
  values.forEach((value, i) => bytes.writeUInt32LE(value, i * 4));
  return bytes.toString('base64');
}

function decode(text: string): Uint32Array | null {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length % 4 !== 0) return null;
  // A view when the Buffer is aligned (Node aligns its pool to 8 bytes), else copied into an array of its own.
  if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const out = new Uint32Array(bytes.length / 4);
  if (LITTLE_ENDIAN) new Uint8Array(out.buffer).set(bytes);
  else for (let i = 0; i < out.length; i++) out[i] = bytes.readUInt32LE(i * 4);
  return out;
}

/** The text kept for a log's live facts (project-chunk.ts hands them over as the pass parses them). */
export function logFactsText(facts: ReadonlyArray<{ id: string; text: string }>): LogFactsText {
  const words = new Uint32Array(facts.length * 2);
  // Each id's `idHash` written into one buffer: a string a fact, joined, cost a 1M rebuild ~0.4 s (issue 31).
  const ids = Buffer.allocUnsafe(facts.length * 8);
  facts.forEach((fact, i) => {
    let hash = fnv1a(fact.id);
    for (let at = i * 8 + 7; at >= i * 8; at--, hash >>>= 4) ids[at] = HEX_DIGITS[hash & 15]!;
    const [low, high] = textMask(fact.text);
    words[2 * i] = low;
    words[2 * i + 1] = high;
  });
  return { ids: ids.toString('latin1'), words: encode(words) };
}

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/** True when one of the log's facts may hold every word of a text whose mask this is (`words`: the log's masks). */
export function mayHoldWords(words: Uint32Array, [low, high]: readonly [number, number]): boolean {
  for (let i = 0; i < words.length; i += 2) {
    if ((words[i]! & low) >>> 0 === low && (words[i + 1]! & high) >>> 0 === high) return true;
  }
  return false;
}

function monthOf(rel: string): string | null {
  return LOG_RE.exec(rel)?.[1] ?? null;
}

function monthFile(kind: LogFactsKind, month: string): string {
  return `${LOG_FACTS_DIR}/${kind}/${month}`;
}

/**
 * A month file read: its text, where each log's line and data are in it (in the order of the file), and the logs
 * found for an id hash. `stamp` is the line's `size TAB mtimeMs` as written: a log is kept when its stat prints the
 * same (no number parsed a log; a stamp written any other way only sends the reader to the log).
 */
interface Month {
  /** The file's bytes: searched and sliced as they are (a million facts' ids are 8 MB: no string of them is made). */
  bytes: Buffer;
  entries: Map<string, { stamp: string; start: number; end: number }>;
  hits: Map<string, Set<string>>;
}

/** A log's size and mtime as a month file writes them. */
function stampOf(stat: { size: number; mtimeMs: number }): string {
  return `${stat.size}\t${stat.mtimeMs}`;
}

/**
 * The month files this process read, by path, with the inode, size and mtime they had: `forget` and the index pass
 * after it read the same ids (8 MB at a million facts, ~0.3 s of CPU each time, issue 31), so one read serves both
 * while the file is as it was. A file this process writes is dropped (writeLogFacts); one another process replaced
 * has another inode (writeConfined renames a new file in). A month held past its file's change is no worse than a
 * stale file: an entry still vouches for a log only at the size and mtime it names.
 */
const readMonths = new Map<string, { ino: number; size: number; mtimeMs: number; month: Month | null }>();

function readMonth(file: string, kind: LogFactsKind): Month | null {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (stat === undefined) {
    readMonths.delete(file);
    return null;
  }
  const cached = readMonths.get(file);
  if (cached !== undefined && cached.ino === stat.ino && cached.size === stat.size && cached.mtimeMs === stat.mtimeMs) return cached.month;
  let month: Month | null;
  try {
    month = parseMonth(readFileSync(file), kind);
  } catch {
    month = null;
  }
  readMonths.set(file, { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs, month });
  return month;
}

/** The entries of a month file's bytes; a line that is not one is left out (its log is read instead). */
function parseMonth(bytes: Buffer, kind: LogFactsKind): Month | null {
  const header = HEADER(kind);
  if (bytes.length < header.length || bytes.toString('latin1', 0, header.length) !== header) return null;
  const entries: Month['entries'] = new Map();
  for (let at = header.length; at < bytes.length; ) {
    const newline = bytes.indexOf(NEWLINE, at);
    if (newline < 0) break; // a torn last line
    const tab1 = bytes.indexOf(TAB, at);
    const tab2 = tab1 < 0 ? -1 : bytes.indexOf(TAB, tab1 + 1);
    const tab3 = tab2 < 0 ? -1 : bytes.indexOf(TAB, tab2 + 1);
    if (tab1 > at && tab2 > tab1 && tab3 > tab2 && tab3 < newline) {
      entries.set(bytes.toString('latin1', at, tab1), { stamp: bytes.toString('latin1', tab1 + 1, tab3), start: tab3 + 1, end: newline });
    }
    at = newline + 1;
  }
  return { bytes, entries, hits: new Map() };
}

const NEWLINE = 0x0a;
const TAB = 0x09;

/** The kept id hashes or masks of a vault's logs, a month file read when one of its logs is first asked for. */
export class LogFactsReader {
  private readonly months = new Map<string, Month | null>();

  constructor(
    private readonly root: string,
    private readonly kind: LogFactsKind,
  ) {}

  private month(rel: string): Month | null {
    const month = monthOf(rel);
    if (month === null) return null;
    let read = this.months.get(month);
    if (read === undefined) {
      read = readMonth(path.join(this.root, monthFile(this.kind, month)), this.kind);
      this.months.set(month, read);
    }
    return read;
  }

  /** True when the log's facts are kept as it is now (`stat`: its size and mtime now). */
  kept(rel: string, stat: { size: number; mtimeMs: number } | null | undefined): boolean {
    if (stat === null || stat === undefined) return false;
    const entry = this.month(rel)?.entries.get(rel);
    return entry !== undefined && entry.stamp === stampOf(stat);
  }

  /** For a log `kept` vouches for, from the ids file: true when one of its facts may have the id whose hash this is. */
  mayHoldId(rel: string, hash: string): boolean {
    const month = this.month(rel);
    if (month === null) return true;
    let logs = month.hits.get(hash);
    if (logs === undefined) {
      // Where the hash is in the month's text, at a fact's place in a log's data: a search of the text at once.
      logs = new Set();
      const { bytes } = month;
      for (let at = bytes.indexOf(hash, 0, 'latin1'); at >= 0; at = bytes.indexOf(hash, at + 1, 'latin1')) {
        // The log whose data holds it: the line it is on (entries hold only lines that parsed).
        const lineStart = bytes.lastIndexOf(NEWLINE, at) + 1;
        const rel = bytes.toString('latin1', lineStart, Math.max(lineStart, bytes.indexOf(TAB, lineStart)));
        const entry = month.entries.get(rel);
        if (entry !== undefined && entry.start <= at && at + hash.length <= entry.end && (at - entry.start) % 8 === 0) logs.add(rel);
      }
      month.hits.set(hash, logs);
    }
    return logs.has(rel);
  }

  /** For a log `kept` vouches for, from the words file: its facts' masks (two a fact), or null when unreadable. */
  words(rel: string): Uint32Array | null {
    const month = this.month(rel);
    const entry = month?.entries.get(rel);
    return entry === undefined ? null : decode(month!.bytes.toString('latin1', entry.start, entry.end));
  }
}

/**
 * Keeps the facts of the logs a pass projected (`changed`: null for a log gone), rewriting their month files. A month
 * file that cannot be read is replaced by the entries given.
 */
export async function writeLogFacts(root: string, changed: ReadonlyMap<string, LogFactsEntry | null>): Promise<void> {
  const byMonth = new Map<string, string[]>();
  for (const rel of changed.keys()) {
    const month = monthOf(rel);
    if (month === null) continue;
    byMonth.set(month, [...(byMonth.get(month) ?? []), rel]);
  }
  for (const [month, rels] of byMonth) {
    for (const kind of ['ids', 'words'] as const) {
      const bytes = await readFile(path.join(root, monthFile(kind, month))).catch(() => Buffer.alloc(0));
      const before = parseMonth(bytes, kind);
      const lines = new Map<string, string>();
      for (const [rel, entry] of before?.entries ?? []) lines.set(rel, `${rel}\t${entry.stamp}\t${bytes.toString('latin1', entry.start, entry.end)}`);
      for (const rel of rels) {
        const entry = changed.get(rel);
        if (entry === null || entry === undefined) lines.delete(rel);
        else lines.set(rel, `${rel}\t${stampOf(entry)}\t${entry[kind]}`);
      }
      const body = [...lines.keys()].sort().map((rel) => `${lines.get(rel)!}\n`).join('');
      await writeConfined(root, monthFile(kind, month), Buffer.from(HEADER(kind) + body, 'latin1'));
      readMonths.delete(path.join(root, monthFile(kind, month)));
    }
  }
}
