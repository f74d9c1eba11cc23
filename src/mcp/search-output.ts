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

/**
 * One line a result: `0.82 logs/2026-06-09.md:12 Prefers dark roast coffee ^f-7k2m9q0a1b` for a fact (its block id:
 * the citation [[2026-06-09#^f-7k2m9q0a1b]] less what the path already says, 18 characters a line), and
 * `0.74 2_Areas/Coffee.md:8-9 statement / statement (2026-06-20) [[Coffee#Roast]]` for a page or MEMORY.md. The
 * vault's name leads the path when the search spanned vaults.
 */
export function searchText(value: SearchOutputValue, spansVaults: boolean): string {
  if (value.results.length === 0) return value.note ?? 'no results';
  const lines = value.results.map((r) => {
    const lines = r.line_end > r.line ? `${r.line}-${r.line_end}` : `${r.line}`;
    const where = `${spansVaults ? `${r.vault}:` : ''}${r.path}:${lines}`;
    const text = r.text.replace(/\s*\n\s*/g, ' / ').trim();
    if (r.kind === 'fact' && r.id !== null) return `${r.score.toFixed(2)} ${where} ${text} ^${r.id}`;
    const date = r.date === null ? '' : ` (${r.date})`;
    return `${r.score.toFixed(2)} ${where} ${text}${date} ${r.link}`;
  });
  return `${lines.join('\n')}\n`;
}
