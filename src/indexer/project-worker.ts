/**
 * A projection worker's entry (project-pool.ts starts it): projects the chunks of files it is sent with
 * project-chunk.ts and hands back each chunk's row keys and hashes and its rows encoded column by column,
 * the column buffers transferred, not copied: structured-cloning row objects cost as much as the projection
 * saved (docs/benchmarks.md).
 */
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../core/errors.js';
import { threadFailpoint } from '../core/failpoint.js';
import { batchBuffers } from './arrow-rows.js';
import type { ChunkFile, ChunkInputs } from './project-chunk.js';

export type WorkerRequest = { type: 'inputs'; inputs: ChunkInputs } | { type: 'chunk'; id: number; files: ChunkFile[] };

const port = parentPort!;
// The projection (markdown-it, yaml) loads while the indexer reads the files; once it has, the worker asks for
// chunks, so one slow to start never holds a chunk the indexer's thread could have taken.
const loading = import('./project-chunk.js').then(async (chunks) => {
  await Promise.all([chunks.rowHashing, chunks.loadPages()]);
  return chunks;
});
void loading.then(() => port.postMessage({ ready: true }));
let projector: InstanceType<Awaited<typeof loading>['ChunkProjector']> | null = null;
// Requests are handled one at a time, in order: each waits for the one before (the module load first).
let queue: Promise<void> = Promise.resolve();

port.on('message', (request: WorkerRequest) => {
  queue = queue.then(async () => {
    const { ChunkProjector } = await loading;
    if (request.type === 'inputs') {
      projector = new ChunkProjector(request.inputs);
      return;
    }
    threadFailpoint('reindex:worker-chunk'); // the worker dies holding a chunk (test/e2e/index-worker-crash.test.ts)
    try {
      const result = projector!.project(request.files, 'encoded', true);
      port.postMessage({ id: request.id, result }, (result.batches ?? []).flatMap(batchBuffers));
    } catch (error) {
      port.postMessage({ id: request.id, error: errorMessage(error) });
    }
  });
});
