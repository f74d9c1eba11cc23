/**
 * Loading LanceDB for the index store (store.ts, its only user), as little of it as the store uses. LanceDB's
 * entry (dist/index.js) also loads its embedding functions, rerankers and other parts the store never calls;
 * for the version this is written against, the store gets its four names from the three modules that define
 * them instead, and anything unexpected (another version, a moved file, a missing export) loads the whole
 * module as before. A cache of a module, not state: every caller gets the same one.
 */
import type { Connection, ConnectionOptions } from '@lancedb/lancedb';
import type * as Lance from '@lancedb/lancedb';
import { readFileSync } from 'node:fs';
import { Module, createRequire } from 'node:module';
import path from 'node:path';
import { ARROW_EXPORTS, ARROW_VERSION } from './arrow-exports.js';

/** What the store uses of LanceDB. */
export interface LanceApi {
  connect(uri: string, options?: Partial<ConnectionOptions>): Promise<Connection>;
  Index: typeof Lance.Index;
  MatchQuery: typeof Lance.MatchQuery;
  MultiMatchQuery: typeof Lance.MultiMatchQuery;
}

/** The versions whose module layout the lean load knows (connection.js, query.js, indices.js, native.js under dist/). */
const KNOWN_VERSION = /^0\.31\./;
/** LanceDB 0.31 can deadlock building a full-text index on 2 cores unless its thread count is fixed (lancedb#3568). */
const DEFAULT_THREADS = '2';
/**
 * One worker per full-text build. With more, the rows reach the workers in whatever order the threads take them,
 * each worker's part of the index keeps its own postings, and a row's BM25 sum can come out a float's last bit
 * apart from one build to the next; rows whose printed scores were equal then fell apart by that bit before the
 * key broke their tie, so two builds of the same files answered some searches differently (17 of 972 at 1M
 * facts). One worker made two builds' scores identical, row for row, at no cost in CPU or memory on two cores
 * (docs/benchmarks.md). LanceDB reads it once, at its first full-text build in the process.
 */
const FTS_WORKERS = '1';

let loaded: LanceApi | undefined;

/** LanceDB, loaded once per process: resolving the modules again on each call cost a warm search ~0.3 ms (docs/benchmarks.md). */
export async function lance(): Promise<LanceApi> {
  loaded ??= loadLance();
  return loaded;
}

function loadLance(): LanceApi {
  lanceEnvironment();
  // LanceDB is CommonJS: require()d, it skips the ES module loader's scan of its exports (~6 ms of a CLI search).
  const require = createRequire(import.meta.url);
  const main = require.resolve('@lancedb/lancedb');
  arrowAsOneFile(main);
  return leanLance() ?? (require(main) as typeof Lance);
}

/** LanceDB's settings from the environment, given their defaults here before its native binding first loads. */
export function lanceEnvironment(): void {
  process.env.LANCE_CPU_THREADS ??= DEFAULT_THREADS;
  process.env.LANCE_FTS_NUM_SHARDS ??= FTS_WORKERS;
  // LanceDB's Rust loggers write warnings (e.g. about k-means clusters, a legacy full-text index) to stderr;
  // keep the CLI's stderr for us. LANCE_LOG is lance's, LANCEDB_LOG the Node binding's.
  process.env.LANCE_LOG ??= 'error';
  process.env.LANCEDB_LOG ??= 'error';
}

/**
 * The installed LanceDB's dist/ folder when it is a version whose module layout this code knows (KNOWN_VERSION),
 * else null; it throws where LanceDB cannot be resolved.
 */
export function knownLanceDist(): string | null {
  const dist = path.dirname(createRequire(import.meta.url).resolve('@lancedb/lancedb'));
  try {
    const pkg = JSON.parse(readFileSync(path.join(dist, '..', 'package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' && KNOWN_VERSION.test(pkg.version) ? dist : null;
  } catch {
    return null;
  }
}

/**
 * The store's four names from the modules that define them (~5 ms of CPU less than the entry's two dozen modules,
 * docs/benchmarks.md), or null when the installed LanceDB is not laid out as 0.31 is. `connect` is the entry's
 * for a URI and options: the native connection, storage option names in snake case, wrapped as the entry does.
 */
function leanLance(): LanceApi | null {
  try {
    const dist = knownLanceDist();
    if (dist === null) return null;
    const require = createRequire(path.join(dist, 'index.js'));
    const { LocalConnection, cleanseStorageOptions } = require('./connection.js') as Partial<LeanParts['connection']>;
    const { MatchQuery, MultiMatchQuery } = require('./query.js') as Partial<typeof Lance>;
    const { Index } = require('./indices.js') as Partial<typeof Lance>;
    const native = (require('./native.js') as Partial<LeanParts['native']>).Connection;
    if (LocalConnection === undefined || cleanseStorageOptions === undefined || native === undefined || typeof native.new !== 'function') return null;
    if (MatchQuery === undefined || MultiMatchQuery === undefined || Index === undefined) return null;
    const connect = async (uri: string, options: Partial<ConnectionOptions> = {}): Promise<Connection> =>
      new LocalConnection(await native.new(uri, { ...options, storageOptions: cleanseStorageOptions(options.storageOptions) } as ConnectionOptions));
    return { connect, Index, MatchQuery, MultiMatchQuery };
  } catch {
    return null;
  }
}

/** The shapes the lean load takes from LanceDB's internal modules (not in its public types). */
interface LeanParts {
  connection: {
    LocalConnection: new (inner: unknown) => Connection;
    cleanseStorageOptions(options?: Record<string, string>): Record<string, string> | undefined;
  };
  native: { Connection: { new: (uri: string, options: ConnectionOptions) => Promise<unknown> } };
}

/**
 * LanceDB requires apache-arrow, whose CommonJS build is some 200 files: loading them cost a CLI search
 * ~80 ms of CPU, more than the query. The same package ships its whole library as one file
 * (Arrow.esnext.min.js: the same version and the same exports, without the Node stream adapters LanceDB
 * does not use), which loads in a fraction of that: ~10 ms, still a tenth of a CLI search, which reads its
 * results without Arrow (ipc-messages.ts). So LanceDB gets, in require's cache under the name its
 * `require('apache-arrow')` resolves to (Node documents adding entries to require.cache), a module of the same
 * names whose values load the one-file build on first use: its modules only use Arrow inside their functions, and
 * re-export it as getters, so a search never loads it, and a write does when it first builds a table. For another
 * version of apache-arrow than the one whose names arrow-exports.ts lists, the one-file build loads at once; should
 * the file be missing, nothing is cached and LanceDB loads the usual build.
 */
function arrowAsOneFile(lanceMain: string): void {
  try {
    const fromLance = createRequire(lanceMain);
    const main = fromLance.resolve('apache-arrow');
    if (fromLance.cache[main] !== undefined) return;
    const bundle = fromLance.resolve('apache-arrow/Arrow.esnext.min');
    const version = (JSON.parse(readFileSync(path.join(path.dirname(bundle), 'package.json'), 'utf8')) as { version?: unknown }).version;
    if (version !== ARROW_VERSION) {
      fromLance(bundle);
      const loaded = fromLance.cache[bundle];
      if (loaded !== undefined) fromLance.cache[main] = loaded;
      return;
    }
    let arrow: Record<string, unknown> | undefined;
    const exports: Record<string, unknown> = {};
    for (const name of ARROW_EXPORTS) {
      Object.defineProperty(exports, name, { enumerable: true, get: () => (arrow ??= fromLance(bundle) as Record<string, unknown>)[name] });
    }
    const lazy = new Module(main);
    lazy.filename = main;
    lazy.exports = exports;
    lazy.loaded = true;
    fromLance.cache[main] = lazy;
  } catch {
    // The usual build then loads as before.
  }
}
