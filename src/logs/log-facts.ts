/**
 * What each log holds, kept so that `forget` finds a fact by its id, and the index pass after it the logs a new
 * tombstone can change, without reading every log (issue 31: at a million facts each read the 118 MB of logs).
 * For each log an index pass projected: a 32-bit hash of each live fact's id, and a 64-bit mask of its text's
 * words (normalizeText's words, each setting one bit), under LOG_FACTS_DIR, a file a month.
 *
 * An entry holds the size and mtime the log had when the pass read it, and is used only while the log still has
 * both; otherwise the log itself is read. So a missing, stale or damaged file costs time, never a fact, and any
 * writer may leave it behind (nothing else depends on it). Every test on it can only say "maybe": a hash or a mask
 * that matches sends the reader to the log's text.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { normalizeText } from '../text/normalize.js';
import { writeConfined } from '../vault/confined-write.js';

export const LOG_FACTS_DIR = '.vaultkeeper/log-facts';
const FORMAT = 1;
const LOG_RE = /^logs\/(\d{4}-\d{2})-\d{2}\.md$/;

/** A log's facts as one pass read them: base64 of little-endian uint32s, so they cross a worker and a file as text. */
export interface LogFactsText {
  /** One id hash per live fact. */
  ids: string;
  /** Two words (low, high) of each fact's word mask, in the same order. */
  words: string;
}

/** An entry as the month file keeps it: the log's size and mtime when read, and its facts. */
export interface LogFactsEntry extends LogFactsText {
  size: number;
  mtimeMs: number;
}

/** A log's facts, decoded. */
export interface LogFacts {
  ids: Uint32Array;
  words: Uint32Array;
}

/** FNV-1a over UTF-16 code units: cheap, and the same in every thread. */
function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export const idHash = fnv;

/** The mask of a normalized text's words: a word sets bit (hash mod 64), so a text holding every word of another holds its bits. */
export function wordMask(normalized: string): [low: number, high: number] {
  let low = 0;
  let high = 0;
  if (normalized === '') return [0, 0];
  for (const word of normalized.split(' ')) {
    const bit = fnv(word) & 63;
    if (bit < 32) low |= 1 << bit;
    else high |= 1 << (bit - 32);
  }
  return [low >>> 0, high >>> 0];
}

function encode(values: Uint32Array): string {
  const bytes = Buffer.alloc(values.length * 4);
  values.forEach((value, i) => bytes.writeUInt32LE(value, i * 4));
  return bytes.toString('base64');
}

function decode(text: string): Uint32Array | null {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length % 4 !== 0) return null;
  const out = new Uint32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readUInt32LE(i * 4);
  return out;
}

/** The text kept for a log's live facts (project-log.ts hands them over as the pass parses them). */
export function logFactsText(facts: ReadonlyArray<{ id: string; text: string }>): LogFactsText {
  const ids = new Uint32Array(facts.length);
  const words = new Uint32Array(facts.length * 2);
  facts.forEach((fact, i) => {
    ids[i] = idHash(fact.id);
    const [low, high] = wordMask(normalizeText(fact.text));
    words[2 * i] = low;
    words[2 * i + 1] = high;
  });
  return { ids: encode(ids), words: encode(words) };
}

/** True when one of the log's facts may have this id. */
export function mayHoldId(facts: LogFacts, hash: number): boolean {
  return facts.ids.includes(hash);
}

/** True when one of the log's facts may hold every word of a text whose mask this is. */
export function mayHoldWords(facts: LogFacts, [low, high]: readonly [number, number]): boolean {
  for (let i = 0; i < facts.words.length; i += 2) {
    if ((facts.words[i]! & low) >>> 0 === low && (facts.words[i + 1]! & high) >>> 0 === high) return true;
  }
  return false;
}

function monthOf(rel: string): string | null {
  return LOG_RE.exec(rel)?.[1] ?? null;
}

function monthFile(month: string): string {
  return `${LOG_FACTS_DIR}/${month}.json`;
}

type MonthEntries = Record<string, LogFactsEntry>;

function parseMonth(text: string): MonthEntries | null {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || (value as { format?: unknown }).format !== FORMAT) return null;
    const logs = (value as { logs?: unknown }).logs;
    return typeof logs === 'object' && logs !== null ? (logs as MonthEntries) : null;
  } catch {
    return null;
  }
}

/** The kept facts of a vault's logs, a month file read when one of its logs is first asked for. */
export class LogFactsReader {
  private readonly months = new Map<string, MonthEntries | null>();

  constructor(private readonly root: string) {}

  /** A log's facts, or null when none are kept for it as it is now (`stat`: its size and mtime now). */
  of(rel: string, stat: { size: number; mtimeMs: number } | null | undefined): LogFacts | null {
    if (stat === null || stat === undefined) return null;
    const month = monthOf(rel);
    if (month === null) return null;
    let entries = this.months.get(month);
    if (entries === undefined) {
      try {
        entries = parseMonth(readFileSync(path.join(this.root, monthFile(month)), 'utf8'));
      } catch {
        entries = null;
      }
      this.months.set(month, entries);
    }
    const entry = entries?.[rel];
    if (entry === undefined || entry.size !== stat.size || entry.mtimeMs !== stat.mtimeMs || typeof entry.ids !== 'string' || typeof entry.words !== 'string') return null;
    const ids = decode(entry.ids);
    const words = decode(entry.words);
    return ids === null || words === null || words.length !== ids.length * 2 ? null : { ids, words };
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
    const before = await readFile(path.join(root, monthFile(month)), 'utf8').then(parseMonth, () => null);
    const entries: MonthEntries = { ...before };
    for (const rel of rels) {
      const entry = changed.get(rel);
      if (entry === null || entry === undefined) delete entries[rel];
      else entries[rel] = entry;
    }
    const sorted: MonthEntries = {};
    for (const rel of Object.keys(entries).sort()) sorted[rel] = entries[rel]!;
    await writeConfined(root, monthFile(month), JSON.stringify({ format: FORMAT, logs: sorted }));
  }
}
