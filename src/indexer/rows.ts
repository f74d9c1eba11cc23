/** One searchable unit in the index (DESIGN §6): a fact, a section of a page, or a section of MEMORY.md. */
import { createHash } from 'node:crypto';

export type RowKind = 'fact' | 'page' | 'core';
export const ROW_KINDS: readonly RowKind[] = ['fact', 'page', 'core'];

export interface IndexRow {
  /** Unique and stable: `f:<fact id>`, `p:<path>#<chunk>`, `c:<chunk>`. */
  key: string;
  kind: RowKind;
  path: string;
  line: number;
  line_end: number;
  /** The fact id for facts, '' otherwise. */
  id: string;
  /** YYYY-MM-DD: the log date of a fact, the newest cited date of a page chunk; null when unknown. */
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
  /** What full-text search and the embedder see: the text with its tags (a page's without citations). */
  content: string;
  /**
   * A lower-weight full-text field (DESIGN §6): for a fact, the passage of its batch around it (itself included);
   * for a page or core section, its title, heading path and aliases. Findable by, never shown.
   */
  context: string;
  /** The normalized subject of a keyed fact (`subject:: value`), '' otherwise: newer values supersede older ones. */
  subject: string;
}

/** A fingerprint of everything in a row, so an unchanged row is never rewritten or re-embedded. */
export function rowHash(row: IndexRow): string {
  return createHash('sha256').update(JSON.stringify(row)).digest('base64url').slice(0, 22);
}

/** What the embedder sees: a fact's own text (its neighbours would blur it), a section with its title and headings. */
export function embeddingText(row: IndexRow): string {
  return row.kind === 'fact' || row.context === '' ? row.content : `${row.context}\n${row.content}`;
}
