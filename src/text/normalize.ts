/**
 * Text normalization shared by tombstones, duplicate detection and keyed facts (DESIGN §5):
 * NFKC, lower case, punctuation replaced by spaces, white space collapsed.
 */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
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
