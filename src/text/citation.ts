/**
 * A citation of a fact's log line, as pages write it (DESIGN §3): `[[2026-05-05#^f-7k2m9q0a1b]]`, also in
 * Obsidian's embed (`![[…]]`) and alias (`[[…|shown]]`) forms. One pattern for every reader of pages, so
 * the dream, its checks and recall agree on what a line cites. (tombstones/lines.ts matches any `#^f-…`
 * on purpose: forgetting errs on the side of a partial link too.)
 */

/** Groups: 1 the log's date, 2 the line's block id. Global: use with matchAll or replace, never test. */
export const CITATION_RE = /!?\[\[(\d{4}-\d{2}-\d{2})#\^([A-Za-z0-9-]+)(?:\|[^\]]*)?\]\]/g;
/** A citation with the whitespace before it: what leaves a statement's own words when cut. */
const SPACED_CITATION_RE = /\s*!?\[\[(\d{4}-\d{2}-\d{2})#\^([A-Za-z0-9-]+)(?:\|[^\]]*)?\]\]/g;

/** The block ids a text cites, in order. */
export const citedIds = (text: string): string[] => [...text.matchAll(CITATION_RE)].map((m) => m[2]!);

/** The log dates a text cites, in order (repeats kept). */
export const citedDates = (text: string): string[] => [...text.matchAll(CITATION_RE)].map((m) => m[1]!);

/** The citations of a text, as written. */
export const citationsIn = (text: string): string[] => [...text.matchAll(CITATION_RE)].map((m) => m[0]);

/** The text without its citations (nor the space before each); `drop` chooses which go, by block id. */
export function withoutCitations(text: string, drop: (id: string) => boolean = () => true): string {
  // Every citation holds "[[": a text without it is returned as it is, without a scan by the pattern (search shows
  // each candidate's text so, several times over).
  if (!text.includes('[[')) return text;
  return text.replace(SPACED_CITATION_RE, (match: string, _date: string, id: string) => (drop(id) ? '' : match));
}
