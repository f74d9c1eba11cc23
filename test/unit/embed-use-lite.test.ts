/** use-lite: the Universal Sentence Encoder shipped in an npm package, loaded once, offline. */
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { createEmbedder, type Embedder } from '../../src/embed/embedder.js';

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((sum, v, i) => sum + v * b[i]!, 0);

describe('use-lite embedder', () => {
  let embedder: Embedder;
  const warnings: string[] = [];
  const consoleLog = console.log;

  beforeAll(async () => {
    const settings = ConfigSchema.parse({ index: { embedder: 'use-lite' } }).index;
    embedder = (await createEmbedder(settings, { root: '/nowhere', env: {}, onWarning: (m) => warnings.push(m) }))!;
  });

  it('loads from the package without a warning or a fallback, and gives the console back', () => {
    expect(warnings).toEqual([]);
    expect(console.log).toBe(consoleLog);
    expect(embedder.model).toBe('use-lite:512');
    expect(embedder.dimensions).toBe(512);
  });

  it('places related sentences closer than unrelated ones', async () => {
    const [dogs, puppies, taxes] = await embedder.embed(['I love dogs', 'puppies are great', 'quarterly tax filing']);
    expect(dot(dogs!, puppies!)).toBeGreaterThan(dot(dogs!, taxes!) + 0.2);
  });

  it('returns one unit vector per text, in order, across batches and for empty texts', async () => {
    const texts = Array.from({ length: 45 }, (_, i) => (i % 10 === 0 ? '' : `fact number ${i} about coffee`));
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(45);
    for (const v of vectors) expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 4);
    const [alone] = await embedder.embed([texts[37]!]);
    expect(dot(alone!, vectors[37]!)).toBeCloseTo(1, 4);
  });
});
