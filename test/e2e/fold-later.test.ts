/**
 * Who folds new rows into a large table's full-text index (issue 31): LanceDB's compaction rewrites the whole
 * table below a million rows (7–8 s of CPU at 1M facts), so a pass someone waits for (a search's freshness pass,
 * `forget`'s) leaves a large table's fold to idle work until FOLD_LATER_FACTOR × FOLD_WRITES writes or
 * FOLD_LATER_FLAT_ROWS flat rows (what costs a search is a write's fragment, not its few rows), and the `reindex`
 * command does it as soon as it is due. "Large" is VAULTKEEPER_FOLD_LATER_ROWS here (a table of a few thousand
 * rows), 200k otherwise.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FOLD_IN_ROWS, FOLD_LATER_FACTOR, FOLD_LATER_FLAT_ROWS } from '../../src/indexer/reindex.js';
import { IndexStore } from '../../src/indexer/store.js';
import { runCli } from '../helpers/cli.js';
import { initVault } from '../helpers/vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

/** A page of `lines` rows, each a line of its own words. */
function page(n: number, lines: number): string {
  const notes = Array.from({ length: lines }, (_, i) => `- kiln firing note p${n}x${i}`);
  return [`# Firing ${n}`, '', '## Notes', '', ...notes, ''].join('\n');
}

async function addPage(root: string, n: number, lines: number): Promise<void> {
  await mkdir(path.join(root, '2_Areas'), { recursive: true });
  await writeFile(path.join(root, '2_Areas', `Firing ${n}.md`), page(n, lines));
}

async function unindexedRows(root: string): Promise<number> {
  const store = await IndexStore.open(path.join(root, '.vaultkeeper', 'index'), null);
  return store.unindexedRows().finally(() => store.close());
}

async function search(root: string, env: Record<string, string>): Promise<void> {
  const found = await runCli(['search', 'kiln firing', '--json'], { cwd: root, env });
  expect(found.code, found.stderr).toBe(0);
}

describe('folding new rows into a large table', () => {
  it('leaves a large table fold to the reindex command up to FOLD_LATER_FLAT_ROWS flat rows; a small table folds at once', async () => {
    const large = { VAULTKEEPER_FOLD_LATER_ROWS: '100' };
    const root = await initVault(await tempDir());
    // Rows enough that the flat rows below stay under half the table (a table mostly flat is folded at once).
    await addPage(root, 1, 2 * FOLD_LATER_FLAT_ROWS + 100);
    expect((await runCli(['reindex', '--json'], { cwd: root, env: large })).code).toBe(0);
    expect(await unindexedRows(root)).toBe(0);

    // More flat rows than twice FOLD_IN_ROWS (the bound before issue 31's forget folds), from one write: a
    // search's pass leaves them flat, since they cost a search little (a fragment, not a fold of the table).
    const some = FOLD_IN_ROWS * FOLD_LATER_FACTOR + 10;
    await addPage(root, 2, some);
    await search(root, large);
    expect(await unindexedRows(root)).toBe(some);
    // The reindex command is idle work: it folds them.
    const folded = await runCli(['reindex', '--json'], { cwd: root, env: large });
    expect(JSON.parse(folded.stdout)).toMatchObject({ rebuilt: null });
    expect(await unindexedRows(root)).toBe(0);

    // One flat row short of FOLD_LATER_FLAT_ROWS a search's pass still leaves them; at the bound it folds them itself.
    await addPage(root, 3, FOLD_LATER_FLAT_ROWS - 1);
    await search(root, large);
    expect(await unindexedRows(root)).toBe(FOLD_LATER_FLAT_ROWS - 1);
    await addPage(root, 4, 1);
    await search(root, large);
    expect(await unindexedRows(root)).toBe(0);

    // Below the size that makes a table large (the default here), the same search folds at FOLD_IN_ROWS.
    await addPage(root, 5, some);
    await search(root, {});
    expect(await unindexedRows(root)).toBe(0);
  }, 180_000);

  it("an idle fold (`reindex --fold-in`) leaves a large table's few new rows flat and folds them once a fold is due", async () => {
    const large = { VAULTKEEPER_FOLD_LATER_ROWS: '100' };
    const root = await initVault(await tempDir());
    await addPage(root, 1, 200);
    expect((await runCli(['reindex', '--json'], { cwd: root, env: large })).code).toBe(0);

    // One small write: a fold would rewrite the whole table for a few rows, so the idle fold leaves them.
    await addPage(root, 2, 5);
    await search(root, large);
    expect(await unindexedRows(root)).toBe(5);
    expect((await runCli(['reindex', '--fold-in'], { cwd: root, env: large })).code).toBe(0);
    expect(await unindexedRows(root)).toBe(5);

    // FOLD_IN_ROWS flat rows make a fold due: the idle fold folds them (a search's pass would wait for FOLD_LATER_FLAT_ROWS).
    await addPage(root, 3, FOLD_IN_ROWS);
    await search(root, large);
    expect(await unindexedRows(root)).toBe(FOLD_IN_ROWS + 5);
    expect((await runCli(['reindex', '--fold-in'], { cwd: root, env: large })).code).toBe(0);
    expect(await unindexedRows(root)).toBe(0);

    // A small table: the idle fold folds whatever is flat.
    await addPage(root, 4, 5);
    await search(root, {});
    expect(await unindexedRows(root)).toBe(5);
    expect((await runCli(['reindex', '--fold-in'], { cwd: root, env: {} })).code).toBe(0);
    expect(await unindexedRows(root)).toBe(0);
  }, 120_000);
});
