/**
 * The full-text index's terms, computed here rather than by LanceDB: what LanceDB's English analyzer (as this
 * index used it up to manifest version 7) makes of a text, before its last step, ASCII folding, which the index
 * still does. The steps, in LanceDB's order: split into runs of letters and digits (tantivy's simple tokenizer:
 * Unicode Alphabetic or Numeric), drop words of 40 bytes or more, lower-case (per character, as tantivy does:
 * no final sigma), stem (Porter2), drop Lucene's 33 English stop words checked on the stem ("being" stems to
 * "be" and goes). Checked word for word against LanceDB itself (test/e2e/index-terms.test.ts).
 *
 * Why: stemming while building the index was most of a rebuild's full-text cost (docs/benchmarks.md), and a vault
 * repeats its words: here a word's term is computed once per process and passages are joined from terms.
 * The index columns `content` and `context` hold these terms; a query's words go through the same function.
 */
import { stem } from 'porter2';

/** Lucene's English stop words, tantivy's list for English. */
const STOP_WORDS = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not', 'of', 'on', 'or', 'such',
  'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with',
]);

/** tantivy's RemoveLongFilter as LanceDB sets it: a word of this many UTF-8 bytes or more is not indexed. */
const MAX_WORD_BYTES = 40;

/** A run of what Rust's char::is_alphanumeric accepts. */
const WORD_RE = /[\p{Alphabetic}\p{N}]+/gu;

/** For each ASCII code, whether it is a letter or a digit. */
const ASCII_WORD: Uint8Array = Uint8Array.from({ length: 128 }, (_, code) => (/[A-Za-z0-9]/.test(String.fromCharCode(code)) ? 1 : 0));

/** A word's term ('' when it is not indexed), by the word as written. Cleared when it grows past a vault's vocabulary. */
const memo = new Map<string, string>();
const MEMO_LIMIT = 500_000;

/** The index term of one word as the tokenizer cut it ('' when none). */
export function termOf(word: string): string {
  let term = memo.get(word);
  if (term !== undefined) return term;
  term = '';
  if (!tooLong(word)) {
    const stemmed = stem(lowerCase(word));
    if (!STOP_WORDS.has(stemmed)) term = stemmed;
  }
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(word, term);
  return term;
}

/** The text's terms in order, space-separated: what the index's whitespace tokenizer reads back as the same terms. */
export function indexTerms(text: string): string {
  let out = '';
  const push = (word: string): void => {
    const term = termOf(word);
    if (term !== '') out = out === '' ? term : `${out} ${term}`;
  };
  // ASCII text (nearly all of it) is cut by hand; anything else by the Unicode classes.
  let start = -1;
  for (let at = 0; at <= text.length; at++) {
    const code = at === text.length ? 0x20 : text.charCodeAt(at);
    if (code >= 0x80) {
      for (const match of text.slice(start < 0 ? at : start).matchAll(WORD_RE)) push(match[0]);
      return out;
    }
    if (ASCII_WORD[code] === 1) {
      if (start < 0) start = at;
    } else if (start >= 0) {
      push(text.slice(start, at));
      start = -1;
    }
  }
  return out;
}

/** Lower case per character, as tantivy's LowerCaser: JavaScript's would make a word-final Σ a final sigma. */
function lowerCase(word: string): string {
  if (!word.includes('Σ')) return word.toLowerCase();
  let out = '';
  for (const char of word) out += char.toLowerCase();
  return out;
}

/** Whether the word has MAX_WORD_BYTES UTF-8 bytes or more; a short word (at most 3 bytes a UTF-16 unit) is not counted. */
function tooLong(word: string): boolean {
  return word.length * 3 >= MAX_WORD_BYTES && Buffer.byteLength(word, 'utf8') >= MAX_WORD_BYTES;
}
