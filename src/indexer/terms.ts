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

/** One character that Rust's char::is_alphanumeric accepts (tantivy's simple tokenizer cuts words at the others). */
const WORD_CHAR_RE = /^[\p{Alphabetic}\p{N}]$/u;

/**
 * For each UTF-16 code unit, whether it is a letter or digit: 1 yes, 2 no, 0 not looked up yet (a vault uses
 * few of the 65,536). Surrogates stay 0: a pair is looked up as one character, a lone one is not a word's.
 */
const WORD_UNIT = new Uint8Array(0x10000);

function isWordUnit(code: number): boolean {
  let known = WORD_UNIT[code]!;
  if (known === 0) WORD_UNIT[code] = known = WORD_CHAR_RE.test(String.fromCharCode(code)) ? 1 : 2;
  return known === 1;
}

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
  // Joined once at the end: a string built term by term is a rope that writing the column flattens again.
  const out: string[] = [];
  let start = -1;
  for (let at = 0; at <= text.length; at++) {
    const code = at === text.length ? 0x20 : text.charCodeAt(at);
    let inWord: boolean;
    if (code < 0xd800 || code >= 0xe000) inWord = isWordUnit(code);
    else {
      const low = text.charCodeAt(at + 1);
      inWord = code < 0xdc00 && low >= 0xdc00 && low < 0xe000 && WORD_CHAR_RE.test(text.slice(at, at + 2));
      if (inWord) {
        if (start < 0) start = at;
        at++; // the pair's second half
        continue;
      }
    }
    if (inWord) {
      if (start < 0) start = at;
    } else if (start >= 0) {
      const term = termOf(text.slice(start, at));
      if (term !== '') out.push(term);
      start = -1;
    }
  }
  return out.join(' ');
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
