/**
 * The embedding cache (one append-only file per model under .vaultkeeper/cache/embeddings/) and the
 * cached embedder: hits and misses, reopening, torn and garbled records, models kept apart.
 */
import { mkdir, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { EMBEDDING_CACHE_DIR, EmbeddingCache } from '../../src/embed/cache.js';
import { withCache } from '../../src/embed/cached.js';
import { createHashEmbedder } from '../../src/embed/hash.js';
import { loadEmbedder } from '../../src/embed/load.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

/** Opens a cache and reads what is in it, as a new process would. */
async function read(root: string, model: string, dimensions: number): Promise<EmbeddingCache> {
  const cache = await EmbeddingCache.open(root, model, dimensions);
  await cache.refresh();
  return cache;
}

const vec = (...values: number[]): Float32Array => Float32Array.from(values);
const list = (v: Float32Array | undefined): number[] | undefined => (v === undefined ? undefined : [...v]);

describe('embedding cache', () => {
  it('stores vectors by text under .vaultkeeper/cache/embeddings and finds them after reopening', async () => {
    const root = await tempDir();
    const cache = await read(root, 'test-model:3', 3);
    expect(path.dirname(cache.file!)).toBe(path.join(root, EMBEDDING_CACHE_DIR));
    expect(cache.get('dark roast')).toBeUndefined();
    await cache.put([
      ['dark roast', vec(1, 0, 0)],
      ['Lisbon', vec(0, 0.6, 0.8)],
    ]);
    expect(list(cache.get('dark roast'))).toEqual([1, 0, 0]);

    const reopened = await read(root, 'test-model:3', 3);
    expect(reopened.size).toBe(2);
    expect(list(reopened.get('Lisbon'))).toEqual([0, 0.6000000238418579, 0.800000011920929]);
    expect(reopened.get('lisbon')).toBeUndefined();
    expect(reopened.stats).toEqual({ records: 2, skippedBytes: 0 });
  });

  it('keeps two models apart, even for the same text and size', async () => {
    const root = await tempDir();
    const a = await read(root, 'model-a', 2);
    const b = await read(root, 'model-b', 2);
    await a.put([['same text', vec(1, 0)]]);
    await b.put([['same text', vec(0, 1)]]);
    expect(a.file).not.toBe(b.file);
    expect(list((await read(root, 'model-a', 2)).get('same text'))).toEqual([1, 0]);
    expect(list((await read(root, 'model-b', 2)).get('same text'))).toEqual([0, 1]);
    expect((await read(root, 'model-a', 4)).size).toBe(0);
  });

  it('skips a truncated last record after a crash, and reads records appended after it', async () => {
    const root = await tempDir();
    const cache = await read(root, 'm', 4);
    await cache.put([
      ['one', vec(1, 0, 0, 0)],
      ['two', vec(0, 1, 0, 0)],
      ['three', vec(0, 0, 1, 0)],
    ]);
    const file = cache.file!;
    await truncate(file, (await stat(file)).size - 7);

    const afterCrash = await read(root, 'm', 4);
    expect(afterCrash.size).toBe(2);
    expect(afterCrash.get('three')).toBeUndefined();

    await afterCrash.put([['four', vec(0, 0, 0, 1)]]);
    const later = await read(root, 'm', 4);
    expect(list(later.get('four'))).toEqual([0, 0, 0, 1]);
    expect(list(later.get('two'))).toEqual([0, 1, 0, 0]);
    expect(later.get('three')).toBeUndefined();
    expect(later.stats.skippedBytes).toBeGreaterThan(0);
  });

  it('skips a garbled record in the middle and keeps the ones around it', async () => {
    const root = await tempDir();
    const cache = await read(root, 'm', 2);
    await cache.put([
      ['a', vec(1, 0)],
      ['b', vec(0, 1)],
      ['c', vec(1, 1)],
    ]);
    const bytes = await readFile(cache.file!);
    const recordBytes = 4 + 32 + 2 * 4 + 4;
    const second = bytes.length - 2 * recordBytes;
    bytes[second + 40] = bytes[second + 40]! ^ 0xff; // a bit flip inside b's vector
    await writeFile(cache.file!, bytes);
    const reopened = await read(root, 'm', 2);
    expect(reopened.get('b')).toBeUndefined();
    expect(list(reopened.get('a'))).toEqual([1, 0]);
    expect(list(reopened.get('c'))).toEqual([1, 1]);
    expect(reopened.stats.skippedBytes).toBe(recordBytes);
  });

  it('sees what another writer appended, and concurrent appends all survive', async () => {
    const root = await tempDir();
    const [one, two] = await Promise.all([read(root, 'm', 8), read(root, 'm', 8)]);
    const entry = (writer: number, i: number): [string, Float32Array] => [`w${writer}-${i}`, Float32Array.from({ length: 8 }, (_, j) => writer * 1000 + i + j)];
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => [one.put([entry(1, i), entry(1, i + 100)]), two.put([entry(2, i), entry(2, i + 100)])]).flat(),
    );
    await one.refresh();
    expect(one.size).toBe(160);
    const fresh = await read(root, 'm', 8);
    expect(fresh.size).toBe(160);
    expect(fresh.stats.skippedBytes).toBe(0);
    expect(list(fresh.get('w2-139'))).toEqual(list(entry(2, 139)[1]));
  });

  it('replaces a file that is not a cache of this model, and recovers when the file is deleted', async () => {
    const root = await tempDir();
    const first = await read(root, 'm', 2);
    await writeFile(first.file!, 'garbage that is not a header\n');
    const reopened = await read(root, 'm', 2);
    expect(reopened.size).toBe(0);
    await reopened.put([['x', vec(1, 0)]]);
    expect(list((await read(root, 'm', 2)).get('x'))).toEqual([1, 0]);
    expect((await readdir(path.join(root, EMBEDDING_CACHE_DIR))).some((name) => name.includes('.bad-'))).toBe(true);

    await rm(reopened.file!); // a person clears the cache while a process holds it open
    await reopened.refresh();
    await reopened.put([['y', vec(0, 1)]]);
    const afterDelete = await read(root, 'm', 2);
    expect(afterDelete.get('x')).toBeUndefined();
    expect(list(afterDelete.get('y'))).toEqual([0, 1]);
  });
});

describe('cached embedder', () => {
  it('embeds only what the cache has not seen, once per distinct text, and counts it', async () => {
    const root = await tempDir();
    const inner = createHashEmbedder(32);
    const embedder = withCache(inner, await EmbeddingCache.open(root, inner.model, inner.dimensions));
    expect(embedder.model).toBe('hash-v1:32');
    expect(embedder.uncached).toBe(inner);

    const facts = Array.from({ length: 10 }, (_, i) => `fact ${i}`);
    const first = await embedder.embed(facts);
    expect(embedder.stats).toEqual({ requested: 10, embedded: 10, calls: 1 });
    expect(first.map(list)).toEqual((await inner.embed(facts)).map(list));

    const more = [...facts, 'new a', 'new b', 'new a'];
    const second = await embedder.embed(more);
    expect(embedder.stats).toEqual({ requested: 23, embedded: 12, calls: 2 });
    expect(list(second[12])).toEqual(list(second[10]));

    await embedder.embed(facts.slice(0, 3));
    expect(embedder.stats).toEqual({ requested: 26, embedded: 12, calls: 2 });

    // A rebuild (new process, same vault) re-embeds nothing it has seen.
    const rebuilt = withCache(inner, await EmbeddingCache.open(root, inner.model, inner.dimensions));
    const again = await rebuilt.embed(more);
    expect(rebuilt.stats).toEqual({ requested: 13, embedded: 0, calls: 0 });
    expect(again.map(list)).toEqual(second.map(list));
  });

  it('refuses a cache of another model', async () => {
    const root = await tempDir();
    const cache = await EmbeddingCache.open(root, 'hash-v1:64', 64);
    expect(() => withCache(createHashEmbedder(32), cache)).toThrow(/holds hash-v1:64/);
  });

  it('loadEmbedder gives the vault its configured embedder behind the on-disk cache', async () => {
    const root = await tempDir();
    const config = ConfigSchema.parse({ index: { embedder: 'hash', hash: { dimensions: 48 } } });
    const embedder = (await loadEmbedder({ root, config, env: {} }))!;
    expect(embedder.model).toBe('hash-v1:48');
    await embedder.embed(['appended fact']);
    expect(await readdir(path.join(root, EMBEDDING_CACHE_DIR))).toHaveLength(1);
    const again = (await loadEmbedder({ root, config, env: {} }))!;
    await again.embed(['appended fact']);
    expect(again.stats.embedded).toBe(0);

    expect(await loadEmbedder({ root, config: ConfigSchema.parse({ index: { embedder: 'none' } }), env: {} })).toBeNull();
  });

  it('still embeds, with a warning, when the vault cannot hold a cache', async () => {
    const root = await tempDir();
    await mkdir(root, { recursive: true });
    await writeFile(path.join(root, '.vaultkeeper'), 'a file where the folder should be');
    const warnings: string[] = [];
    const embedder = (await loadEmbedder({ root, config: ConfigSchema.parse({ index: { embedder: 'hash' } }), env: {} }, (m) => warnings.push(m)))!;
    const [vector] = await embedder.embed(['still works']);
    expect(vector).toHaveLength(256);
    expect(warnings[0]).toContain('the embedding cache is unavailable');
    await embedder.embed(['still works']);
    expect(embedder.stats.embedded).toBe(1);
  });
});
