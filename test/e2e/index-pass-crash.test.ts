/**
 * A pass that adds a fact, killed at each step of its write (the dirty mark, the table, the manifest): the next pass
 * finds what it left and repairs it, and a kill after the manifest named the pass costs no rebuild (manifest.ts:
 * DIRTY_FILE and `pass`). Through the built CLI, SIGKILLed at the failpoint as kill -9 would.
 */
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIRTY_FILE, MANIFEST_FILE } from '../../src/indexer/manifest.js';
import { runCli, runJson } from '../helpers/cli.js';
import { twoFactVault } from '../helpers/cli-vault.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();
const env = { LANCE_CPU_THREADS: '2' };

interface Pass {
  rebuilt: string | null;
  added: number;
  rows: number;
}

const indexedVault = async (): Promise<string> => twoFactVault(await tempDir(), env);

async function searchTexts(root: string, query: string): Promise<string> {
  const found = await runJson<{ results: Array<{ text: string }> }>(['--vault', root, 'search', query], { env });
  return found.results.map((r) => r.text).join('\n');
}

describe('a pass killed while it writes', () => {
  it.each([
    ['reindex:after-dirty', 'the mark is written, the table not yet'],
    ['reindex:before-manifest', 'the table is written, the manifest not yet'],
  ])('%s (%s): the next pass rebuilds, and the new fact is found', async (failpoint) => {
    const root = await indexedVault();
    await appendFile(path.join(root, 'logs/2026-06-02.md'), '- [fact] Adopted a greyhound called Comet #pets\n');
    const killed = await runCli(['--vault', root, 'reindex'], { env: { ...env, VAULTKEEPER_FAILPOINT: failpoint } });
    expect(killed.code, killed.stderr).toBe(-1);
    // The summary on disk was not rewritten to say so: the mark alone makes the index dirty.
    expect(JSON.parse(await readFile(path.join(root, MANIFEST_FILE), 'utf8')).dirty).toBe(false);
    const status = await runJson<{ index: { dirty: boolean } }>(['--vault', root, 'status'], { env });
    expect(status.index.dirty).toBe(true);

    const next = await runJson<Pass>(['--vault', root, 'reindex'], { env });
    expect(next.rebuilt).toBe('an earlier indexing run was interrupted');
    expect(await searchTexts(root, 'greyhound Comet')).toContain('Adopted a greyhound called Comet');
    expect((await runJson<{ index: { dirty: boolean } }>(['--vault', root, 'status'], { env })).index.dirty).toBe(false);
    await expect(readFile(path.join(root, DIRTY_FILE))).rejects.toThrow();
  }, 120_000);

  it('reindex:after-manifest (the manifest names the pass, the mark is left): nothing to repair, no rebuild', async () => {
    const root = await indexedVault();
    await appendFile(path.join(root, 'logs/2026-06-02.md'), '- [fact] Adopted a greyhound called Comet #pets\n');
    const killed = await runCli(['--vault', root, 'reindex'], { env: { ...env, VAULTKEEPER_FAILPOINT: 'reindex:after-manifest' } });
    expect(killed.code, killed.stderr).toBe(-1);
    const mark = await readFile(path.join(root, DIRTY_FILE), 'utf8');
    expect(JSON.parse(await readFile(path.join(root, MANIFEST_FILE), 'utf8')).pass).toBe(mark);
    expect((await runJson<{ index: { dirty: boolean } }>(['--vault', root, 'status'], { env })).index.dirty).toBe(false);

    await appendFile(path.join(root, 'logs/2026-06-02.md'), '- [fact] Bought a kiln for the studio #pottery\n');
    const next = await runJson<Pass>(['--vault', root, 'reindex'], { env });
    expect(next.rebuilt).toBeNull();
    expect(next.added).toBeGreaterThan(0);
    expect(next.added).toBeLessThan(next.rows); // the log's rows, not the index's
    expect(await searchTexts(root, 'greyhound Comet')).toContain('Adopted a greyhound called Comet');
    expect(await searchTexts(root, 'kiln studio')).toContain('Bought a kiln for the studio');
    await expect(readFile(path.join(root, DIRTY_FILE))).rejects.toThrow();
  }, 120_000);

  it('a mark no manifest names, left by a crash, is dirty even when the manifest on disk says clean', async () => {
    const root = await indexedVault();
    await writeTree(root, { [DIRTY_FILE]: 'a-pass-that-never-finished' });
    const next = await runJson<Pass>(['--vault', root, 'search', 'cello'], { env });
    expect(JSON.stringify(next)).toContain('cello');
    const again = await runJson<Pass>(['--vault', root, 'reindex'], { env });
    expect(again.rebuilt).toBeNull(); // the search's pass rebuilt it and removed the mark
    await expect(readFile(path.join(root, DIRTY_FILE))).rejects.toThrow();
  }, 120_000);
});
