/**
 * memory_search's answer in two forms: one compact line per result for the model to read (score, where, the
 * statement, its citation; issue 27: the JSON it replaced cost 8.6× the memory it carried), and the full data as
 * `structuredContent` under SearchOutput, for a client that works with fields.
 */
import { z } from 'zod';
import type { SearchResult } from '../indexer/search.js';

/**
 * A result's main fields; the others (statements, section, title, heading, heading_path, category, tags,
 * citations: docs/integrations.md) pass through undeclared, so the schema every tools/list carries stays short.
 */
const SearchHit = z.looseObject({
  vault: z.string(),
  kind: z.enum(['fact', 'page', 'core']),
  path: z.string(),
  line: z.number(),
  line_end: z.number(),
  text: z.string(),
  score: z.number(),
  link: z.string(),
  id: z.string().nullable(),
  date: z.string().nullable(),
});

export const SearchOutput = z.object({
  query: z.string(),
  results: z.array(SearchHit),
  note: z.string().optional(),
});

export type SearchHitOutput = z.output<typeof SearchHit>;
export type SearchOutputValue = z.output<typeof SearchOutput>;

export function withVault(vault: string, results: readonly SearchResult[]): SearchHitOutput[] {
  return results.map((r) => ({ vault, ...r }));
}

/** A daily log's path, `logs/YYYY-MM-DD.md`: its day is all a fact's line needs to say (memory_read takes the day). */
const LOG_PATH_RE = /^logs\/(\d{4}-\d{2}-\d{2})\.md$/;

/**
 * One line a result: `0.82 2026-06-09:12 Prefers dark roast coffee ^f-7k2m9q0a1b` for a fact (its day and line:
 * the log is logs/2026-06-09.md and the citation [[2026-06-09#^f-7k2m9q0a1b]], both rebuilt from what the line
 * shows; 26 characters of frame where the path and the whole link would take 60), and
 * `0.74 2_Areas/Coffee.md:8-9 statement / statement (2026-06-20) [[Coffee#Roast]]` for a page or MEMORY.md. The
 * vault's name leads the place when the search spanned vaults.
 */
export function searchText(value: SearchOutputValue, spansVaults: boolean): string {
  if (value.results.length === 0) return value.note ?? 'no results';
  const lines = value.results.map((r) => {
    const lines = r.line_end > r.line ? `${r.line}-${r.line_end}` : `${r.line}`;
    const text = r.text.replace(/\s*\n\s*/g, ' / ').trim();
    const vault = spansVaults ? `${r.vault}:` : '';
    const day = r.kind === 'fact' && r.id !== null ? LOG_PATH_RE.exec(r.path)?.[1] : undefined;
    if (day !== undefined) return `${r.score.toFixed(2)} ${vault}${day}:${lines} ${text} ^${r.id}`;
    if (r.kind === 'fact' && r.id !== null) return `${r.score.toFixed(2)} ${vault}${r.path}:${lines} ${text} ^${r.id}`;
    const date = r.date === null ? '' : ` (${r.date})`;
    return `${r.score.toFixed(2)} ${vault}${r.path}:${lines} ${text}${date} ${r.link}`;
  });
  return `${lines.join('\n')}\n`;
}
