/**
 * The columns of the index table, and each column's values for a list of rows, without Arrow or LanceDB:
 * the store builds its Arrow schema from this list, and a projection worker (project-worker.ts) encodes
 * its rows' columns with it, so both always agree on the table.
 */
import type { IndexRow } from './rows.js';
import { VaultkeeperError } from '../core/errors.js';

/** utf8 / utf8? (nullable), int32, bool, a list of strings, a vector of float32. */
export type ColumnKind = 'utf8' | 'utf8?' | 'int32' | 'bool' | 'utf8-list' | 'vector';

export interface ColumnSpec {
  name: string;
  kind: ColumnKind;
}

/** The fields a search result is built from (not `content` or `context`: searched, never shown). */
export const HIT_FIELDS = [
  'key', 'kind', 'path', 'line', 'line_end', 'section_line', 'section_end', 'id', 'date', 'category', 'tags', 'title', 'heading', 'heading_path',
  'citations', 'text', 'subject',
] as const;

/**
 * A hit's fields, and the archived flag, kept together as one JSON array in the `shown` column: LanceDB
 * reads each selected column of each hit separately, and one column costs a fraction of seventeen
 * (docs/benchmarks.md). Filters and lookups read the real columns; fields only shown have no column.
 */
export const SHOWN_FIELDS = [...HIT_FIELDS, 'archived'] as const;

/** The table's columns in order (store.ts), the vector last and only with an embedder. */
export function tableColumns(dimensions: number | null): ColumnSpec[] {
  const columns: ColumnSpec[] = [
    { name: 'key', kind: 'utf8' },
    { name: 'kind', kind: 'utf8' },
    { name: 'path', kind: 'utf8' },
    { name: 'line', kind: 'int32' },
    { name: 'date', kind: 'utf8?' },
    { name: 'category', kind: 'utf8' },
    { name: 'tags', kind: 'utf8-list' },
    { name: 'page_type', kind: 'utf8' },
    { name: 'status', kind: 'utf8' },
    { name: 'archived', kind: 'bool' },
    { name: 'content', kind: 'utf8' },
    { name: 'context', kind: 'utf8' },
    { name: 'subject', kind: 'utf8' },
    { name: 'shown', kind: 'utf8' },
  ];
  if (dimensions !== null) columns.push({ name: 'vector', kind: 'vector' });
  return columns;
}

/**
 * The `shown` column's value: SHOWN_FIELDS' values as a JSON array, the array written out rather than mapped
 * from the list (100k rows: 165–209 ms against 216–391; test/unit/columns.test.ts keeps the two the same).
 */
export function shownJson(row: IndexRow): string {
  return JSON.stringify([
    row.key, row.kind, row.path, row.line, row.line_end, row.section_line, row.section_end, row.id, row.date, row.category, row.tags, row.title,
    row.heading, row.heading_path, row.citations, row.text, row.subject, row.archived,
  ]);
}

/** A row as the table stores it: with its vector when an embedder is set. */
export interface StoredRow extends IndexRow {
  vector?: Float32Array;
}

/**
 * The values of each column of the table for these rows, by column name; read column by column, no object per row.
 * `shown`: the rows' `shown` values when already made (for their hashes). Each column reads its own property:
 * a property named by a variable made the read generic, ~40 ms of the 100k rebuild (docs/benchmarks.md).
 */
export function columnsOf(rows: readonly StoredRow[], dimensions: number | null, shown?: readonly string[]): (name: string) => readonly unknown[] {
  return (name) => {
    switch (name) {
      case 'key':
        return rows.map((row) => row.key);
      case 'kind':
        return rows.map((row) => row.kind);
      case 'path':
        return rows.map((row) => row.path);
      case 'line':
        return rows.map((row) => row.line);
      case 'date':
        return rows.map((row) => row.date);
      case 'category':
        return rows.map((row) => row.category);
      case 'tags':
        return rows.map((row) => row.tags);
      case 'page_type':
        return rows.map((row) => row.page_type);
      case 'status':
        return rows.map((row) => row.status);
      case 'archived':
        return rows.map((row) => row.archived);
      case 'content':
        return rows.map((row) => row.content);
      case 'context':
        return rows.map((row) => row.context);
      case 'subject':
        return rows.map((row) => row.subject);
      case 'shown':
        return shown ?? rows.map(shownJson);
      case 'vector':
        return rows.map((row) => {
          if (row.vector === undefined || row.vector.length !== dimensions) {
            throw new VaultkeeperError('VK_INDEX', `row ${row.key} has no ${dimensions}-dimension vector`, { hint: 'run `vaultkeeper reindex --clear`' });
          }
          return row.vector;
        });
      default:
        throw new Error(`no column ${name} in the index table`);
    }
  };
}
