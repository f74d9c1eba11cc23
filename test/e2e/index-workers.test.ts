/**
 * Projection workers (src/indexer/project-pool.ts) change where the rows are made, never what they are: the
 * same vault built in one thread and with one or two workers (VAULTKEEPER_INDEX_WORKERS forces the pool
 * whatever the vault's size) gives the same rows in the same table order and the same row hash shards (index-rows/), on a
 * rebuild and on an update that changes, adds and removes files.
 */
import { describe, expect, it } from 'vitest';
import { indexTerms } from '../../src/indexer/terms.js';
import { runJson } from '../helpers/cli.js';
import { changeProjectionVault, makeProjectionVault, projectionState } from '../helpers/projection-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

/** Enough pages that the workers have loaded before the pass ends (with the 40 this test once had, 3 instrumented rebuilds here gave the worker no chunk). */
const PAGES = 800;

interface Reindexed {
  rows: number;
  workers: number;
  ms: number;
}

async function build(workers: number): Promise<{ root: string; result: Reindexed }> {
  const root = await makeProjectionVault(await tempDir(), PAGES);
  const result = await runJson<Reindexed>(['--vault', root, 'reindex', '--clear'], { env: { VAULTKEEPER_INDEX_WORKERS: String(workers) } });
  return { root, result };
}

/** Some files edited, one added, one removed, a page's citations changed, most pages edited; then reindexed. */
async function update(root: string, workers: number): Promise<Reindexed> {
  await changeProjectionVault(root, PAGES);
  return runJson<Reindexed>(['--vault', root, 'reindex'], { env: { VAULTKEEPER_INDEX_WORKERS: String(workers) } });
}

describe('projection workers', () => {
  it('give the rows, their table order and the row hashes that one thread gives, on a rebuild and an update', async () => {
    const alone = await build(0);
    expect(alone.result.workers).toBe(0);
    expect(alone.result.rows).toBeGreaterThan(1_000);
    const expected = await projectionState(alone.root);
    expect(expected.rows).toHaveLength(alone.result.rows);

    for (const workers of [1, 2]) {
      const pooled = await build(workers);
      expect(pooled.result.workers).toBe(workers);
      const actual = await projectionState(pooled.root);
      expect(actual.rows.map((row) => row.key)).toEqual(expected.rows.map((row) => row.key));
      expect(actual.rows).toEqual(expected.rows);
      expect(actual.manifest).toBe(expected.manifest);
    }

    // An update: rows of changed files replace theirs, the rest stay; both ways alike (the pool forced for this small pass).
    const updatedAlone = await update(alone.root, 0);
    const pooled = await build(1);
    const updatedPooled = await update(pooled.root, 1);
    expect(updatedPooled.workers).toBe(1);
    expect(updatedPooled).toEqual({ ...updatedAlone, workers: 1, ms: updatedPooled.ms });
    const after = await projectionState(alone.root);
    expect(after.rows.filter((row) => String(row.content).startsWith(indexTerms('A late ferry to Porto')))).toHaveLength(1);
    expect(await projectionState(pooled.root)).toEqual(after);
  }, 120_000);
});
