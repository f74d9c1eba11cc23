/**
 * The LanceDB table behind search. This is the only module that imports LanceDB (an eslint rule keeps
 * it so: lance-load.ts loads it, lance-read.ts reads through its native binding for a store opened to
 * search); the indexer is its only writer. LanceDB loads lazily, so commands that never search never pay
 * for it.
 */
import type { Connection, Table } from '@lancedb/lancedb';
import type * as Lance from '@lancedb/lancedb';
import type * as Arrow from 'apache-arrow';
import { createRequire } from 'node:module';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import { arrowTable, encodeColumns, joinBatches, type EncodedBatch } from './arrow-rows.js';
import { SHOWN_FIELDS, columnsOf, tableColumns, type ColumnKind, type HIT_FIELDS, type StoredRow } from './columns.js';
import { lance } from './lance-load.js';
import { readLance, type ReadApi } from './lance-read.js';
import { isRemote } from './location.js';
import { KeyedRows, newestBySubject, type KeyedRow } from './newest-keyed.js';
import type { NewestKeyedFiles, SubjectRow } from './newest-keyed-file.js';
import { ShownById } from './shown-by-id.js';
import { ranked, rankedEitherWay, SettledFetches, type ScoredIds, type ShownIds } from './ranked.js';
import { readBatch, readIpc, readIpcColumns, type Cell, type ColumnType, type ResultRows } from './result-rows.js';
import { indexTerms } from './terms.js';
import type { IndexRow } from './rows.js';

export type { StoredRow } from './columns.js';

const TABLE = 'rows';

/** The folder of a local index's table that holds its indices' files (what `probe(true)` reads). */
export function indexFilesFolder(uri: string): string {
  return `${uri}/${TABLE}.lance/_indices`;
}

export type Hit = Pick<IndexRow, (typeof HIT_FIELDS)[number]> & {
  /** BM25 score for full-text hits, cosine distance for vector hits. */
  raw: number;
};
/**
 * The full-text columns hold index terms, already cut, lower-cased, stemmed and without stop words (terms.ts):
 * the index splits them at spaces and folds accents, the one step of LanceDB's English analyzer left to it.
 * No length limit: the long words were dropped before lower case, as LanceDB's analyzer drops them.
 * Without token positions: search asks LanceDB for words only (phrases are checked in search.ts), and a
 * BM25 score does not use positions; the index builds faster and is smaller (docs/benchmarks.md).
 */
export const FTS_OPTIONS = {
  baseTokenizer: 'whitespace',
  lowercase: false,
  stem: false,
  removeStopWords: false,
  asciiFolding: true,
  maxTokenLength: 1_000,
  withPosition: false,
} as const;

/** What the full-text list searches for: words OR-ed over the content, and over the context field at a lower weight. */
export interface TextQuery {
  terms: readonly string[];
  contextWeight: number;
}

/** Flat vector search is fine to about this many rows; beyond it a vector index keeps search fast. */
export const VECTOR_INDEX_ROWS = 50_000;

export class IndexStore {
  private closed = false;
  /**
   * How many hits the vector list fetched per hit kept, as the last query's tie at the cut needed (`ranked`): the
   * next query starts there. It changes what a search costs, never what it finds.
   */
  private vectorFactor = 0;
  /** The fetch size each full-text query settled at, at one table state: where it starts when asked again (ranked.ts). */
  private readonly settledFetches = new SettledFetches();
  /** Each keyed subject's newest row, for a warm process's searches (newestKeyed). */
  private readonly keyedRows = new KeyedRows();
  /** The rows a warm process's full-text searches read, by row id, for one table state (fullText). */
  private readonly shownById = new ShownById();
  /** The table state the last full-text search ended at (null before the first): the next one's start (fullText). */
  private confirmed: string | null = null;

  private constructor(
    private readonly db: Connection,
    private table: Table | null,
    readonly dimensions: number | null,
    /** Each keyed subject's newest row as the index pass left it (newest-keyed-file.ts), for a search's lookup. */
    private readonly keyedFiles: NewestKeyedFiles | null,
    /** A store opened to search only through LanceDB's binding (`openToSearch`): its full-text queries are these. */
    private readonly reader: ReadApi | null = null,
  ) {}

  /**
   * Opens (without creating) the index at `uri`. `dimensions` is the embedder's, or null for full-text only.
   * `keyedFiles`: the files a search's keyed lookup may be answered from (a search's store; a pass writes them).
   */
  static async open(uri: string, dimensions: number | null, keyedFiles: NewestKeyedFiles | null = null): Promise<IndexStore> {
    const { connect } = await lance();
    // A zero interval makes every read see other processes' writes (the watcher, the daemon, the CLI).
    const db = await connect(uri, { readConsistencyInterval: 0 });
    return new IndexStore(db, await openRows(db), dimensions, keyedFiles);
  }

  /**
   * Opens the index at `uri` to be searched and never written (a vault's store): for a local index searched by full
   * text alone, through LanceDB's native binding without its JavaScript (lance-read.ts); otherwise as `open` does.
   */
  static async openToSearch(uri: string, dimensions: number | null, keyedFiles: NewestKeyedFiles | null = null): Promise<IndexStore> {
    const reader = dimensions === null && !isRemote(uri) ? readLance() : null;
    if (reader === null) return IndexStore.open(uri, dimensions, keyedFiles);
    // The read objects stand in for LanceDB's own in the calls the search path makes (lance-read.ts), and only there:
    // none of them has a write method, and the store's writers are only ever called on a store from `open`.
    const db = (await reader.connect(uri)) as unknown as Connection;
    return new IndexStore(db, await openRows(db), dimensions, keyedFiles, reader);
  }

  /**
   * Drops the table at a remote `uri` (a local index is cleared by deleting its folder, reindex.ts). A
   * table LanceDB cannot read may refuse the drop: then there is nothing more to do here, and the open
   * that follows says whether the index is usable.
   */
  static async dropRemote(uri: string): Promise<void> {
    const { connect } = await lance();
    const db = await connect(uri);
    try {
      await db.dropTable(TABLE).catch(() => undefined);
    } finally {
      db.close();
    }
  }

  get exists(): boolean {
    return this.table !== null;
  }

  /** The vector dimension the table was built with (null: no vector column), or undefined without a table. */
  async tableDimensions(): Promise<number | null | undefined> {
    if (this.table === null) return undefined;
    const field = (await this.table.schema()).fields.find((f) => f.name === 'vector');
    if (field === undefined) return null;
    return (field.type as { listSize?: number }).listSize ?? null;
  }

  async count(): Promise<number> {
    return this.table === null ? 0 : this.table.countRows();
  }

  async add(rows: readonly StoredRow[]): Promise<void> {
    if (rows.length === 0) return;
    const created = !this.exists;
    await this.addEncoded([encodeColumns(tableColumns(this.dimensions), rows.length, columnsOf(rows, this.dimensions), this.dimensions)]);
    if (created) await this.buildIndices();
  }

  /**
   * Adds rows already encoded column by column (arrow-rows.ts), the batches in order, as one write: one
   * fragment. The first add creates the table; its indices wait for `buildIndices`, once every row of the
   * first build is in, so they are built once over all of them.
   */
  async addEncoded(batches: readonly EncodedBatch[]): Promise<void> {
    this.writable();
    if (batches.every((batch) => batch.length === 0)) return;
    const arrow = arrowModule();
    const data = arrowTable(arrow, schema(arrow, this.dimensions), [joinBatches(batches.filter((batch) => batch.length > 0))]);
    this.table ??= await this.db.createEmptyTable(TABLE, schema(arrow, this.dimensions));
    await this.table.add(data);
  }

  /**
   * The four indices of a table just created, built once over the rows of its first build (reindex.ts); later
   * rows are searched until the next optimize.
   */
  async buildIndices(): Promise<void> {
    this.writable();
    const table = this.table;
    if (table === null) return;
    const { Index } = await lance();
    const builds = [
      () => table.createIndex('key', { config: Index.btree() }),
      () => table.createIndex('path', { config: Index.btree() }),
      // A search looks up the newest row of each keyed subject it found (newestKeyed): by this index, not a scan of
      // the column, whose cost grew with the vault (11 ms a query at 100k rows, 64 ms at 1M; docs/benchmarks.md).
      () => table.createIndex('subject', { config: Index.btree() }),
      () => table.createIndex('content', { config: Index.fts(FTS_OPTIONS) }),
      () => table.createIndex('context', { config: Index.fts(FTS_OPTIONS) }),
    ];
    // One at a time: side by side, each full-text build held its postings in memory beside the other's, and at 1M
    // facts the four builds took a rebuild's peak RSS from ~730 to ~1,110 MB; one by one the peak was ~160 MB
    // lower for the same CPU time (docs/benchmarks.md). Object storage without a commit lock (s3rver in the
    // tests) also failed concurrent index commits.
    for (const build of builds) await build();
  }

  async deleteKeys(keys: readonly string[]): Promise<void> {
    this.writable();
    if (this.table === null || keys.length === 0) return;
    for (let i = 0; i < keys.length; i += 500) {
      const list = keys.slice(i, i + 500).map(sqlString).join(', ');
      await this.table.delete(`key IN (${list})`);
    }
  }

  /** Rows not yet in the full-text index, and whether compaction is due. */
  async unindexedRows(): Promise<number> {
    if (this.table === null) return 0;
    const stats = await this.table.indexStats('content_idx');
    return stats?.numUnindexedRows ?? 0;
  }

  /** Compacts small fragments and folds new rows into the indices; adds the vector index once the table is large. */
  async optimize(): Promise<void> {
    this.writable();
    if (this.table === null) return;
    await this.table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
    if (this.dimensions === null || (await this.table.countRows()) < VECTOR_INDEX_ROWS) return;
    if (await this.hasVectorIndex()) return;
    // IVF-flat: measured at 100k rows (docs/benchmarks.md) it builds in seconds where HNSW took
    // most of a minute, and keeps a query in tens of milliseconds; exact distances, no quantization.
    const { Index } = await lance();
    const rows = await this.table.countRows();
    const numPartitions = Math.min(1024, Math.max(16, Math.round(Math.sqrt(rows) / 2)));
    await this.table.createIndex('vector', { config: Index.ivfFlat({ distanceType: 'cosine', numPartitions }) });
  }

  async hasVectorIndex(): Promise<boolean> {
    if (this.table === null) return false;
    return (await this.table.listIndices()).some((index) => index.columns.includes('vector'));
  }

  async fragments(): Promise<number> {
    if (this.table === null) return 0;
    const stats = await this.table.stats();
    return stats.fragmentStats.numFragments;
  }

  /** Refuses a write to a store opened to search (`openToSearch`), whose table objects have no write methods. */
  private writable(): void {
    if (this.reader !== null) throw new Error('this index store was opened to be searched, not written (IndexStore.openToSearch)');
  }

  /** A handle kept open across searches picks up a table another process created since. */
  private async current(): Promise<Table | null> {
    this.table ??= await openRows(this.db);
    return this.table;
  }

  /**
   * The best `limit` full-text hits, equal scores in key order (`ranked`). `where` holds the filters besides
   * the archived flag; without any, archived rows are dropped here rather than by a LanceDB prefilter, which
   * reads the flag of every row (docs/benchmarks.md), and the prefiltered query runs only when dropping them
   * left fewer than `limit` of a full list, so the hits are the same either way.
   */
  async fullText(query: TextQuery, filter: { where: string | null; archived: boolean }, limit: number): Promise<Hit[]> {
    return (await this.fullTextWithState(query, filter, limit)).hits;
  }

  /**
   * `fullText`, with the table state the search ended at (null when it asked LanceDB nothing), which the same
   * search's `newestKeyed` is answered at: one reading of the state serves both.
   */
  async fullTextWithState(query: TextQuery, filter: { where: string | null; archived: boolean }, limit: number): Promise<{ hits: Hit[]; state: string | null }> {
    // The query's words become terms as the rows' text did; words that are all stop words find nothing.
    const words = indexTerms(query.terms.join(' '));
    if ((await this.current()) === null || words === '') return { hits: [], state: null };
    const { MultiMatchQuery, MatchQuery } = (this.reader as unknown as Pick<typeof Lance, 'MultiMatchQuery' | 'MatchQuery'> | null) ?? (await lance());
    // The rows read before at this table state are not read again (shown-by-id.ts). A search during which the table
    // changed may have mixed them with another table's (one rebuilt in a new folder numbers its rows from the start
    // again): it forgets them and runs again without them. The state is read once a search, at its end: the state
    // the last search ended at stands for this one's start, since a table's version only grows, so a search that
    // ends at the state the last one ended at ran on it throughout. Only the first search reads it before as well
    // (each reading is two calls into LanceDB, ~0.2 ms of the main thread each at 100k rows: docs/benchmarks.md).
    const before = this.confirmed ?? (await this.tableState());
    const way = this.searchWay();
    const hits = await this.fullTextAt(query, filter, limit, words, before, this.shownById.at(before), { MultiMatchQuery, MatchQuery }, way);
    const after = await (way.state ?? this.tableState());
    this.confirmed = after;
    // Rows that came from one query each (no rows held, no take by id) are of one table state whenever it changed.
    if (after === before || !way.byIds) return { hits, state: after };
    this.shownById.drop();
    // What it settled at may have been of either table: it starts from the least fetch, as every query then does.
    this.settledFetches.clear();
    return { hits: await this.fullTextAt(query, filter, limit, words, null, new Map(), { MultiMatchQuery, MatchQuery }, this.searchWay()), state: after };
  }

  /**
   * How a full-text search went: whether it went by row ids, and the table state read once its last query had
   * begun. LanceDB fixes a query's table version when the query starts (`execute`), before it scans, so the state
   * read then, while the query scans, is read after every row the search gets was fixed; a search's state costs no
   * wait of its own (~0.3 ms at 100k rows, docs/benchmarks.md). A search of several queries reads it after each,
   * and the last reading counts.
   */
  private searchWay(): SearchWay {
    const way: SearchWay = {
      byIds: false,
      state: null,
      started: () => {
        const state = this.tableState();
        // An earlier reading is not awaited once a later one replaces it: its failure is the later one's to report.
        state.catch(() => undefined);
        way.state = state;
      },
    };
    return way;
  }

  /** The table's state (tableState), or null without a table: what the keyed files are stamped with (newest-keyed-file.ts). */
  async state(): Promise<string | null> {
    return (await this.current()) === null ? null : this.tableState();
  }

  /**
   * The keyed rows that may be a subject's newest (`subjects` null: every subject's; else those named), with the
   * archived flag: each subject's rows of the latest date and line, among all rows and among current ones. For the
   * keyed files (newest-keyed-file.ts), which fold these into the same newest rows as every row would give. Read as
   * newestByIds reads, the costly key column last and only for those rows: the pass that asks holds the index lock,
   * so the three reads see one table version.
   */
  async subjectRows(subjects: readonly string[] | null): Promise<SubjectRow[]> {
    if ((await this.current()) === null || subjects?.length === 0) return [];
    const filter = subjects === null ? "subject != ''" : `subject IN (${subjects.map(sqlString).join(', ')})`;
    const CANDIDATE = { subject: 'utf8', date: 'utf8', line: 'int32', _rowid: 'uint64' } as const;
    const [c, archivedIds] = await Promise.all([
      fetchColumns(this.table!.query().where(filter).select(['subject', 'date', 'line']).withRowId(), CANDIDATE),
      // The archived rows' ids (few or none), not the flag of every row: the IPC reader takes no booleans.
      fetchColumns(this.table!.query().where(`${filter} AND archived = true`).select(['subject']).withRowId(), { subject: 'utf8', _rowid: 'uint64' }),
    ]);
    const archived = new Set(archivedIds._rowid!.map(Number));
    const rows = c.subject!.map((subject, i) => ({ subject: String(subject), date: String(c.date![i] ?? ''), line: Number(c.line![i]), id: Number(c._rowid![i]), archived: archived.has(Number(c._rowid![i])) }));
    type Top = { date: string; line: number };
    const later = (row: Top, top: Top | undefined): boolean => top === undefined || row.date > top.date || (row.date === top.date && row.line > top.line);
    const topAll = new Map<string, Top>();
    const topCurrent = new Map<string, Top>();
    for (const row of rows) {
      if (later(row, topAll.get(row.subject))) topAll.set(row.subject, row);
      if (!row.archived && later(row, topCurrent.get(row.subject))) topCurrent.set(row.subject, row);
    }
    const at = (row: Top, top: Top | undefined): boolean => top !== undefined && row.date === top.date && row.line === top.line;
    const tops = rows.filter((row) => at(row, topAll.get(row.subject)) || at(row, topCurrent.get(row.subject)));
    if (tops.length === 0) return [];
    const taken = await fetchColumns(this.table!.takeRowIds(tops.map((row) => row.id)).withRowId().select(['key']), { key: 'utf8', _rowid: 'uint64' }, tops.length);
    const keyOf = new Map(taken._rowid!.map((id, i) => [Number(id), String(taken.key![i])]));
    return tops.map((row) => {
      const key = keyOf.get(row.id);
      if (key === undefined) throw new Error(`row ${row.id} was not found by its id`);
      return { key, subject: row.subject, date: row.date, line: row.line, archived: row.archived };
    });
  }

  /** The open table's state as what a warm process keeps is keyed by: its version and row count. */
  private async tableState(): Promise<string> {
    const [version, rows] = await Promise.all([this.table!.version(), this.table!.countRows()]);
    return `${version}:${rows}`;
  }

  /**
   * fullText at one table state (`state`: where each query settled at it is kept, ranked.ts `SettledFetches`; null:
   * nothing kept), the rows read before at it `held`.
   */
  private async fullTextAt(
    query: TextQuery,
    filter: { where: string | null; archived: boolean },
    limit: number,
    words: string,
    state: string | null,
    held: ReadonlyMap<number, string>,
    { MultiMatchQuery, MatchQuery }: Pick<typeof Lance, 'MultiMatchQuery' | 'MatchQuery'>,
    way: SearchWay,
  ): Promise<ShownHit[]> {
    const hold = <T extends { ids: number[]; shown: string[] }>(got: T): T => {
      this.shownById.hold(got.ids, got.shown);
      return got;
    };
    const run = async (where: string | null): Promise<ShownHit[]> => {
      const search = (size: number): Lance.Query => {
        const fts = query.contextWeight > 0 ? new MultiMatchQuery(words, ['content', 'context'], { boosts: [1, query.contextWeight] }) : new MatchQuery(words, 'content');
        const q = this.table!.query().fullTextSearch(fts).limit(size);
        return where === null ? q : q.where(where);
      };
      // Rows, scores and ids as deep as recent ties went; past that, scores and ids, and the rest by id (ranked.ts).
      return rankedEitherWay(
        async (size) => hold(await fetchShownIds(search(size).select(['shown', '_score']).withRowId(), size, way.started)),
        async (size) => {
          way.byIds = true;
          return fetchScoredIds(search(size).select(['_score']).withRowId(), '_score', size, way.started);
        },
        async (ids) => hold(await fetchTaken(this.table!.takeRowIds(ids).withRowId().select(['shown']), ids.length, way.started)),
        shownHit,
        limit,
        state === null ? null : { fetches: this.settledFetches, query: `${state}\u0000${words}\u0000${where ?? ''}\u0000${query.contextWeight}` },
        held,
      );
    };
    let hits: ShownHit[];
    if (filter.archived) hits = await run(filter.where);
    else if (filter.where !== null) hits = await run(`${filter.where} AND archived = false`);
    else {
      const all = await run(null);
      hits = all.filter((hit) => !hit.archived);
      if (hits.length < all.length && all.length === limit) hits = await run('archived = false');
    }
    return hits;
  }

  /** The `limit` nearest rows by cosine distance, equal distances in key order (`ranked`). */
  async nearest(vector: Float32Array, where: string | null, limit: number): Promise<Hit[]> {
    if ((await this.current()) === null || this.dimensions === null) return [];
    const { hits, enough } = await ranked(async (size) => {
      let q = this.table!.query().nearestTo(vector).distanceType('cosine').select(['shown', '_distance']).limit(size);
      if (where !== null) q = q.where(where);
      return fetchRows(q, size, '_distance');
    }, shownHit, limit, 'ascending', this.vectorFactor);
    this.vectorFactor = enough / limit;
    return hits;
  }

  /**
   * For each subject, the newest row that states it (latest date, then latest line: the later-written): keyed facts,
   * and facts or dated page statements that state a change of state in plain English (projection.ts). `where` holds
   * the filters besides the archived flag, as in fullText; without any, a warm process answers from the subjects'
   * newest rows it keeps for the table's version (newest-keyed.ts), since the table rarely changes between searches.
   */
  async newestKeyed(
    subjects: readonly string[],
    filter: { where: string | null; archived: boolean },
    /** The state this search's full-text query ended at (`fullTextWithState`), read again when null. */
    state: string | null = null,
  ): Promise<Map<string, KeyedRow>> {
    if ((await this.current()) === null || subjects.length === 0) return new Map();
    const where = [...(filter.where === null ? [] : [filter.where]), ...(filter.archived ? [] : ['archived = false'])];
    const read = async (subjectFilter: string): Promise<Array<KeyedRow & { subject: string }>> => {
      const KEYED = { key: 'utf8', subject: 'utf8', date: 'utf8', line: 'int32' } as const;
      const c = await fetchColumns(this.table!.query().where([subjectFilter, ...where].join(' AND ')).select(Object.keys(KEYED)), KEYED);
      return c.key!.map((key, i) => ({ key: String(key), subject: String(c.subject![i]), date: String(c.date![i] ?? ''), line: Number(c.line![i]) }));
    };
    if (filter.where === null) {
      const at = state ?? (await this.tableState());
      // The files the index pass wrote for this table state, when it is theirs (a CLI search: no second query).
      const filed = this.keyedFiles?.newest(at, filter.archived, subjects) ?? null;
      if (filed !== null) return filed;
      const held = await this.keyedRows.newest(at, filter.archived, subjects, () => read("subject != ''"));
      if (held !== null) return held;
    }
    const named = `subject IN (${subjects.map(sqlString).join(', ')})`;
    return (await this.newestByIds([named, ...where].join(' AND '))) ?? newestBySubject(await read(named));
  }

  /**
   * The newest row of each subject the filter finds, its key read last: the subjects' rows by their date and line
   * (with row ids), then the winners' keys by id. The key column costs most to read: at 1M rows, for 3,666 rows of
   * four subjects, 40–42 ms of CPU with it and 16 without (docs/benchmarks.md), and a fresh process (a CLI search)
   * makes this lookup once. Null when the table changed between the two reads (its state read as each began): then
   * the caller reads every key, as before.
   */
  private async newestByIds(filter: string): Promise<Map<string, KeyedRow> | null> {
    const states: Array<Promise<string>> = [];
    const started = (): void => {
      const state = this.tableState();
      state.catch(() => undefined);
      states.push(state);
    };
    const CANDIDATE = { subject: 'utf8', date: 'utf8', line: 'int32', _rowid: 'uint64' } as const;
    const c = await fetchColumns(this.table!.query().where(filter).select(['subject', 'date', 'line']).withRowId(), CANDIDATE, Infinity, started);
    // The row id stands in for the key until the winners' keys are read: ties fall as they did (newestBySubject).
    const winners = newestBySubject(c.subject!.map((subject, i) => ({ key: String(c._rowid![i]), subject: String(subject), date: String(c.date![i] ?? ''), line: Number(c.line![i]) })));
    const ids = [...winners.values()].map((row) => Number(row.key));
    if (ids.length === 0) return winners;
    const taken = await fetchColumns(this.table!.takeRowIds(ids).withRowId().select(['key']), { key: 'utf8', _rowid: 'uint64' }, ids.length, started);
    const [first, last] = await Promise.all([states[0], states.at(-1)]);
    if (first === undefined || first !== last) return null;
    const keyOf = new Map(taken._rowid!.map((id, i) => [Number(id), String(taken.key![i])]));
    const out = new Map<string, KeyedRow>();
    for (const [subject, row] of winners) {
      const key = keyOf.get(Number(row.key));
      if (key === undefined) return null;
      out.set(subject, { date: row.date, line: row.line, key });
    }
    return out;
  }

  /**
   * A check that the table's files are readable: one row through every column (cheap: every freshness pass
   * does it), then, with `indexes`, each index the way search uses it (a full-text match of a word that row
   * holds, on both text fields; a lookup through the key, path and subject btrees), so a damaged file under
   * _indices/ shows here and not only at the next search. `fullText: false` leaves out the two full-text matches
   * (~70 ms of CPU each at 1M rows), for index files found as a full probe left them (reindex.ts); a lookup of
   * a key no row has then reads the rows written since the last compaction, which no index covers, from their
   * data files, as the full-text matches did.
   */
  async probe(indexes: boolean, fullText = indexes): Promise<void> {
    if (this.table === null) return;
    const [row] = (await this.table.query().limit(1).toArray()) as Array<Record<string, unknown>>;
    if (row === undefined || !indexes) return;
    const { MatchQuery } = await lance();
    for (const column of fullText ? (['content', 'context'] as const) : []) {
      const word = /[\p{L}\p{N}]+/u.exec(String(row[column] ?? '') || String(row.content ?? ''))?.[0] ?? 'probe';
      await this.table.query().fullTextSearch(new MatchQuery(word, column)).select(['key']).limit(1).toArray();
    }
    // A key no row has: the lookup reads the key of every row the btree does not cover, each such data file.
    if (!fullText) await this.table.query().where("key = ''").select(['key']).limit(1).toArray();
    await this.table.query().where(`key = ${sqlString(String(row.key))}`).select(['key']).limit(1).toArray();
    await this.table.query().where(`path = ${sqlString(String(row.path))}`).select(['key']).limit(1).toArray();
    // The subject btree too (keyed lookups): a damaged one would otherwise show only at a search naming a subject.
    await this.table.query().where(`subject = ${sqlString(typeof row.subject === 'string' ? row.subject : 'probe')}`).select(['key']).limit(1).toArray();
  }

  /** Every row's key and path (for drift checks). */
  async keys(): Promise<Array<{ key: string; path: string }>> {
    if (this.table === null) return [];
    const rows = await this.table.query().select(['key', 'path']).toArray();
    return rows.map((r: Record<string, unknown>) => ({ key: String(r.key), path: String(r.path) }));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.table?.close();
    this.db.close();
  }
}

/**
 * The rows table, or null when there is none. Opened first and listed only when that fails (a search opens it
 * one round trip to LanceDB's threads sooner): a listed table that does not open is an error; an unlisted one
 * is none. Listing alone is not enough: on some S3-compatible stores (s3rver) LanceDB lists no tables where one
 * exists.
 */
async function openRows(db: Connection): Promise<Table | null> {
  try {
    return await db.openTable(TABLE);
  } catch (error) {
    if ((await db.tableNames()).includes(TABLE)) throw error;
    return null;
  }
}

/**
 * A LanceDB error as one line for a person: its first line before the chain of causes, without the Rust
 * source paths it carries (the whole error stays as the cause, shown with --debug).
 */
export function lanceMessage(error: unknown): string {
  const first = errorMessage(error).split('\n')[0]!.split(/\s*Caused by:/)[0]!;
  return first.replace(/,?\s*\/\S+\.rs:\d+:\d+/g, '').trim();
}

/** Wraps LanceDB failures in an error that says what to do. */
export function indexError(action: string, error: unknown): VaultkeeperError {
  return new VaultkeeperError('VK_INDEX', `the index could not ${action}: ${lanceMessage(error)}`, {
    hint: 'run `vaultkeeper reindex --clear` to rebuild it from the vault files (nothing is lost)',
    cause: error,
  });
}

/**
 * apache-arrow as LanceDB's Node binding loads it (CommonJS), the very instance: a table built with the
 * ES module build is a foreign object to LanceDB, which rebuilds it and then rejects its non-null fields.
 * Resolved once per process, as LanceDB is: a `createRequire` and a lookup cost each query ~0.14 ms.
 */
let arrowLoaded: typeof Arrow | undefined;

function arrowModule(): typeof Arrow {
  arrowLoaded ??= createRequire(import.meta.url)('apache-arrow') as typeof Arrow;
  return arrowLoaded;
}

export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** The table's Arrow schema, from its column list (columns.ts). */
function schema(arrow: typeof Arrow, dimensions: number | null): Arrow.Schema {
  const { Field, Utf8, Int32, Bool, List, Float32, FixedSizeList, Schema } = arrow;
  const type = (kind: ColumnKind): Arrow.DataType => {
    switch (kind) {
      case 'utf8':
      case 'utf8?':
        return new Utf8();
      case 'int32':
        return new Int32();
      case 'bool':
        return new Bool();
      case 'utf8-list':
        return new List(new Field('item', new Utf8(), true));
      case 'vector':
        return new FixedSizeList(dimensions ?? 0, new Field('item', new Float32(), true));
    }
  };
  return new Schema(
    tableColumns(dimensions).map((column) => {
      const metadata = UNCOMPRESSED.has(column.name) ? new Map([['lance-encoding:compression', 'none']]) : undefined;
      return new Field(column.name, type(column.kind), column.kind === 'utf8?', metadata);
    }),
  );
}

/**
 * The large text columns are stored as they are: LanceDB compresses strings with FSST by default, which cost
 * the 100k rebuild ~6% of its CPU (~0.2 s) for a data file 0.58× the size; a search reads a few rows of them
 * and took no longer (docs/benchmarks.md).
 */
const UNCOMPRESSED = new Set(['shown', 'content', 'context']);

/** How a full-text search went (IndexStore.searchWay). */
interface SearchWay {
  byIds: boolean;
  state: Promise<string> | null;
  /** Called as each of the search's queries has begun. */
  started: () => void;
}

/** A hit with the archived flag it was fetched with; it goes on as a Hit (nothing reads the flag past the store, and copying 60 hits without it cost a search ~0.03 ms). */
type ShownHit = Hit & { archived: boolean };

/**
 * LanceDB's native query under its JavaScript builder (the builder's `inner`; query.js drives it the same way in
 * toArrow): executed directly, it hands over each batch as an Arrow IPC buffer, which `readIpc` reads without
 * building Arrow tables. Only its calls used here.
 */
interface NativeQuery {
  execute(maxBatchLength?: number | null, timeoutMs?: number | null): Promise<{ next(): Promise<Buffer | null> }>;
}

function nativeQuery(query: Lance.Query | Lance.VectorQuery | Lance.TakeQuery): NativeQuery | null {
  const inner = (query as unknown as { inner?: unknown }).inner;
  return typeof inner === 'object' && inner !== null && typeof (inner as Partial<NativeQuery>).execute === 'function' ? (inner as NativeQuery) : null;
}

/**
 * The `shown` strings and the scores of a query of at most `size` rows, batch by batch. Once the stream has given
 * `size` rows it holds no more: asking it for its end would be one more round trip to LanceDB's threads, so the
 * loop stops there. A warm search spent more on LanceDB's JavaScript around the native query (the builder's
 * iterator, an Arrow table per batch and one of them all) than on reading the rows (docs/benchmarks.md), so the
 * native query is driven here when the builder has one; otherwise, or for a buffer `readIpc` declines, Arrow decodes.
 */
async function fetchRows(query: Lance.Query | Lance.VectorQuery, size: number, rawColumn: '_score' | '_distance'): Promise<ResultRows> {
  const out: ResultRows = { shown: [], raw: [] };
  const native = nativeQuery(query);
  if (native === null) {
    for await (const batch of query) {
      readBatch(batch, rawColumn, out);
      if (out.raw.length >= size) break;
    }
    return out;
  }
  const batches = await native.execute();
  for (let buffer = await batches.next(); buffer !== null; buffer = out.raw.length >= size ? null : await batches.next()) {
    if (!readIpc(buffer, rawColumn, out)) for (const batch of arrowModule().tableFromIPC(buffer).batches) readBatch(batch, rawColumn, out);
  }
  return out;
}

/**
 * Every row of a query, as a list of values a column (`want`: the columns and their types): read from the native
 * query's IPC buffers without Arrow (`readIpcColumns`), a buffer it declines decoded by Arrow. A query that can give
 * at most `most` rows (its limit, the ids taken) is not asked for its end once it gave them: that is one more call
 * into LanceDB, whose answer comes back through the main thread (~0.2 ms of it at 100k rows; docs/benchmarks.md).
 */
async function fetchColumns(
  query: Lance.Query | Lance.TakeQuery,
  want: Readonly<Record<string, ColumnType>>,
  most = Infinity,
  /** Called once the query has begun (its table version fixed), before its rows are read. */
  started: () => void = () => undefined,
): Promise<Record<string, Cell[]>> {
  const out: Record<string, Cell[]> = Object.fromEntries(Object.keys(want).map((name) => [name, []]));
  const decode = (batch: Arrow.RecordBatch): void => {
    for (const name of Object.keys(want)) {
      const column = batch.getChild(name);
      for (let i = 0; i < batch.numRows; i++) {
        const value = column?.get(i) as Cell | bigint | undefined;
        // A row id (UInt64) comes from Arrow as a bigint: a number, as readIpcColumns reads it.
        out[name]!.push(typeof value === 'bigint' ? Number(value) : (value ?? null));
      }
    }
  };
  const native = nativeQuery(query);
  if (native === null) {
    // The builder's iterator begins the query at its first batch.
    let begun = false;
    for await (const batch of query) {
      if (!begun) started();
      begun = true;
      decode(batch);
    }
    if (!begun) started();
    return out;
  }
  const first = Object.keys(want)[0]!;
  const batches = await native.execute();
  started();
  for (let buffer = await batches.next(); buffer !== null; buffer = out[first]!.length >= most ? null : await batches.next()) {
    if (!readIpcColumns(buffer, want, out)) for (const batch of arrowModule().tableFromIPC(buffer).batches) decode(batch);
  }
  return out;
}

/** The scores and row ids of a query that selects only its score column, with row ids. */
async function fetchScoredIds(query: Lance.Query, rawColumn: '_score' | '_distance', most: number, started?: () => void): Promise<ScoredIds> {
  const c = await fetchColumns(query, { [rawColumn]: 'float32', _rowid: 'uint64' }, most, started);
  return { ids: c._rowid! as number[], raw: c[rawColumn]! as number[] };
}

/** A full-text query's `shown` JSON, scores and row ids. */
async function fetchShownIds(query: Lance.Query, most: number, started?: () => void): Promise<ShownIds> {
  const c = await fetchColumns(query, { shown: 'utf8', _score: 'float32', _rowid: 'uint64' }, most, started);
  return { shown: c.shown! as string[], raw: c._score! as number[], ids: c._rowid! as number[] };
}

/** The `shown` JSON of rows taken by id, with their ids (in the order LanceDB gives them). */
async function fetchTaken(query: Lance.TakeQuery, most: number, started?: () => void): Promise<{ ids: number[]; shown: string[] }> {
  const c = await fetchColumns(query, { shown: 'utf8', _rowid: 'uint64' }, most, started);
  return { ids: c._rowid! as number[], shown: c.shown! as string[] };
}

/** A hit from its `shown` JSON (SHOWN_FIELDS in order) and its score. */
function shownHit(shown: string, raw: number): ShownHit {
  const v = JSON.parse(shown) as unknown[];
  // One object literal: every hit gets the same shape at once, which made building and reading 60 hits ~1/3
  // cheaper than adding the fields one by one (docs/benchmarks.md). The type holds it to every field of a hit.
  const hit: Record<keyof ShownHit, unknown> = {
    key: v[AT.key], kind: v[AT.kind], path: v[AT.path], line: v[AT.line], line_end: v[AT.line_end], section_line: v[AT.section_line],
    section_end: v[AT.section_end], id: v[AT.id], date: v[AT.date], category: v[AT.category], tags: v[AT.tags], title: v[AT.title],
    heading: v[AT.heading], heading_path: v[AT.heading_path], citations: v[AT.citations], text: v[AT.text], subject: v[AT.subject],
    archived: v[AT.archived], raw,
  };
  return hit as ShownHit;
}

/** Each field's place in the `shown` array. */
const AT = Object.fromEntries(SHOWN_FIELDS.map((field, i) => [field, i])) as Record<(typeof SHOWN_FIELDS)[number], number>;
