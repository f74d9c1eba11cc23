/** What a reindex reports: the index after the run, and what the run did. */

export interface FileCounts {
  indexed: number;
  updated: number;
  unchanged: number;
  removed: number;
  skipped: number;
}

export interface ReindexResult {
  /** Rows in the index after the run, in all and by kind. */
  rows: number;
  facts: number;
  pages: number;
  core: number;
  /** Rows written (new or changed) and removed by this run. */
  added: number;
  removed: number;
  unchangedRows: number;
  /** Texts the embedder actually computed (cache misses). */
  embedded: number;
  files: FileCounts;
  /** Projection workers this run started beside its own thread (project-pool.ts); 0 when it projected alone. */
  workers: number;
  rebuilt: string | null;
  /** Files this run statted when a watcher named those changed (reindex.ts `changed`); absent when it statted all. */
  statted?: number;
  ms: number;
}
