/**
 * A projection worker that dies mid-pass loses nothing (DESIGN §9: a crash leaves the index rebuildable, and
 * here not even a rebuild is needed). With `reindex:worker-chunk` armed the worker thread ends as soon as it
 * is handed a chunk, with no reply and no error (src/core/failpoint.ts); the pool hands that chunk back to the
 * indexer's thread, gives the dead worker no chunk in the pass's later runs, and the command exits 0 with one
 * note. The rows, their table order and row hash shards (index-rows/) are those of a build in one thread, on a rebuild and
 * on an update. Were the chunk not handed back, the pass would wait for it with nothing left to run: the CLI
 * ends with exit 0 and no result (a hang would be killed after 60 s), and the test fails.
 */
import { describe, expect, it } from 'vitest';
import { indexTerms } from '../../src/indexer/terms.js';
import { runCli, runJson } from '../helpers/cli.js';
import { changeProjectionVault, makeProjectionVault, projectionState } from '../helpers/projection-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

interface Reindexed {
  rows: number;
  workers: number;
  ms: number;
}

const alone = { VAULTKEEPER_INDEX_WORKERS: '0' };
const crashing = { VAULTKEEPER_INDEX_WORKERS: '1', VAULTKEEPER_FAILPOINT: 'reindex:worker-chunk' };

const PAGES = 800;

/** Reindexes with the worker's failpoint armed: exit 0, the JSON result, and the one note that a worker stopped. */
async function reindexCrashing(args: readonly string[]): Promise<Reindexed> {
  const run = await runCli([...args, '--json'], { env: crashing, timeoutMs: 60_000 });
  expect(run.code, run.stderr).toBe(0);
  // A pass left waiting for a chunk that never comes drains the event loop: the CLI ends, exit 0, with no result.
  expect(run.stdout, 'reindex ended without a result').not.toBe('');
  expect(run.stderr.trim()).toBe('vaultkeeper: 1 of 1 projection workers stopped; their files were projected in the main thread');
  return JSON.parse(run.stdout) as Reindexed;
}

describe('a projection worker that dies mid-pass', () => {
  it('loses no row: a rebuild and an update give what one thread gives', async () => {
    const expectedRoot = await makeProjectionVault(await tempDir(), PAGES);
    const expectedBuild = await runJson<Reindexed>(['--vault', expectedRoot, 'reindex', '--clear'], { env: alone });
    expect(expectedBuild.rows).toBeGreaterThan(1_000);
    const expected = await projectionState(expectedRoot);

    const root = await makeProjectionVault(await tempDir(), PAGES);
    const built = await reindexCrashing(['--vault', root, 'reindex', '--clear']);
    expect(built).toEqual({ ...expectedBuild, workers: 1, ms: built.ms });
    const actual = await projectionState(root);
    expect(actual.rows.map((row) => row.key)).toEqual(expected.rows.map((row) => row.key));
    expect(actual.rows).toEqual(expected.rows);
    expect(actual.manifest).toBe(expected.manifest);

    await changeProjectionVault(expectedRoot, PAGES);
    const expectedUpdate = await runJson<Reindexed>(['--vault', expectedRoot, 'reindex'], { env: alone });
    await changeProjectionVault(root, PAGES);
    const updated = await reindexCrashing(['--vault', root, 'reindex']);
    expect(updated).toEqual({ ...expectedUpdate, workers: 1, ms: updated.ms });
    const after = await projectionState(expectedRoot);
    expect(after.rows.filter((row) => String(row.content).startsWith(indexTerms('A late ferry to Porto')))).toHaveLength(1);
    expect(await projectionState(root)).toEqual(after);
  }, 180_000);
});
