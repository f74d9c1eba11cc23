/**
 * The files tombstones added since the last pass can change (reindex.ts). Tombstones stay out of every file's
 * inputs: a `forget` at a million facts re-projected every file (21 s, issue 31), where a few change. A new
 * tombstone changes a file that names its fact id (its log, a page citing it) or has a line holding all its words
 * (a fact or a page line repeating it), and a page citing a log one of them changes (the passage
 * of a cited fact drops a forgotten neighbour, passages.ts). The test is on the file's text folded as
 * normalizeText folds it (NFKC, lower case), so it errs on the side of projecting a file, never of missing one.
 * A log the index pass read as it is now is tested on the facts the pass kept of it (logs/log-facts.ts: its live
 * facts' id hashes and word masks), not read: at a million facts reading every log cost a forget ~1.7 s (issue 31).
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { idHash, LogFactsReader, mayHoldWords, wordMask } from '../logs/log-facts.js';
import { normalizeText } from '../text/normalize.js';
import type { Tombstone } from '../tombstones/tombstones.js';
import { LOG_PATH_RE } from './sources.js';

/** What a new tombstone is looked for by: its fact id, and the words of its text, the longest first. */
interface Needle {
  id: string;
  words: string[];
  /** The id's hash and the words' mask, for a log's kept facts. */
  hash: string;
  mask: [number, number];
  empty: boolean;
}

function statOf(root: string, rel: string): { size: number; mtimeMs: number } | null {
  const s = statSync(path.join(root, rel), { throwIfNoEntry: false });
  return s === undefined ? null : { size: s.size, mtimeMs: s.mtimeMs };
}

/**
 * The files among `logs` and `pages` (vault-relative) the `added` tombstones may change, or null when that cannot
 * be told from the text (a tombstone holding a hash, not its words: every file is projected again). A file that
 * cannot be read is left to the pass, which reads it again and reports it.
 */
export function touchedByTombstones(
  root: string,
  logs: readonly string[],
  pages: readonly string[],
  added: readonly Tombstone[],
  logStats?: ReadonlyArray<{ size: number; mtimeMs: number } | null | undefined>,
): Set<string> | null {
  const needles: Needle[] = [];
  for (const entry of added) {
    if (entry.text === undefined) return null;
    const normalized = normalizeText(entry.text);
    needles.push({ id: entry.id, words: normalized === '' ? [] : [...new Set(normalized.split(' '))].sort((a, b) => b.length - a.length), hash: idHash(entry.id), mask: wordMask(normalized), empty: normalized === '' });
  }
  const touched = new Set<string>();
  if (needles.length === 0) return touched;
  // eslint-disable-next-line no-control-regex
  const asciiWords = needles.every((needle) => needle.words.every((word) => /^[\x00-\x7f]*$/.test(word)));
  const kept = new LogFactsReader(root, 'ids');
  const keptWords = new LogFactsReader(root, 'words');
  const dates: string[] = [];
  const touch = (rel: string): void => {
    touched.add(rel);
    const date = LOG_PATH_RE.exec(rel)?.[1];
    if (date !== undefined) dates.push(`[[${date}#`);
  };
  /** Needles whose id no log was found to hold yet; logs read by their kept facts only. */
  const unseen = new Set(needles);
  const keptLogs: string[] = [];
  for (const [i, rel] of logs.entries()) {
    // A log's rows change only with a live fact of the id, or one whose text repeats the words (passages.ts
    // liveFacts): its kept facts (logs/log-facts.ts) say whether it may hold one, while it is as they were read.
    const stat = logStats?.[i] ?? statOf(root, rel);
    const words = kept.kept(rel, stat) && keptWords.kept(rel, stat) ? keptWords.words(rel) : null;
    if (words === null) {
      const text = read(root, rel, asciiWords);
      for (const needle of unseen) if (text === null || namesId(text, needle)) unseen.delete(needle);
      if (holdsAny(text, needles)) touch(rel);
      continue;
    }
    keptLogs.push(rel);
    let hit = false;
    for (const needle of needles) {
      if (kept.mayHoldId(rel, needle.hash)) {
        unseen.delete(needle);
        hit = true;
      } else if (!needle.empty && mayHoldWords(words, needle.mask)) hit = true;
    }
    // A mask says "maybe": a templated text's words set most of another's bits (~30 of 5,000 logs at a million
    // facts), so a log it lets through is read and tested as any other.
    if (hit && holdsAny(read(root, rel, asciiWords), needles)) touch(rel);
  }
  // The kept facts narrow the search, they never end it: a fact no log was found to hold is looked for in the text
  // of the logs they vouched for as well (a month file written wrong, or a fact forgotten that no pass saw live).
  if (unseen.size > 0) for (const rel of keptLogs) if (!touched.has(rel) && holdsAny(read(root, rel, asciiWords), [...unseen])) touch(rel);
  for (const rel of pages) {
    const text = read(root, rel, asciiWords);
    if (text === null || holdsAny(text, needles) || dates.some((cite) => (text.raw ?? text.folded).includes(cite))) touched.add(rel);
  }
  return touched;
}

/**
 * A file's text for the test: as `fold` would give it when the needles' words are ASCII and the file's non-ASCII
 * characters are only those SAFE_RE allows (a log's `·` headers), read without decoding UTF-8 or normalizing
 * (at a million facts every log was decoded and NFKC-normalized for each forget: ~0.5 s of CPU, issue 31).
 */
function read(root: string, rel: string, asciiWords: boolean): FileText | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.join(root, rel));
  } catch {
    return null;
  }
  if (asciiWords) {
    const latin1 = bytes.toString('latin1');
    if (!UNSAFE_BYTES_RE.test(latin1)) return { folded: latin1.toLowerCase(), raw: null };
  }
  const raw = bytes.toString('utf8');
  return { folded: fold(raw), raw };
}

/** A file's text folded, and as written when folding may have changed more than letters' case (NFKC). */
interface FileText {
  folded: string;
  raw: string | null;
}

/**
 * A non-ASCII byte outside the UTF-8 of `·` (U+00B7), `’` (U+2019), `–` and `—` (U+2013, U+2014), in the bytes
 * read as Latin-1. Those characters are their own NFKC form, compose with nothing and lower-case to themselves;
 * read as Latin-1 their bytes are non-ASCII characters that lower-case to non-ASCII ones. So in a file holding no
 * other, an ASCII word is on a line of the Latin-1 text lower-cased exactly when it is on that line of `fold`'s text.
 */
const UNSAFE_BYTES_RE = /[\x80-\xb6\xb8-\xc1\xc3-\xe1\xe3-\xff]|\xc2(?!\xb7)|\xe2(?!\x80[\x93\x94\x99])|(?<!\xc2)\xb7|(?<!\xe2)\x80|(?<!\xe2\x80)[\x93\x94\x99]/;

/**
 * True when the text names a needle's id (as written, or in any case), or one of its folded lines holds every one
 * of a needle's words: a fact, a page line and a passage repeat a text within one line. An unreadable file counts.
 */
function holdsAny(text: FileText | null, needles: readonly Needle[]): boolean {
  if (text === null) return true;
  for (const needle of needles) {
    if (namesId(text, needle)) return true;
    if (needle.words.length > 0 && lineHolding(text.folded, needle.words)) return true;
  }
  return false;
}

/** True when the text names the needle's id, as written or in any case. */
function namesId(text: FileText, needle: Needle): boolean {
  return text.folded.includes(needle.id.toLowerCase()) || (text.raw?.includes(needle.id) ?? false);
}

/** True when a line of `text` holds every word: found at each place the longest word occurs. */
function lineHolding(text: string, words: readonly string[]): boolean {
  const [first, ...rest] = words;
  for (let at = text.indexOf(first!); at >= 0; at = text.indexOf(first!, at + 1)) {
    const start = text.lastIndexOf('\n', at) + 1;
    const newline = text.indexOf('\n', at);
    const line = text.slice(start, newline < 0 ? text.length : newline);
    if (rest.every((word) => line.includes(word))) return true;
  }
  return false;
}

/** The text as normalizeText folds letters (its separators left as they are: a needle word holds none). */
function fold(text: string): string {
  // ASCII text is its own NFKC form: the normalization is skipped for it.
  // eslint-disable-next-line no-control-regex
  return (/^[\x00-\x7f]*$/.test(text) ? text : text.normalize('NFKC')).toLowerCase();
}
