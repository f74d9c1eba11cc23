/**
 * The vault's embedder as the indexer and search use it: the configured model (or its fallback)
 * behind the embedding cache in `.vaultkeeper/cache/embeddings/`.
 */
import { errorMessage } from '../core/errors.js';
import type { VaultContext } from '../vault/context.js';
import type { EmbeddingCache } from './cache.js';
import type { CachedEmbedder } from './cached.js';
import { createEmbedder } from './embedder.js';

export async function loadEmbedder(
  ctx: Pick<VaultContext, 'root' | 'config' | 'env'>,
  onWarning?: (message: string) => void,
): Promise<CachedEmbedder | null> {
  const options = { root: ctx.root, env: ctx.env, ...(onWarning === undefined ? {} : { onWarning }) };
  const embedder = await createEmbedder(ctx.config.index, options);
  if (embedder === null) return null;
  // The cache (and zlib for its checksums) loads only with an embedder: a full-text search never needs it.
  const [{ EmbeddingCache }, { withCache }] = await Promise.all([import('./cache.js'), import('./cached.js')]);
  let cache: EmbeddingCache;
  try {
    cache = await EmbeddingCache.open(ctx.root, embedder.model, embedder.dimensions);
  } catch (error) {
    // Search must work in a vault it cannot write: embed without the disk cache.
    onWarning?.(`the embedding cache is unavailable (${errorMessage(error)}); embedding without it`);
    cache = EmbeddingCache.inMemory(embedder.model, embedder.dimensions);
  }
  return withCache(embedder, cache, options);
}
