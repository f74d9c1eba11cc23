/** One searchable unit in the index (DESIGN §6): a fact, a statement of a page section (a list item, a paragraph), or a list item of MEMORY.md. */
import { CITATION_RE } from '../text/citation.js';

export type RowKind = 'fact' | 'page' | 'core';
export const ROW_KINDS: readonly RowKind[] = ['fact', 'page', 'core'];

export interface IndexRow {
  /** Unique and stable: `f:<path>#<fact id>`, `p:<path>#<line>`, `c:<line>`. */
  key: string;
  kind: RowKind;
  path: string;
  line: number;
  line_end: number;
  /** The section the row is part of (a fact: its own line), so a caller can read the rest. */
  section_line: number;
  section_end: number;
  /** The fact id for facts, '' otherwise. */
  id: string;
  /** YYYY-MM-DD: the log date of a fact; the newest date a page statement cites, else its section's; null when unknown. */
  date: string | null;
  category: string;
  tags: string[];
  title: string;
  heading: string;
  heading_path: string;
  page_type: string;
  status: string;
  archived: boolean;
  citations: string[];
  /** What a person reads in a result. */
  text: string;
  /** What full-text search ranks first: the text with its tags and its date as words (a page's without citations). */
  content: string;
  /**
   * A lower-weight full-text field (DESIGN §6): for a fact, the passage of its batch around it (itself included);
   * for a page or core statement, the page's title, heading path and aliases and the statements around it in
   * its section (itself included). Findable by, never shown.
   */
  context: string;
  /** The normalized subject of a keyed fact (`subject:: value`), '' otherwise: newer values supersede older ones. */
  subject: string;
}


/** What the embedder sees: a row's own words (not its neighbours', not its date's), a page's with its title and heading path. */
export function embeddingText(row: IndexRow): string {
  if (row.kind === 'fact') return [row.text, ...row.tags].join(' ');
  const own = row.text.replace(CITATION_RE, '');
  return [row.title, row.heading_path === row.title ? '' : row.heading_path, own].filter((s) => s !== '').join('\n');
}
