import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * The settings LanceDB reads from the environment, set as the store loads it (lance-load.ts). One full-text build
 * worker is what makes two builds of the same files score every row alike to the bit (docs/benchmarks.md); LanceDB
 * reads it once, so it must be in the environment before the first build, i.e. when the module is loaded.
 */
describe('the environment LanceDB is loaded with', () => {
  const kept = process.env.LANCE_FTS_NUM_SHARDS;
  afterEach(() => {
    if (kept === undefined) delete process.env.LANCE_FTS_NUM_SHARDS;
    else process.env.LANCE_FTS_NUM_SHARDS = kept;
    vi.resetModules();
  });

  it('builds a full-text index with one worker, so two builds of the same rows score them alike', async () => {
    delete process.env.LANCE_FTS_NUM_SHARDS;
    const { lance } = await import('../../src/indexer/lance-load.js');
    await lance();
    expect(process.env.LANCE_FTS_NUM_SHARDS).toBe('1');
  });

  it("keeps a person's own setting", async () => {
    process.env.LANCE_FTS_NUM_SHARDS = '3';
    const { lance } = await import('../../src/indexer/lance-load.js');
    await lance();
    expect(process.env.LANCE_FTS_NUM_SHARDS).toBe('3');
  });
});
