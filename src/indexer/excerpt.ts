/**
 * A bounded read of a page or core section: the lines that match the query (with their citations),
 * not the whole section. The section's full range stays on the result so a caller can open the rest.
 */
import stem from 'wink-porter2-stemmer';

export { stem };
import { normalizeText } from '../text/normalize.js';
import type { Hit } from './store.js';

/** At most this many matching lines from one section: more costs an agent reading budget (measured, docs/benchmarks.md). */
export const EXCERPT_LINES = 2;
const HEADING_RE = /^#{1,6}\s/;
const LIST_ITEM_RE = /^\s*(?:[-*+]|\d+[.)])\s+\S/;
const CITATION_RE = /\[\[(\d{4}-\d{2}-\d{2})#\^(f-[0-9a-z]+)/g;

export interface Excerpt {
  text: string;
  /** 1-based, inclusive: the first and last line shown. */
  line: number;
  line_end: number;
  citations: string[];
  /** The newest date the shown lines cite, else the section's date. */
  date: string | null;
}

/** The query's words as the full-text index stems them. */
export function stems(words: readonly string[]): Set<string> {
  return new Set(words.flatMap((w) => normalizeText(w).split(' ')).filter((w) => w !== '').map(stem));
}

export function excerpt(hit: Hit, queryStems: ReadonlySet<string>, maxLines = EXCERPT_LINES, stemOf: (word: string) => string = stem): Excerpt {
  const lines = hit.text.split('\n');
  const candidates: Array<{ index: number; matched: number }> = [];
  lines.forEach((line, index) => {
    if (line.trim() === '' || HEADING_RE.test(line)) return;
    // MEMORY.md's prose is the generator's template; only its list items are content.
    if (hit.kind === 'core' && !LIST_ITEM_RE.test(line)) return;
    const words = new Set(normalizeText(line.replace(CITATION_RE, ' ')).split(' ').map(stemOf));
    let matched = 0;
    for (const s of queryStems) if (words.has(s)) matched++;
    candidates.push({ index, matched });
  });
  const matching = candidates.filter((c) => c.matched > 0);
  const chosen = (matching.length > 0 ? [...matching].sort((a, b) => b.matched - a.matched || a.index - b.index) : candidates)
    .slice(0, maxLines)
    .sort((a, b) => a.index - b.index);
  if (chosen.length === 0) return { text: hit.text, line: hit.line, line_end: hit.line_end, citations: hit.citations, date: hit.date };
  const shown = chosen.map((c) => lines[c.index]!);
  const citations: string[] = [];
  let date: string | null = null;
  for (const line of shown) {
    for (const match of line.matchAll(CITATION_RE)) {
      if (!citations.includes(match[2]!)) citations.push(match[2]!);
      if (date === null || match[1]! > date) date = match[1]!;
    }
  }
  return {
    text: shown.join('\n'),
    line: hit.line + chosen[0]!.index,
    line_end: hit.line + chosen.at(-1)!.index,
    citations: citations.filter((id) => hit.citations.includes(id)),
    date: date ?? hit.date,
  };
}
