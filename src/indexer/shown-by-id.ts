/**
 * Rows' `shown` JSON by row id, as a warm process (the MCP server, the daemon, a Vault kept open) read them for its
 * searches. Reading a row costs LanceDB ~0.1–0.2 ms of CPU at 1M rows, in the query or by id, and a search at the
 * cut of a tied run reads a hundred or more; searches of one vault come back to the same rows (the same subjects,
 * the same templated facts). A row id names the same row for as long as the table holds it, but a table rebuilt in
 * a new folder numbers its rows from the start again: the rows are kept for one table state (its version and row
 * count, as newest-keyed.ts names it) and dropped whole when it changes. A process that searches once (the CLI)
 * fills it and never reads it again.
 */

/** How many rows are held: ~0.4 KB of JSON each, so a few MB; the oldest read go first, a quarter at a time. */
export const SHOWN_BY_ID_ROWS = 20_000;

export class ShownById {
  private state: string | null = null;
  private readonly rows = new Map<number, string>();

  constructor(private readonly most = SHOWN_BY_ID_ROWS) {}

  /** The rows held for table state `state`: none when the table changed since they were read (they are dropped). */
  at(state: string): ReadonlyMap<number, string> {
    if (state !== this.state) {
      this.rows.clear();
      this.state = state;
    }
    return this.rows;
  }

  /** Holds rows read at the state last given to `at`. */
  hold(ids: readonly number[], shown: readonly string[]): void {
    for (let i = 0; i < ids.length; i++) {
      if (this.rows.has(ids[i]!)) continue;
      if (this.rows.size >= this.most) this.dropOldest();
      this.rows.set(ids[i]!, shown[i]!);
    }
  }

  /**
   * The oldest quarter out, in one walk: one row at a time, each `keys().next()` walked over the slots of the rows
   * deleted before it (V8 leaves them until the map is rebuilt), ~20 µs a row held once full: ~2 ms of a warm
   * server's search at 1M asked new questions (docs/benchmarks.md).
   */
  private dropOldest(): void {
    let left = Math.max(1, Math.floor(this.most / 4));
    for (const id of this.rows.keys()) {
      if (left-- === 0) break;
      this.rows.delete(id);
    }
  }

  /** Drops every row (the table changed while a search read it). */
  drop(): void {
    this.rows.clear();
    this.state = null;
  }
}
