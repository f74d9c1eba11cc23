/**
 * Projection on both cores: a rebuild's JavaScript (parse, project, hash, encode) ran on one thread while
 * the machine had two. Chunks of files go to worker threads and to the indexer's own thread alike, each
 * taking the next chunk when done; the results come back in chunk order, so the rows and their order are
 * the same as projecting in one thread. A worker costs ~30–50 ms to start and loads the parser itself, so
 * small passes stay in the thread (`poolSize`, measured in docs/benchmarks.md).
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { failpoint } from '../core/failpoint.js';
import type { ChunkFile, ChunkInputs, ChunkProjector, ChunkResult } from './project-chunk.js';
import type { WorkerRequest } from './project-worker.js';

/**
 * Below this many bytes to project, a worker costs more than it saves: on a quiet machine the Dendron notes
 * (2.2 MB) built no faster with one and used 0.35 s more CPU (docs/benchmarks.md).
 */
export const POOL_MIN_BYTES = 4_000_000;
/** Chunks per thread: enough that the threads finish close together, few enough that each is worth a message. */
const CHUNKS_PER_THREAD = 8;

/**
 * How many workers to start for `bytes` of files to project: `forced` (VAULTKEEPER_INDEX_WORKERS, for tests
 * and measuring) when set, else one beside the indexer's thread above POOL_MIN_BYTES when a core is left idle
 * besides this thread's and one for LanceDB's and V8's helper threads. A worker costs CPU of its own (its start,
 * its modules, code compiled again: +0.3–0.5 s on 1,000 notes), which pays only on a core nothing else wants:
 * on 2 idle cores the 100k rebuild took 4% longer with one and 21% more CPU, since the index terms are computed
 * in JavaScript (docs/benchmarks.md); with the load average at 11 a worker made every rebuild slower.
 */
export function poolSize(bytes: number, forced: number | undefined, machine = { cores: os.availableParallelism(), load: os.loadavg()[0] ?? 0 }): number {
  if (forced !== undefined) return forced;
  return bytes >= POOL_MIN_BYTES && machine.cores - machine.load >= 3 ? 1 : 0;
}

/** VAULTKEEPER_INDEX_WORKERS as a count of workers, or undefined when unset or not a whole number. */
export function workersFromEnv(): number | undefined {
  const value = process.env.VAULTKEEPER_INDEX_WORKERS;
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** A worker's message: ready for chunks, or a chunk's result (or why it failed). */
type Reply = { ready: true } | { id: number; result?: ChunkResult; error?: string };

/** Splits files (in order) into runs of about `bytes` each. */
export function chunksOf(files: readonly ChunkFile[], threads: number): ChunkFile[][] {
  const total = files.reduce((sum, file) => sum + file.content.byteLength, 0);
  const target = Math.max(16_384, total / (threads * CHUNKS_PER_THREAD));
  const chunks: ChunkFile[][] = [];
  let current: ChunkFile[] = [];
  let size = 0;
  for (const file of files) {
    current.push(file);
    size += file.content.byteLength;
    if (size >= target) {
      chunks.push(current);
      current = [];
      size = 0;
    }
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

interface PoolWorker {
  worker: Worker;
  /** Its module has loaded: it takes chunks. */
  ready: boolean;
  /** It failed or exited: it takes none, in this run or later ones. */
  dead: boolean;
  /** Settles once it is ready or dead. */
  settled: Promise<void>;
  /** What the current run does when it is ready, replies, or dies. */
  onReply: (reply: Reply) => void;
  onFail: () => void;
}

/** How long a run waits for forced workers to load before this thread starts without them. */
const READY_WAIT_MS = 20_000;

export class ProjectionPool {
  private readonly workers: PoolWorker[];

  /**
   * Starts `count` workers now, so they load while the indexer reads the files. With `waitReady` (a count
   * forced by VAULTKEEPER_INDEX_WORKERS, for tests and measuring) a run lets every worker load and take a
   * chunk before this thread takes any: else on a small or busy pass this thread could finish alone and
   * the forced workers would have projected nothing.
   */
  constructor(count: number, private readonly waitReady = false) {
    this.workers = Array.from({ length: count }, () => {
      let settle = (): void => undefined;
      const settled = new Promise<void>((resolve) => (settle = resolve));
      const worker = new Worker(new URL('./project-worker.js', import.meta.url));
      const entry: PoolWorker = { worker, ready: false, dead: false, settled, onReply: () => undefined, onFail: () => undefined };
      entry.worker.on('message', (reply: Reply) => {
        if ('ready' in reply) entry.ready = true;
        entry.onReply(reply);
        settle();
      });
      const fail = (): void => {
        settle();
        if (entry.dead) return;
        entry.dead = true;
        entry.onFail();
      };
      entry.worker.on('error', fail);
      entry.worker.on('exit', fail);
      return entry;
    });
  }

  get threads(): number {
    return this.workers.length + 1;
  }

  /** Workers that died or failed a chunk: this thread projected what they held. */
  get lost(): number {
    return this.workers.filter((entry) => entry.dead).length;
  }

  /**
   * Projects the chunks on the workers and on this thread (`local`, made from the same `inputs`), and
   * returns their results in chunk order. A worker takes chunks once it is ready; one that fails hands its
   * chunk back, and the rest run without it; a chunk that fails here fails the pass.
   */
  async run(inputs: ChunkInputs, chunks: readonly ChunkFile[][], local: ChunkProjector, onChunk?: (files: number) => void): Promise<ChunkResult[]> {
    const results: Array<ChunkResult | undefined> = new Array(chunks.length);
    const pending: number[] = chunks.map((_, i) => i);
    let done = 0;
    let wake: (() => void) | null = null;
    const finish = (id: number, result: ChunkResult): void => {
      results[id] = result;
      done++;
      failpoint('reindex:projecting'); // a kill while workers project (test/e2e/failpoints.test.ts)
      onChunk?.(chunks[id]!.length);
    };
    for (const entry of this.workers) {
      if (entry.dead) continue;
      let current: number | null = null;
      const next = (): void => {
        current = pending.shift() ?? null;
        if (current !== null) entry.worker.postMessage({ type: 'chunk', id: current, files: chunks[current]! } satisfies WorkerRequest);
      };
      entry.onFail = () => {
        if (current !== null) pending.unshift(current); // this thread takes it
        current = null;
        wake?.();
      };
      entry.onReply = (reply) => {
        if (entry.dead) return; // its chunk went back to this thread when it failed
        if ('ready' in reply) return next();
        if (reply.result === undefined) {
          entry.dead = true; // a chunk it could not project: this thread tries it, and gives the error if it fails too
          return entry.onFail();
        }
        current = null;
        finish(reply.id, reply.result);
        next();
        wake?.();
      };
      entry.worker.postMessage({ type: 'inputs', inputs } satisfies WorkerRequest);
      if (entry.ready) next();
    }
    if (this.waitReady) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, READY_WAIT_MS)));
      await Promise.race([Promise.all(this.workers.map((entry) => entry.settled)), late]);
      clearTimeout(timer);
    }
    try {
      while (done < chunks.length) {
        const id = pending.shift();
        if (id !== undefined) {
          finish(id, local.project(chunks[id]!, 'encoded'));
          // Let the workers' replies in before the next chunk.
          await new Promise((resolve) => setImmediate(resolve));
        } else {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = null;
        }
      }
    } finally {
      for (const entry of this.workers) {
        entry.onReply = () => undefined;
        entry.onFail = () => undefined;
      }
    }
    return results as ChunkResult[];
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map(({ worker }) => worker.terminate()));
  }
}
