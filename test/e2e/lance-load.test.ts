/**
 * How the index store loads LanceDB (src/indexer/lance-load.ts): for the pinned version, only the modules that
 * define what the store uses; for any other layout, LanceDB's whole module, with the same answers. The other
 * layouts are real installs of the CLI in a temp folder whose LanceDB is a copy, changed as a release might.
 */
import { cp, mkdir, mkdtemp, readFile, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { runListingModules } from '../helpers/module-list.js';
import { SEARCH_VAULT_FILES } from '../helpers/search-vault.js';
import { writeTree } from '../helpers/tmp.js';
import { initVault } from '../helpers/vault.js';

const PACKAGE = fileURLToPath(new URL('../..', import.meta.url));


/**
 * The CLI installed in `dir` as a package with its dependencies: its bundle, package.json, and node_modules
 * linking to this package's, except @lancedb/lancedb, a copy that `change` may alter. Returns the bin.
 */
async function installWithLanceCopy(dir: string, change: (lance: string) => Promise<void>): Promise<string> {
  await cp(path.join(PACKAGE, 'dist', 'bin'), path.join(dir, 'dist', 'bin'), { recursive: true });
  await cp(path.join(PACKAGE, 'package.json'), path.join(dir, 'package.json'));
  const modules = path.join(dir, 'node_modules');
  await mkdir(path.join(modules, '@lancedb'), { recursive: true });
  for (const name of await readdir(path.join(PACKAGE, 'node_modules'))) {
    if (name !== '@lancedb') await symlink(path.join(PACKAGE, 'node_modules', name), path.join(modules, name));
  }
  for (const name of await readdir(path.join(PACKAGE, 'node_modules', '@lancedb'))) {
    const from = path.join(PACKAGE, 'node_modules', '@lancedb', name);
    if (name === 'lancedb') await cp(from, path.join(modules, '@lancedb', name), { recursive: true });
    else await symlink(from, path.join(modules, '@lancedb', name));
  }
  await change(path.join(modules, '@lancedb', 'lancedb'));
  return path.join(dir, 'dist', 'bin', 'vaultkeeper.js');
}

const lanceModules = (loaded: readonly string[]): string[] =>
  loaded.filter((url) => url.includes('/@lancedb/lancedb/dist/')).map((url) => url.replace(/^.*\/@lancedb\/lancedb\/dist\//, ''));

describe('loading LanceDB', () => {
  let dir: string;
  let root: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vk-test-'));
    root = await initVault(path.join(dir, 'vault'));
    await writeTree(root, SEARCH_VAULT_FILES);
    const built = await runCli(['--vault', root, 'reindex', '--clear', '--json']);
    expect(built.code, built.stderr).toBe(0);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads LanceDB\'s native binding alone for a search (lance-read.ts), and for a write only the modules the store uses, not the package entry with its embeddings and rerankers', async () => {
    const run = await runListingModules(CLI, ['--vault', root, 'search', 'publish site', '--json'], dir, path.join(dir, 'modules.txt'));
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { results: unknown[] }).results.length).toBeGreaterThan(0);
    expect(lanceModules(run.loaded)).toEqual(['native.js']);
    const write = await runListingModules(CLI, ['--vault', root, 'reindex', '--clear', '--json'], dir, path.join(dir, 'modules.txt'));
    expect(write.code).toBe(0);
    const loaded = lanceModules(write.loaded);
    expect(loaded).toEqual(expect.arrayContaining(['connection.js', 'query.js', 'indices.js', 'native.js']));
    expect(loaded.filter((rel) => rel === 'index.js' || rel.startsWith('rerankers/') || rel === 'embedding/index.js')).toEqual([]);
  });

  // Each layout, and what a search then loads of LanceDB: its whole module, or (the version known) its binding alone.
  const layouts: Array<[string, (lance: string) => Promise<void>, 'entry' | 'binding']> = [
    [
      'another version',
      async (lance) => {
        const file = path.join(lance, 'package.json');
        const pkg = JSON.parse(await readFile(file, 'utf8')) as { version: string };
        await writeFile(file, JSON.stringify({ ...pkg, version: '0.99.0' }));
      },
      'entry',
    ],
    [
      'a module moved (indices.js renamed, the entry requiring it by its new name)',
      async (lance) => {
        const dist = path.join(lance, 'dist');
        await rename(path.join(dist, 'indices.js'), path.join(dist, 'indices-moved.js'));
        const entry = path.join(dist, 'index.js');
        const text = await readFile(entry, 'utf8');
        expect(text).toContain('require("./indices")');
        await writeFile(entry, text.replaceAll('require("./indices")', 'require("./indices-moved")'));
      },
      'binding',
    ],
  ];

  for (const [layout, change, searchLoads] of layouts) {
    it(`falls back to LanceDB's whole module for ${layout}: builds, searches and answers as the lean load does`, async () => {
      const install = await mkdtemp(path.join(dir, 'install-'));
      const bin = await installWithLanceCopy(install, change);
      const rebuilt = await runCli(['--vault', root, 'reindex', '--clear', '--json'], { script: bin });
      expect(rebuilt.code, rebuilt.stderr).toBe(0);
      for (const query of [['publish site'], ['coffee', '--kind', 'fact'], ['"morning coffee"', '-k', '3']]) {
        const args = ['--vault', root, 'search', ...query, '--json'];
        const fallback = await runCli(args, { script: bin });
        const lean = await runCli(args);
        expect(fallback.code, fallback.stderr).toBe(0);
        expect(fallback.stderr).toBe('');
        expect(JSON.parse(fallback.stdout)).toEqual(JSON.parse(lean.stdout));
        expect((JSON.parse(fallback.stdout) as { results: unknown[] }).results.length).toBeGreaterThan(0);
      }
      const entry = (loaded: readonly string[]): boolean => loaded.some((url) => url.startsWith(`file://${install}/`) && url.endsWith('/@lancedb/lancedb/dist/index.js'));
      const write = await runListingModules(bin, ['--vault', root, 'reindex', '--clear', '--json'], dir, path.join(dir, 'modules.txt'));
      expect(write.code).toBe(0);
      expect(entry(write.loaded)).toBe(true);
      const run = await runListingModules(bin, ['--vault', root, 'search', 'publish site', '--json'], dir, path.join(dir, 'modules.txt'));
      expect(run.code).toBe(0);
      if (searchLoads === 'entry') expect(entry(run.loaded)).toBe(true);
      else expect(lanceModules(run.loaded)).toEqual(['native.js']);
    });
  }
});
