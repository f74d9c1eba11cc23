/** The built-in hash embedder: deterministic, normalized, and similar texts land close together. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { createHashEmbedder } from '../../src/embed/hash.js';

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((sum, v, i) => sum + v * b[i]!, 0);
const norm = (a: Float32Array): number => Math.sqrt(dot(a, a));

describe('hash embedder', () => {
  it('is deterministic: same text, same vector, across instances', async () => {
    const texts = ['Prefers dark roast coffee #coffee', 'home city:: Lisbon', 'Caroline: I went hiking'];
    const [a, b] = await Promise.all([createHashEmbedder().embed(texts), createHashEmbedder(256).embed(texts)]);
    expect(a.map((v) => [...v])).toEqual(b.map((v) => [...v]));
  });

  it('names its model and size, and honours the configured dimensions', async () => {
    const embedder = await createEmbedder(ConfigSchema.parse({ index: { embedder: 'hash', hash: { dimensions: 64 } } }).index, { root: '/nowhere', env: {} });
    expect(embedder?.model).toBe('hash-v1:64');
    expect(embedder?.dimensions).toBe(64);
    const [vector] = await embedder!.embed(['hello world']);
    expect(vector).toBeInstanceOf(Float32Array);
    expect(vector!.length).toBe(64);
    expect(createHashEmbedder().model).toBe('hash-v1:256');
  });

  it('returns unit vectors for every text, even one without words', async () => {
    const texts = ['', '   ', '!!! ???', 'a', 'The quick brown fox jumps over the lazy dog', 'Ünïcödé — 東京 café ☕', 'x'.repeat(10_000)];
    for (const vector of await createHashEmbedder().embed(texts)) expect(norm(vector)).toBeCloseTo(1, 5);
  });

  it('ignores case, Unicode width and plural endings', async () => {
    const [a, b, c] = await createHashEmbedder().embed(['Dogs love walks', 'ＤＯＧ LOVES walk', 'dog love walks']);
    expect(dot(a!, c!)).toBeCloseTo(1, 5);
    expect(dot(b!, c!)).toBeCloseTo(1, 5);
  });

  it('puts texts that share words closer than texts that do not', async () => {
    const [query, near, far] = await createHashEmbedder().embed(['my dog loves long walks', 'dogs love walks in the park', 'quarterly tax filing deadline']);
    expect(dot(query!, near!)).toBeGreaterThan(0.3);
    expect(dot(query!, near!)).toBeGreaterThan(dot(query!, far!) + 0.3);
  });

  it('keeps word order a little (bigrams)', async () => {
    const [ab, ab2, ba] = await createHashEmbedder().embed(['new york pizza', 'new york pizza', 'york new pizza']);
    expect(dot(ab!, ab2!)).toBeCloseTo(1, 5);
    expect(dot(ab!, ba!)).toBeLessThan(0.99);
  });

  it('does not drift: the pinned vectors change only with a new model version', async () => {
    // If this fails, the algorithm changed: bump VERSION in src/embed/hash.ts so caches and indexes rebuild.
    const vectors = await createHashEmbedder().embed(['Prefers dark roast coffee', 'home city:: Lisbon', '']);
    const digest = createHash('sha256');
    for (const v of vectors) digest.update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    expect(digest.digest('hex')).toBe('9f6d0d5fee35d0b0e303caaf399a47e6b68143d92124c369610a1e0702ef7ad4');
  });
});
