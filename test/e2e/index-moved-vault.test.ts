/**
 * A vault moved or copied whole keeps its index: the manifest records the index inside the vault by its
 * vault-relative path, so the pass after a move finds nothing changed instead of rebuilding (90 s at a million
 * facts). An index moved elsewhere by the config is still rebuilt there.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

interface ReindexJson {
  rebuilt: string | null;
  added: number;
  files: { indexed: number; updated: number; unchanged: number };
}

interface SearchJson {
  results: Array<{ text: string }>;
}

async function indexedVault(): Promise<{ dir: string; root: string }> {
  const dir = await tempDir();
  const root = path.join(dir, 'before');
  await runJson(['init', root]);
  const facts = ['{"text":"Plays the cello in the city orchestra","date":"2026-06-01"}', '{"text":"Moved to Porto in June","date":"2026-06-02"}'];
  await runJson(['--vault', root, 'remember', '--stdin'], { input: facts.join('\n') });
  expect((await runJson<ReindexJson>(['--vault', root, 'reindex'])).rebuilt).not.toBeNull();
  return { dir, root };
}

const manifestOf = async (root: string): Promise<Record<string, unknown>> => JSON.parse(await readFile(path.join(root, '.vaultkeeper/index-manifest.json'), 'utf8')) as Record<string, unknown>;

describe('a moved vault and its index', () => {
  it('keeps the index through a move: the next pass changes nothing, and a search answers from it', async () => {
    const { dir, root } = await indexedVault();
    expect((await manifestOf(root)).uri).toBe('.vaultkeeper/index');
    const moved = path.join(dir, 'after');
    await rename(root, moved);

    const pass = await runJson<ReindexJson>(['--vault', moved, 'reindex']);
    expect(pass.rebuilt).toBeNull();
    expect(pass.added).toBe(0);
    expect(pass.files.indexed + pass.files.updated).toBe(0);
    const search = await runJson<SearchJson>(['--vault', moved, 'search', 'cello orchestra']);
    expect(search.results.map((r) => r.text)).toContain('Plays the cello in the city orchestra');
  });

  it('takes a manifest that names the index by its absolute path, as older versions wrote it', async () => {
    const { root } = await indexedVault();
    const manifest = await manifestOf(root);
    await writeFile(path.join(root, '.vaultkeeper/index-manifest.json'), JSON.stringify({ ...manifest, uri: path.join(root, '.vaultkeeper/index') }));
    const pass = await runJson<ReindexJson>(['--vault', root, 'reindex']);
    expect(pass.rebuilt).toBeNull();
    expect(pass.added).toBe(0);
  });

  it('rebuilds when the config points the index somewhere else', async () => {
    const { root } = await indexedVault();
    const config = path.join(root, '.vaultkeeper/config.yaml');
    await writeFile(config, (await readFile(config, 'utf8')).replace('uri: .vaultkeeper/index', 'uri: .vaultkeeper/index-elsewhere'));
    const pass = await runJson<ReindexJson>(['--vault', root, 'reindex']);
    expect(pass.rebuilt).toContain('the index location changed');
    expect((await manifestOf(root)).uri).toBe('.vaultkeeper/index-elsewhere');
    const search = await runJson<SearchJson>(['--vault', root, 'search', 'Porto']);
    expect(search.results.map((r) => r.text)).toContain('Moved to Porto in June');
  });
});
