/**
 * Projects a run of files into what the indexer keeps: each file's row keys and hashes, the facts a page
 * cites, and the rows to write (those whose hash is new), either as row objects or already encoded column
 * by column (arrow-rows.ts). The same code runs on the indexer's thread and in a projection worker
 * (project-worker.ts), so both give the same rows in the same order.
 */
import type { Journal } from '../dream/journal.js';
import { parseTombstones, type Tombstone, type TombstoneSet } from '../tombstones/tombstones.js';
import { encodeColumns, type EncodedBatch } from './arrow-rows.js';
import { columnsOf, shownJson, tableColumns } from './columns.js';
import { PassageReader, citedDates } from './passages.js';
import { projectLog } from './project-log.js';
import { logFactsText, type LogFactsText } from '../logs/log-facts.js';
import type { Fact } from '../logs/factlog.js';
import type * as Pages from './projection.js';
import type { PreparedPage } from './projection.js';
import { batchHashes, rowHash } from './row-hash.js';
import { ReadingMemo, type StoredReadings } from './state-readings.js';

/**
 * The page projection (projection.ts: markdown-it and the YAML parsers), loaded by `loadPages` before a page is
 * projected: a pass that projects only logs does without it.
 */
let pages: typeof Pages | null = null;

/** Loads the page projection; whoever projects pages with this module awaits it first (reindex.ts, project-worker.ts). */
export async function loadPages(): Promise<void> {
  pages ??= await import('./projection.js');
}

function pageProjection(): typeof Pages {
  if (pages === null) throw new Error('a page projected before the page projection loaded (await loadPages)');
  return pages;
}

/** Settles once the projection can hash rows: whoever loads this module awaits it before projecting. */
export { rowHashing } from './row-hash.js';
import type { IndexRow } from './rows.js';
import { sourceKind } from './sources.js';

export interface ChunkFile {
  rel: string;
  content: Uint8Array;
  /** The file's row hashes in the index now (key → hash); rows with the same hash are not written again. */
  previous?: ReadonlyMap<string, string>;
  /** The file's state-change readings as its last projection left them (state-readings.ts). */
  readings?: StoredReadings;
}

/** What a thread needs besides the files; plain data, so it crosses to a worker as is. */
export interface ChunkInputs {
  root: string;
  journal: Journal;
  tombstones: readonly Tombstone[];
  /** Fact ids the pages cite (projection.ts), for logs. */
  cited: readonly string[];
}

export interface FileProjection {
  /** Row key → hash, in row order, when projected on this thread. */
  hashes?: Map<string, string>;
  /**
   * The same from a worker: the keys, then the hashes, each followed by NUL. Two strings cross threads as two
   * copies, where a map of 100,000 entries would be cloned entry by entry.
   */
  packed?: { keys: string; hashes: string };
  /**
   * A file new to the index (no `previous`): its rows, one per key, not hashed yet. Every one of them is
   * written whatever its hash, so nothing waits for the hashes but the manifest: a rebuild hashes them while
   * LanceDB builds its indices (reindex.ts) instead of before the table is written (`hashesOf`).
   */
  unhashed?: Unhashed;
  /** For a page: the fact ids it cites. */
  cited: string[];
  /** The readings of its cued texts (a log's facts, a page's dated statements), kept with its row hashes for its next projection. */
  readings?: StoredReadings;
  /** For a log: its live facts' id hashes and word masks (logs/log-facts.ts), kept for `forget` and the tombstone test. */
  facts?: LogFactsText;
  /** Rows whose hash is the one in `previous`. */
  unchanged: number;
}

/**
 * A new file's rows, one per key: their keys and where they are in an encoded batch (hashed from its bytes, so
 * the row objects need not live on), or, when the rows stay objects, the rows and their `shown` JSON.
 */
export type Unhashed = { keys: string[]; batch: EncodedBatch | null; start: number } | { rows: IndexRow[]; shown: string[] };

export interface ChunkResult {
  files: FileProjection[];
  /** The rows to write, in file order: encoded, a batch every few thousand rows, or as objects (when an embedder must see them first). */
  batches?: EncodedBatch[];
  rows?: IndexRow[];
}

/**
 * Rows encoded at a time (the batch ends with a file): see ChunkProjector.project. The rows not yet encoded are
 * what each young-generation collection copies; 500 against 2,000 took the 100k rebuild 0.97× the wall time
 * (docs/benchmarks.md). The batches are joined before the one add, so the table is the same.
 */
const ENCODE_ROWS = 500;

/** A thread's inputs as the projection reads them, built once per thread and run. */
export class ChunkProjector {
  private readonly tombstones: TombstoneSet;
  private readonly passages: PassageReader;
  private readonly cited: ReadonlySet<string>;

  constructor(
    private readonly inputs: ChunkInputs,
    shared?: { tombstones: TombstoneSet; passages: PassageReader },
  ) {
    // The set is rebuilt from its entries: functions do not cross to a worker, and parsing them again gives the same set.
    this.tombstones = shared?.tombstones ?? parseTombstones(inputs.tombstones.map((entry) => JSON.stringify(entry)).join('\n'));
    this.passages = shared?.passages ?? new PassageReader(inputs.root, this.tombstones);
    this.cited = new Set(inputs.cited);
  }

  /**
   * A projector for the logs, after this one prepared the pages: the same run's inputs but the facts the pages
   * cite, and the same passages, so the logs it projects hand over the passages the pages want.
   */
  withCited(cited: readonly string[]): ChunkProjector {
    return new ChunkProjector({ ...this.inputs, cited }, { tombstones: this.tombstones, passages: this.passages });
  }

  /**
   * Pages parsed for the facts they cite, their rows left for `project` (given these back as `prepared`) once the
   * logs of this run are projected: the logs hand the passages the pages cite over as they are parsed, so no log
   * is parsed twice and none waits, parsed, for the pages (reindex.ts).
   */
  preparePages(files: readonly ChunkFile[]): PreparedPage[] {
    return files.map((file) => {
      const kind = sourceKind(file.rel);
      if (kind === 'log') throw new Error(`${file.rel} is a log, not a page`);
      this.passages.want(file.content);
      return pageProjection().preparePage(file.rel, file.content, this.tombstones, kind, new ReadingMemo(file.readings));
    });
  }

  /**
   * `pack`: the keys and hashes as strings, for a worker to hand back (FileProjection). `prepared`: the files'
   * pages as `preparePages` made them, in order.
   */
  project(files: readonly ChunkFile[], output: 'encoded' | 'rows', pack = false, prepared?: readonly PreparedPage[]): ChunkResult {
    const out: FileProjection[] = [];
    let toAdd: IndexRow[] = [];
    let shown: string[] = []; // toAdd's `shown` values, made once for the hash and the column
    const batches: EncodedBatch[] = [];
    // New files' rows not encoded yet: they learn their batch when it is.
    let waiting: Array<{ keys: string[]; batch: EncodedBatch | null; start: number }> = [];
    const encode = (): void => {
      const batch = encodeColumns(tableColumns(null), toAdd.length, columnsOf(toAdd, null, shown));
      batches.push(batch);
      for (const unhashed of waiting) unhashed.batch = batch;
      waiting = [];
      toAdd = [];
      shown = [];
    };
    const passage = (date: string, id: string): string => this.passages.get(date, id);
    for (const [i, file] of files.entries()) {
      if (sourceKind(file.rel) !== 'log') this.passages.load(citedDates(file.content));
      const page = prepared?.[i];
      const memo = new ReadingMemo(file.readings);
      const inputs = { journal: this.inputs.journal, tombstones: this.tombstones, cited: this.cited, passage, readings: memo };
      let logFacts: LogFactsText | undefined;
      const onLogFacts = (date: string, facts: readonly Fact[]): void => {
        this.passages.collect(date, facts);
        logFacts = logFactsText(facts);
      };
      const { rows, cited } =
        page !== undefined
          ? { rows: page.rows(passage), cited: page.cited }
          : sourceKind(file.rel) === 'log'
            ? { rows: projectLog(file.rel, file.content, { ...inputs, onLogFacts }), cited: [] }
            : pageProjection().projectFile(file.rel, file.content, inputs);
      // Kept with the row hashes, so a file's next projection reads only the texts it did not hold (state-readings.ts).
      const readings = page?.readings() ?? memo.stored();
      const kept = { ...(readings.length === 0 ? {} : { readings }), ...(logFacts === undefined ? {} : { facts: logFacts }) };
      if (file.previous === undefined) {
        const start = toAdd.length;
        // A log's keys are its fact ids, which its parser keeps distinct (factlog.ts): only a page's need the check.
        const firsts = firstOfEachKey(rows, toAdd, shown, sourceKind(file.rel) === 'log');
        if (firsts.rows.length === 0) out.push({ ...(pack ? { packed: { keys: '', hashes: '' } } : { hashes: new Map() }), cited, unchanged: 0, ...kept });
        else if (output === 'rows') out.push({ unhashed: firsts, cited, unchanged: 0, ...kept });
        else {
          const unhashed = { keys: firsts.rows.map((row) => row.key), batch: null, start };
          waiting.push(unhashed);
          out.push({ unhashed, cited, unchanged: 0, ...kept });
          if (toAdd.length >= ENCODE_ROWS) encode();
        }
        continue;
      }
      const hashes = new Map<string, string>();
      let unchanged = 0;
      for (const row of rows) {
        if (hashes.has(row.key)) continue; // a duplicated key within one file keeps its first row
        const json = shownJson(row);
        const hash = rowHash(row, json);
        hashes.set(row.key, hash);
        if (file.previous?.get(row.key) === hash) unchanged++;
        else {
          toAdd.push(row);
          shown.push(json);
        }
      }
      if (!pack) out.push({ hashes, cited, unchanged, ...kept });
      else out.push({ packed: packHashes(hashes), cited, unchanged, ...kept });
      // Encoded every few hundred rows, the row objects die young: held to the end of a 100k-row pass, the
      // garbage collector copied and promoted them all (docs/benchmarks.md).
      if (output === 'encoded' && toAdd.length >= ENCODE_ROWS) encode();
    }
    if (output === 'rows') return { files: out, rows: toAdd };
    if (toAdd.length > 0) encode();
    // A worker hands back every hash at once, packed.
    if (pack) {
      for (const file of out) {
        if (file.unhashed === undefined) continue;
        file.packed = packHashes(hashesOf(file));
        delete file.hashes;
      }
    }
    return { files: out, batches };
  }
}

/**
 * The rows, a duplicated key within one file keeping its first row (as when hashing), with their `shown`
 * values; also appended to `toAdd` and `shown`. `distinct`: the keys are known to be (no check).
 */
function firstOfEachKey(rows: readonly IndexRow[], toAdd: IndexRow[], shown: string[], distinct: boolean): { rows: IndexRow[]; shown: string[] } {
  const seen = distinct ? null : new Set<string>();
  const kept: { rows: IndexRow[]; shown: string[] } = { rows: [], shown: [] };
  for (const row of rows) {
    if (seen !== null) {
      if (seen.has(row.key)) continue;
      seen.add(row.key);
    }
    const json = shownJson(row);
    kept.rows.push(row);
    kept.shown.push(json);
    toAdd.push(row);
    shown.push(json);
  }
  return kept;
}

function packHashes(hashes: ReadonlyMap<string, string>): { keys: string; hashes: string } {
  return { keys: packed([...hashes.keys()]), hashes: packed([...hashes.values()]) };
}

function packed(values: readonly string[]): string {
  return values.length === 0 ? '' : `${values.join('\0')}\0`;
}

/** A file's row hashes by key, from its projection (hashing its rows now when they are not yet). */
export function hashesOf(file: FileProjection): Map<string, string> {
  if (file.hashes !== undefined) return file.hashes;
  if (file.unhashed !== undefined) {
    const hashes = new Map<string, string>();
    const unhashed = file.unhashed;
    if ('rows' in unhashed) unhashed.rows.forEach((row, i) => hashes.set(row.key, rowHash(row, unhashed.shown[i])));
    else {
      const values = batchHashes(unhashed.batch!, unhashed.start, unhashed.keys.length);
      unhashed.keys.forEach((key, i) => hashes.set(key, values[i]!));
    }
    file.hashes = hashes;
    delete file.unhashed;
    return hashes;
  }
  const keys = file.packed!.keys.split('\0');
  const hashes = file.packed!.hashes.split('\0');
  const out = new Map<string, string>();
  for (let i = 0; i < keys.length - 1; i++) out.set(keys[i]!, hashes[i]!);
  return out;
}
