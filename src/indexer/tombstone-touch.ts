/**
 * The files tombstones added since the last pass can change (reindex.ts). Tombstones stay out of every file's
 * inputs: a `forget` at a million facts re-projected every file (21 s, issue 31), where a few change. A new
 * tombstone changes a file that names its fact id (its log, a page citing it) or has a line holding all its words
 * (a fact or a page line repeating it), and a page citing a log one of them changes (the passage
 * of a cited fact drops a forgotten neighbour, passages.ts). The test is on the file's text folded as
 * normalizeText folds it (NFKC, lower case), so it errs on the side of projecting a file, never of missing one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { normalizeText } from '../text/normalize.js';
import type { Tombstone } from '../tombstones/tombstones.js';
import { LOG_PATH_RE } from './sources.js';

/** What a new tombstone is looked for by: its fact id, and the words of its text, the longest first. */
interface Needle {
  id: string;
  words: string[];
}

/**
 * The files among `logs` and `pages` (vault-relative) the `added` tombstones may change, or null when that cannot
 * be told from the text (a tombstone holding a hash, not its words: every file is projected again). A file that
 * cannot be read is left to the pass, which reads it again and reports it.
 */
export function touchedByTombstones(root: string, logs: readonly string[], pages: readonly string[], added: readonly Tombstone[]): Set<string> | null {
  const needles: Needle[] = [];
  for (const entry of added) {
    if (entry.text === undefined) return null;
    const normalized = normalizeText(entry.text);
    needles.push({ id: entry.id, words: normalized === '' ? [] : [...new Set(normalized.split(' '))].sort((a, b) => b.length - a.length) });
  }
  const touched = new Set<string>();
  if (needles.length === 0) return touched;
  const dates: string[] = [];
  for (const rel of logs) {
    if (holdsAny(read(root, rel), needles)) {
      touched.add(rel);
      const date = LOG_PATH_RE.exec(rel)?.[1];
      if (date !== undefined) dates.push(`[[${date}#`);
    }
  }
  for (const rel of pages) {
    const text = read(root, rel);
    if (text === null || holdsAny(text, needles) || dates.some((cite) => text.includes(cite))) touched.add(rel);
  }
  return touched;
}

function read(root: string, rel: string): string | null {
  try {
    return readFileSync(path.join(root, rel), 'utf8');
  } catch {
    return null;
  }
}

/**
 * True when the text names a needle's id, or one of its lines holds every one of a needle's words (after folding):
 * a fact, a page line and a passage repeat a text within one line. An unreadable file counts.
 */
function holdsAny(text: string | null, needles: readonly Needle[]): boolean {
  if (text === null) return true;
  let folded: string | null = null;
  for (const needle of needles) {
    if (text.includes(needle.id)) return true;
    if (needle.words.length === 0) continue;
    folded ??= fold(text);
    if (lineHolding(folded, needle.words)) return true;
  }
  return false;
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
