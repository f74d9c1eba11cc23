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
