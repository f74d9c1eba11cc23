/**
 * The newest row of each keyed subject (search.ts's supersession): which of a subject's rows is current. A search
 * that finds keyed rows asks the store for their subjects' newest rows; a warm process (the MCP server, the daemon,
 * a Vault kept open) asks again and again of a table that rarely changes, so it keeps every subject's rows of one
 * table version in memory (`KeyedRows`) and answers from them until the table changes. A fresh process (a CLI
 * search) asks once, through the subject index (store.ts).
 */

/** A row that states a subject's value: its key, the day it was stated and its line (the later-written wins a tie). */
export interface KeyedRow {
  key: string;
  date: string;
  line: number;
}

/** The newest of each subject's rows: latest date, then latest line. */
export function newestBySubject(rows: Iterable<KeyedRow & { subject: string }>): Map<string, KeyedRow> {
  const newest = new Map<string, KeyedRow>();
  for (const row of rows) {
    const best = newest.get(row.subject);
    if (best === undefined || row.date > best.date || (row.date === best.date && row.line > best.line)) {
      newest.set(row.subject, { date: row.date, line: row.line, key: row.key });
    }
  }
  return newest;
}

/**
 * Every subject's newest row of one table version, with or without archived rows. A version is read whole only when
 * a second search asks of it: a process that searches once (the CLI) never pays for reading every keyed row.
 */
export class KeyedRows {
  private asked = new Map<string, string>();
  private held = new Map<string, { version: string; newest: Map<string, KeyedRow> }>();

  /**
   * The newest rows of `subjects` at `version` from memory, or null: then the caller looks them up, and `load` reads
   * every subject's rows when this version was asked of before (the table the same since, a warm process). `version`
   * names the table's state (store.ts: its version and row count, since a table rebuilt in a new folder numbers its
   * versions from 1 again).
   */
  async newest(
    version: string,
    archived: boolean,
    subjects: readonly string[],
    load: () => Promise<Array<KeyedRow & { subject: string }>>,
  ): Promise<Map<string, KeyedRow> | null> {
    const scope = archived ? 'all' : 'current';
    let held = this.held.get(scope);
    if (held?.version !== version) {
      if (this.asked.get(scope) !== version) {
        this.asked.set(scope, version);
        return null;
      }
      held = { version, newest: newestBySubject(await load()) };
      this.held.set(scope, held);
    }
    const out = new Map<string, KeyedRow>();
    for (const subject of subjects) {
      const row = held.newest.get(subject);
      if (row !== undefined) out.set(subject, row);
    }
    return out;
  }
}
