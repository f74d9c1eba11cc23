/**
 * Text normalization shared by tombstones, duplicate detection and keyed facts (DESIGN §5):
 * NFKC, lower case, punctuation replaced by spaces, white space collapsed.
 */
const SEPARATORS_RE = /[\p{P}\p{S}\s]+/gu;

export function normalizeText(text: string): string {
  // One pass over punctuation, symbols and white space together: the same text as replacing punctuation and then
  // collapsing white space (each run of them becomes one space either way), in about a quarter of the time, which
  // search pays for every candidate (docs/benchmarks.md).
  return text.normalize('NFKC').toLowerCase().replace(SEPARATORS_RE, ' ').trim();
}

/** True when `needle` (already normalized) occurs in `haystack` (already normalized) as a run of whole words. */
export function containsWords(haystack: string, needle: string): boolean {
  if (needle === '') return false;
  let from = 0;
  for (;;) {
    const at = haystack.indexOf(needle, from);
    if (at < 0) return false;
    const before = at === 0 || haystack[at - 1] === ' ';
    const end = at + needle.length;
    const after = end === haystack.length || haystack[end] === ' ';
    if (before && after) return true;
    from = at + 1;
  }
}

/** For each ASCII code, whether normalizeText makes it a space (punctuation, symbols, white space). */
export const ASCII_SEPARATOR: readonly boolean[] = Array.from({ length: 128 }, (_, code) => /[\p{P}\p{S}\s]/u.test(String.fromCharCode(code)));
/** Text of ASCII code units only (none above 127). */
const ASCII_RE = /^[^\u0080-\uffff]*$/;

/**
 * A test of whether a word (one normalized word, no spaces) is among the words of `normalizeText(text)`, for asking
 * of one text about several words. ASCII text is not normalized: NFKC leaves it as it is, so a word is one of its
 * words exactly when it stands in its lower case between separators (what normalizing makes spaces) or at an end.
 * Search asks this of every candidate's text, where normalizing each cost more than the rest of the scoring
 * (docs/benchmarks.md); any other text is normalized as before.
 */
export function wordTest(text: string): (word: string) => boolean {
  if (!ASCII_RE.test(text)) {
    const normalized = normalizeText(text);
    return (word) => containsWords(normalized, word);
  }
  const lower = text.toLowerCase();
  return (word) => {
    if (word === '') return false;
    for (let at = lower.indexOf(word); at >= 0; at = lower.indexOf(word, at + 1)) {
      const end = at + word.length;
      if ((at === 0 || ASCII_SEPARATOR[lower.charCodeAt(at - 1)]) && (end === lower.length || ASCII_SEPARATOR[lower.charCodeAt(end)])) return true;
    }
    return false;
  };
}
