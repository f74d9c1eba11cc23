/**
 * An embedder behind the embedding cache: only texts the cache has not seen reach the model, each
 * once per call, and their vectors are appended for next time. The counters let the indexer report
 * what was really embedded (and a benchmark assert that appending 10 facts embeds exactly 10 texts).
 */
import { errorMessage, VaultkeeperError } from '../core/errors.js';
import type { EmbeddingCache } from './cache.js';
import type { Embedder } from './contract.js';

export interface EmbedCounters {
  /** Texts asked for, repeats included. */
  requested: number;
  /** Texts the wrapped embedder computed (cache misses, each distinct text once). */
  embedded: number;
  /** Calls made to the wrapped embedder. */
  calls: number;
}

export interface CachedEmbedder extends Embedder {
  /** Running totals since the wrapper was made. */
  readonly stats: Readonly<EmbedCounters>;
  /** The embedder without the cache: for one-off texts such as search queries, where reading a large cache costs more than embedding. */
  readonly uncached: Embedder;
}

export interface CacheOptions {
  /** Told when the cache cannot be written (a read-only vault, a full disk); the vectors are still returned. */
  onWarning?: (message: string) => void;
}

export function withCache(embedder: Embedder, cache: EmbeddingCache, options: CacheOptions = {}): CachedEmbedder {
  if (cache.model !== embedder.model || cache.dimensions !== embedder.dimensions) {
    throw new VaultkeeperError(
      'VK_EMBED_CACHE',
      `the embedding cache holds ${cache.model} (${cache.dimensions} dimensions), not ${embedder.model} (${embedder.dimensions})`,
    );
  }
  const stats: EmbedCounters = { requested: 0, embedded: 0, calls: 0 };
  return {
    model: embedder.model,
    dimensions: embedder.dimensions,
    stats,
    uncached: embedder,
    async embed(texts) {
      stats.requested += texts.length;
      await cache.refresh();
      const found = texts.map((text) => cache.get(text));
      const missing = [...new Set(texts.filter((_, i) => found[i] === undefined))];
      if (missing.length === 0) return found as Float32Array[];
      stats.calls++;
      const vectors = await embedder.embed(missing);
      if (vectors.length !== missing.length) {
        throw new VaultkeeperError('VK_EMBED_FAILED', `${embedder.model} returned ${vectors.length} vectors for ${missing.length} texts`);
      }
      const wrong = vectors.find((vector) => vector.length !== embedder.dimensions);
      if (wrong !== undefined) {
        throw new VaultkeeperError('VK_EMBED_FAILED', `${embedder.model} returned a ${wrong.length}-dimension vector, expected ${embedder.dimensions}`);
      }
      stats.embedded += missing.length;
      const fresh = new Map(missing.map((text, i) => [text, vectors[i]!]));
      try {
        await cache.put([...fresh]);
      } catch (error) {
        if (options.onWarning === undefined) throw error;
        options.onWarning(`could not write the embedding cache ${cache.file ?? '(in memory)'}: ${errorMessage(error)}`);
      }
      return texts.map((text, i) => found[i] ?? fresh.get(text)!);
    },
  };
}
