/**
 * The rows table opened to be read only, straight through LanceDB's native binding (its native.js), for the store a
 * vault searches with. LanceDB's JavaScript around the binding (the connection, table and query builders, and what
 * they load: indices, its Arrow glue, the embedding registry, reflect-metadata…) cost a CLI search at 1M facts
 * ~15 ms of its ~150 to load (docs/benchmarks.md), for builders that pass each call on to the native objects. These
 * take the calls the store's search path makes, under the names LanceDB's builders give them and with the native
 * object as `inner`, as theirs have (the store drives the native query itself: store.ts `nativeQuery`); they have no
 * other method, so nothing can write through them. Only for the LanceDB whose binding this was written against
 * (lance-load.ts KNOWN_VERSION): for any other, or a binding without these names, `readLance` is null and the store
 * loads LanceDB as before.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { knownLanceDist, lanceEnvironment } from './lance-load.js';

/** LanceDB's `Operator.Or` (query.js): a row may hold any of the query's words. */
const OR = 'OR';

/** The native objects' calls used here (native.d.ts of LanceDB 0.31). */
interface NativeBatches {
  next(): Promise<Buffer | null>;
}
interface NativeTakeQuery {
  selectColumns(columns: string[]): void;
  withRowId(): void;
  execute(maxBatchLength?: number | null, timeoutMs?: number | null): Promise<NativeBatches>;
}
interface NativeQuery extends NativeTakeQuery {
  onlyIf(predicate: string): void;
  fullTextSearch(query: object): void;
  limit(limit: number): void;
}
interface NativeTable {
  query(): NativeQuery;
  takeRowIds(rowIds: bigint[]): NativeTakeQuery;
  version(): Promise<number>;
  countRows(filter?: string | null): Promise<number>;
  close(): void;
}
interface NativeConnection {
  openTable(name: string, namespacePath?: string[] | null): Promise<NativeTable>;
  tableNames(namespacePath?: string[] | null): Promise<string[]>;
  close(): void;
}
interface NativeBinding {
  Connection: { new: (uri: string, options: object) => Promise<NativeConnection> };
  JsFullTextQuery: {
    matchQuery(query: string, column: string, boost: number, fuzziness: number, maxExpansions: number, operator: string, prefixLength: number): object;
    multiMatchQuery(query: string, columns: string[], boosts: number[] | undefined, operator: string): object;
  };
}

/** A full-text query as LanceDB's MatchQuery and MultiMatchQuery hold it. */
export interface ReadTextQuery {
  readonly inner: object;
}

/** What both kinds of query take: the columns to read, and each row's id with them. */
class ReadColumns<Q extends NativeTakeQuery> {
  constructor(readonly inner: Q) {}

  select(columns: string[]): this {
    this.inner.selectColumns(columns);
    return this;
  }

  withRowId(): this {
    this.inner.withRowId();
    return this;
  }
}

export class ReadQuery extends ReadColumns<NativeQuery> {
  fullTextSearch(query: ReadTextQuery): this {
    this.inner.fullTextSearch({ query: query.inner });
    return this;
  }

  where(predicate: string): this {
    this.inner.onlyIf(predicate);
    return this;
  }

  limit(limit: number): this {
    this.inner.limit(limit);
    return this;
  }
}

export class ReadTakeQuery extends ReadColumns<NativeTakeQuery> {}

export class ReadTable {
  constructor(private readonly inner: NativeTable) {}

  query(): ReadQuery {
    return new ReadQuery(this.inner.query());
  }

  /** Row ids are whole numbers below 2^53 (store.ts reads them so): LanceDB's builder takes the same as bigints. */
  takeRowIds(ids: readonly number[]): ReadTakeQuery {
    return new ReadTakeQuery(this.inner.takeRowIds(ids.map((id) => BigInt(id))));
  }

  version(): Promise<number> {
    return this.inner.version();
  }

  countRows(filter?: string): Promise<number> {
    return this.inner.countRows(filter);
  }

  close(): void {
    this.inner.close();
  }
}

export class ReadConnection {
  constructor(private readonly inner: NativeConnection) {}

  async openTable(name: string): Promise<ReadTable> {
    return new ReadTable(await this.inner.openTable(name, []));
  }

  tableNames(): Promise<string[]> {
    return this.inner.tableNames([]);
  }

  close(): void {
    this.inner.close();
  }
}

/** What a read store needs of LanceDB: a local connection and the two full-text queries, as LanceDB's own take them. */
export interface ReadApi {
  connect(uri: string): Promise<ReadConnection>;
  MatchQuery: new (query: string, column: string) => ReadTextQuery;
  MultiMatchQuery: new (query: string, columns: string[], options?: { boosts?: number[] }) => ReadTextQuery;
}

let loaded: ReadApi | null | undefined;

/** The read API over LanceDB's binding, once per process; null where the installed LanceDB is not one it knows. */
export function readLance(): ReadApi | null {
  loaded ??= loadReadApi();
  return loaded;
}

function loadReadApi(): ReadApi | null {
  try {
    const dist = knownLanceDist();
    if (dist === null) return null;
    lanceEnvironment();
    const binding = createRequire(path.join(dist, 'index.js'))('./native.js') as Partial<NativeBinding>;
    const { Connection, JsFullTextQuery } = binding;
    if (typeof Connection?.new !== 'function' || typeof JsFullTextQuery?.matchQuery !== 'function' || typeof JsFullTextQuery.multiMatchQuery !== 'function') return null;
    const text = JsFullTextQuery;
    return {
      // A zero interval makes every read see other processes' writes, as the store's own connection does.
      connect: async (uri) => new ReadConnection(await Connection.new(uri, { readConsistencyInterval: 0 })),
      // LanceDB's defaults (query.js): boost 1, no fuzziness, 50 expansions, OR, no prefix.
      MatchQuery: class {
        readonly inner: object;
        constructor(query: string, column: string) {
          this.inner = text.matchQuery(query, column, 1.0, 0, 50, OR, 0);
        }
      },
      MultiMatchQuery: class {
        readonly inner: object;
        constructor(query: string, columns: string[], options?: { boosts?: number[] }) {
          this.inner = text.multiMatchQuery(query, columns, options?.boosts, OR);
        }
      },
    };
  } catch {
    return null;
  }
}
