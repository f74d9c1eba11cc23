/**
 * What a search query asks for. Agents send questions ("what coffee does the user like?"), so
 * question and function words are dropped before ranking and the remaining words are OR-ed: a
 * result need not hold every word. `"a phrase"` must appear as written (case and punctuation aside)
 * and `-word` or `-"a phrase"` must not. A query of nothing but stop words keeps its words, so
 * "who am I" still searches for something.
 */
import { eng } from 'stopword/src/stopwords_eng.js';
import { UsageError } from '../core/errors.js';
import { normalizeText, wordTest } from '../text/normalize.js';

/**
 * The stopword package's English list, plus the question and auxiliary words it lacks and words an
 * agent puts in every question about its user (they are in no fact, so they only add noise).
 */
const EXTRA_STOP_WORDS = [
  'when', 'why', 'whom', 'whose', 'does', 'doing', 'done', 'will', 'shall', 'yes', 'no', 'not', 'ever',
  'kind', 'sort', 'type', 'tell', 'know', 'user', 'users', "user's", 's', 't', 'd', 'll', 're', 've', 'm',
  'anything', 'something', 'thing', 'things',
];
const STOP_WORDS: ReadonlySet<string> = new Set([...eng, ...EXTRA_STOP_WORDS]);

/** For each ASCII code: 1 when normalizeText makes it a separator (punctuation, a symbol, white space). */
const ASCII_SEPARATORS = Uint8Array.from({ length: 128 }, (_, code) => (normalizeText(`a${String.fromCharCode(code)}a`) === 'a a' ? 1 : 0));

/**
 * True when a statement's words are all stop words (e.g. "Part of", or nothing): it says nothing to rank by.
 * ASCII text is read character by character: NFKC leaves ASCII as it is and lower-casing it is ASCII's, so its
 * words are the runs between separators, lower-cased (a statement each row: a cold build's regular expressions
 * and normalizations over them cost ~0.1 s, docs/benchmarks.md). At the first character past ASCII, the text
 * goes to the normalizing reading; a word judged before it was whole, bounded by ASCII separators, which no
 * normalization joins to a neighbour.
 */
export function onlyStopWords(text: string): boolean {
  let start = -1;
  for (let at = 0; at <= text.length; at++) {
    const code = at === text.length ? 0x20 : text.charCodeAt(at);
    if (code >= 0x80) return onlyStopWordsNormalized(text);
    if (ASCII_SEPARATORS[code] === 0) {
      if (start < 0) start = at;
    } else if (start >= 0) {
      if (!STOP_WORDS.has(text.slice(start, at).toLowerCase())) return false;
      start = -1;
    }
  }
  return true;
}

/**
 * onlyStopWords for any text: normalized piece by piece between spaces, stopping at the first word that ranks:
 * the same words as normalizing the whole text (no normalization joins across a space), at a fraction of the cost on a long one.
 */
export function onlyStopWordsNormalized(text: string): boolean {
  for (const piece of text.split(' ')) {
    for (const word of normalizeText(piece).split(' ')) if (word !== '' && !STOP_WORDS.has(word)) return false;
  }
  return true;
}

export interface ParsedQuery {
  /** The words that rank (normalized, stop words dropped), in order, unique. */
  terms: string[];
  /** Phrases that must appear, normalized. */
  phrases: string[];
  /** Words or phrases that must not appear, normalized. */
  excluded: string[];
}

const TOKEN_RE = /(-?)"([^"]*)"|(\S+)/g;

export function parseQuery(query: string): ParsedQuery {
  const words: string[] = [];
  const phrases: string[] = [];
  const excluded: string[] = [];
  for (const match of query.matchAll(TOKEN_RE)) {
    if (match[2] !== undefined) {
      const phrase = normalizeText(match[2]);
      if (phrase === '') continue;
      (match[1] === '-' ? excluded : phrases).push(phrase);
      continue;
    }
    const token = match[3]!;
    if (token.length > 1 && token.startsWith('-')) {
      const word = normalizeText(token.slice(1));
      if (word !== '') excluded.push(word);
      continue;
    }
    words.push(...normalizeText(token).split(' ').filter((w) => w !== ''));
  }
  const content = words.filter((word) => !STOP_WORDS.has(word));
  const terms = [...new Set(content.length > 0 || phrases.length > 0 ? content : words)];
  if (terms.length === 0 && phrases.length === 0) {
    throw new UsageError('search needs a word to look for, not only words to leave out', 'e.g. vaultkeeper search "coffee -tea"');
  }
  return { terms, phrases, excluded };
}

/** True when the text holds every phrase and none of the excluded words or phrases (as runs of whole words). */
export function passesFilters(text: string, query: ParsedQuery): boolean {
  if (query.phrases.length === 0 && query.excluded.length === 0) return true;
  const padded = ` ${normalizeText(text)} `;
  return query.phrases.every((p) => padded.includes(` ${p} `)) && !query.excluded.some((x) => padded.includes(` ${x} `));
}

/**
 * The share of the query's ranking terms that stand in `text` as whole words (after normalizing; no
 * stemming), 0–1: a coordination factor, so a row saying the question's words itself ranks above one
 * found only by its neighbours' (its context field).
 */
export function termCoverage(text: string, query: ParsedQuery): number {
  if (query.terms.length === 0) return 0;
  // Each term is one normalized word: looked up in the text rather than splitting the text into a set of its words.
  const holds = wordTest(text);
  let held = 0;
  for (const term of query.terms) if (holds(term)) held++;
  return held / query.terms.length;
}

/**
 * The share of a page title's words that the query names (0–1): its words after normalizing, without stop words
 * and numbers (a split part's period, "Ana 2026-05", names no subject). A question naming a page's subject ("what
 * did Ana …") is about that page's statements more than about lines elsewhere that only mention it.
 */
export function titleCoverage(title: string, query: ParsedQuery): number {
  const words = [...new Set(normalizeText(title).split(' '))].filter((word) => word !== '' && !STOP_WORDS.has(word) && !/^\d+$/.test(word));
  if (words.length === 0) return 0;
  return words.filter((word) => query.terms.includes(word)).length / words.length;
}
