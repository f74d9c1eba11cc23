/** When an indexing pass starts a projection worker, and how it splits the files among the threads. */
import { describe, expect, it } from 'vitest';
import { POOL_MIN_BYTES, chunksOf, poolSize } from '../../src/indexer/project-pool.js';

describe('poolSize', () => {
  const idle = { cores: 4, load: 0.4 };
  it('starts one worker for a large pass on a machine with a core to spare, none for a small one', () => {
    expect(poolSize(POOL_MIN_BYTES, undefined, idle)).toBe(1);
    expect(poolSize(POOL_MIN_BYTES - 1, undefined, idle)).toBe(0);
  });

  it('starts none when the cores are busy, or there are two or one: the indexer and LanceDB take them', () => {
    expect(poolSize(10 * POOL_MIN_BYTES, undefined, { cores: 4, load: 1.5 })).toBe(0);
    expect(poolSize(10 * POOL_MIN_BYTES, undefined, { cores: 2, load: 0 })).toBe(0);
    expect(poolSize(10 * POOL_MIN_BYTES, undefined, { cores: 1, load: 0 })).toBe(0);
  });

  it('starts as many as forced (VAULTKEEPER_INDEX_WORKERS), whatever the size and the load', () => {
    expect(poolSize(0, 2, { cores: 1, load: 9 })).toBe(2);
    expect(poolSize(10 * POOL_MIN_BYTES, 0, idle)).toBe(0);
  });
});

describe('chunksOf', () => {
  it('keeps every file once, in order, in runs of about an even share of the bytes', () => {
    const files = Array.from({ length: 200 }, (_, i) => ({ rel: `n${i}.md`, content: new Uint8Array(1_000 + ((i * 7919) % 9_000)) }));
    const chunks = chunksOf(files, 2);
    expect(chunks.flat().map((file) => file.rel)).toEqual(files.map((file) => file.rel));
    const total = files.reduce((sum, file) => sum + file.content.byteLength, 0);
    expect(chunks.length).toBeGreaterThanOrEqual(8);
    expect(chunks.length).toBeLessThanOrEqual(17);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.reduce((sum, file) => sum + file.content.byteLength, 0)).toBeGreaterThanOrEqual(total / 16);
  });

  it('gives a small pass one chunk', () => {
    expect(chunksOf([{ rel: 'a.md', content: new Uint8Array(100) }, { rel: 'b.md', content: new Uint8Array(100) }], 2)).toHaveLength(1);
  });
});
