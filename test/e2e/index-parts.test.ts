/**
 * A new table written in parts while it is projected (src/indexer/table-parts.ts) is the table written at once:
 * the same rows in the same order and the same row hash shards (index-rows/), one fragment a part, and search finds the same.
 * VAULTKEEPER_INDEX_PART_ROWS sets the part size so a small vault is written in many parts.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runJson } from '../helpers/cli.js';
import { makeProjectionVault, projectionState } from '../helpers/projection-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

async function build(partRows: number): Promise<{ root: string; rows: number }> {
  const root = await makeProjectionVault(await tempDir());
  const { rows } = await runJson<{ rows: number }>(['--vault', root, 'reindex', '--clear'], { env: { VAULTKEEPER_INDEX_PART_ROWS: String(partRows), VAULTKEEPER_INDEX_WORKERS: '0' } });
  return { root, rows };
}

/** The table's data files: one a fragment while nothing was deleted. */
async function dataFiles(root: string): Promise<number> {
  return (await readdir(path.join(root, '.vaultkeeper/index/rows.lance/data'))).length;
}

async function search(root: string, query: string): Promise<unknown> {
  return runJson(['--vault', root, 'search', query, '-k', '20']);
}

describe('a new table written in parts', () => {
  it('holds the rows, their order and the row hashes of one write, a fragment a part', async () => {
    const whole = await build(10_000_000);
    const parted = await build(100);
    expect(whole.rows).toBeGreaterThan(1_000);
    expect(parted.rows).toBe(whole.rows);
    expect(await dataFiles(whole.root)).toBe(1);
    // Several parts, each of at least 100 rows but the last.
    const fragments = await dataFiles(parted.root);
    expect(fragments).toBeGreaterThanOrEqual(5);
    expect(fragments).toBeLessThanOrEqual(Math.floor(whole.rows / 100) + 1);

    const expected = await projectionState(whole.root);
    const actual = await projectionState(parted.root);
    expect(actual.rows.map((row) => row.key)).toEqual(expected.rows.map((row) => row.key));
    expect(actual.rows).toEqual(expected.rows);
    expect(actual.manifest).toBe(expected.manifest);
    for (const query of ['cello orchestra', 'harbour café', 'Tōkyō']) expect(await search(parted.root, query)).toEqual(await search(whole.root, query));
  }, 120_000);
});
