/**
 * A new table written in parts while the rest of its rows are still being projected. A rebuild used to project
 * every row on this thread while the second core idled, then wait for LanceDB to convert and write them all
 * (~0.4 s of the 100k-fact rebuild); written a part at a time, LanceDB's threads write one part while this
 * thread projects the next, and only the last part is waited for (docs/benchmarks.md).
 *
 * One write at a time, in order: each part is one fragment, so the table holds the rows in the order they were
 * projected, as one write would. The indices are built after the last part, once, over every row (store.ts).
 */
import type { VaultkeeperError } from '../core/errors.js';
import { failpoint } from '../core/failpoint.js';
import type { EncodedBatch } from './arrow-rows.js';
import { indexError, type IndexStore } from './store.js';

/** Rows a part holds at least; fewer are written with the rest at the end. VAULTKEEPER_INDEX_PART_ROWS sets it, for tests and measuring. */
export const PART_ROWS = 25_000;

export function partRowsFromEnv(): number {
  const value = process.env.VAULTKEEPER_INDEX_PART_ROWS;
  return value !== undefined && /^[1-9]\d*$/.test(value) ? Number(value) : PART_ROWS;
}

export class TableParts {
  private waiting: EncodedBatch[] = [];
  private waitingRows = 0;
  private writing: Promise<void> = Promise.resolve();
  /** The first part that failed to be written: the next `take` stops the rebuild, rather than projecting the rest for nothing. */
  private failed: VaultkeeperError | null = null;
  /** Rows taken so far. */
  rows = 0;
  /** Whether the first part has gone to LanceDB (and `beforeFirst` has run). */
  started = false;

  /** `beforeFirst`: what must be on disk before the table changes (the manifest marked dirty, reindex.ts). */
  constructor(
    private readonly store: IndexStore,
    readonly partRows: number,
    private readonly beforeFirst: () => Promise<void>,
  ) {}

  /**
   * Takes projected rows; once a part's worth waits, queues it to be written after the parts before it. This
   * thread never waits for a write here: it goes on projecting while LanceDB's threads write (`finish` waits).
   */
  async take(batches: readonly EncodedBatch[]): Promise<void> {
    if (this.failed !== null) throw this.failed;
    for (const batch of batches) {
      this.waiting.push(batch);
      this.waitingRows += batch.length;
      this.rows += batch.length;
    }
    if (this.waitingRows >= this.partRows) await this.flush();
    // A turn of the event loop, so a write that ended hands the next part to LanceDB (its conversion runs on this thread).
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** Writes what still waits and resolves once every part is in the table. */
  async finish(): Promise<void> {
    if (this.waitingRows > 0) await this.flush();
    await this.writing;
  }

  private async flush(): Promise<void> {
    if (!this.started) {
      await this.beforeFirst();
      this.started = true;
    }
    const part = this.waiting;
    this.waiting = [];
    this.waitingRows = 0;
    this.writing = this.writing.then(async () => {
      await this.store.addEncoded(part);
      failpoint('reindex:part-written'); // a kill between two parts (test/e2e/failpoints.test.ts)
    });
    // A failure surfaces at the next `take` or at `finish`, as the error reindex.ts gives a failed write; never as an
    // unhandled rejection.
    this.writing.catch((error: unknown) => {
      this.failed ??= indexError('be written', error);
    });
  }
}

