/**
 * A page line's citations (`[[2026-06-09#^f-7k2m9q0a1b]]`, optionally `|alias`, optionally embedded with `!`):
 * proof for people and checks, noise for ranking, and in a search result carried apart from the text.
 */
const CITATION_LINK_RE = /\s*!?\[\[\d{4}-\d{2}-\d{2}#\^[A-Za-z0-9-]+(?:\|[^\]]*)?\]\]/g;

/** The text without its citations (and the space before each). */
export function withoutCitations(text: string): string {
  return text.replace(CITATION_LINK_RE, '');
}
