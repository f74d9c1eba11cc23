/**
 * Inline `#tags` as Obsidian reads them: a `#` at the start of a text or after white space, then
 * letters, digits, `_`, `-` or `/`, with at least one character that is not a digit (`#123` is not a
 * tag). A heading's own `#` marks are followed by a space, so they never read as tags.
 */
const INLINE_TAG_RE = /(?<=^|\s)#([\p{L}\p{M}\p{N}_/-]+)/gu;
const HAS_NON_DIGIT_RE = /[^\p{N}]/u;

/** The tags in `text`, in order, with repeats. */
export function inlineTags(text: string): string[] {
  if (!text.includes('#')) return [];
  const tags: string[] = [];
  for (const match of text.matchAll(INLINE_TAG_RE)) {
    const tag = match[1]!.replace(/\/+$/u, '');
    if (tag !== '' && HAS_NON_DIGIT_RE.test(tag)) tags.push(tag);
  }
  return tags;
}
