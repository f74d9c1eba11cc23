/** reindex, search and watch through the built CLI, as a person or a script runs them. */
import { spawn } from 'node:child_process';
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readManifest, manifestRowCount } from '../../src/indexer/manifest.js';
import { indexUri } from '../../src/indexer/reindex.js';
import { IndexStore } from '../../src/indexer/store.js';
import { loadContext } from '../../src/vault/context.js';
import { CLI, runCli, runJson } from '../helpers/cli.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();

async function vaultWithFacts(): Promise<string> {
  const root = path.join(await tempDir(), 'vault');
  await runJson(['init', root]);
  const lines = [
    '{"text":"Prefers dark roast coffee","category":"preference","tags":["coffee"],"date":"2026-06-01"}',
    '{"text":"Plays the cello in the city orchestra","category":"skill","date":"2026-06-02"}',
    '{"text":"Moved to Porto in June","category":"moment","date":"2026-06-03"}',
  ].join('\n');
  await runJson(['--vault', root, 'remember', '--stdin'], { input: lines });
  await writeTree(root, { '2_Areas/Music.md': '---\ntitle: Music\ntags: [music]\n---\n# Music\n\n## Cello\n\nPlays in the city orchestra on Thursdays.\n' });
  return root;
}

interface SearchJson {
  results: Array<Record<string, unknown>>;
}

describe('reindex and search through the CLI', () => {
  it('prints the documented JSON shapes', async () => {
    const root = await vaultWithFacts();
    const result = await runJson<Record<string, unknown>>(['--vault', root, 'reindex']);
    expect(result).toMatchObject({ rows: 4, facts: 3, pages: 1, core: 0, removed: 0 }); // the "# Music" title has no text of its own; MEMORY.md holds only the template
    for (const key of ['embedded', 'ms', 'files']) expect(result).toHaveProperty(key);
    const search = await runJson<SearchJson>(['--vault', root, 'search', 'cello orchestra', '-k', '3']);
    expect(search.results.length).toBeGreaterThan(0);
    for (const r of search.results) {
      for (const key of ['kind', 'path', 'line', 'id', 'title', 'heading', 'text', 'score', 'date', 'link']) expect(r).toHaveProperty(key);
    }
    const kinds = search.results.map((r) => r.kind);
    expect(kinds).toContain('fact');
    expect(kinds).toContain('page');
    const page = search.results.find((r) => r.kind === 'page')!;
    expect(page).toMatchObject({ path: '2_Areas/Music.md', title: 'Music', heading: 'Cello', link: '[[Music#Cello]]' });
    const fact = search.results.find((r) => r.kind === 'fact')!;
    expect(fact.link).toBe(`[[2026-06-02#^${String(fact.id)}]]`);
  });

  it('brings the index up to date before searching, and rejects bad input with exit 2', async () => {
    const root = await vaultWithFacts();
    const found = await runJson<SearchJson>(['--vault', root, 'search', 'Porto']);
    expect(found.results[0]?.text).toBe('Moved to Porto in June');
    const empty = await runCli(['--vault', root, 'search', '   ']);
    expect(empty.code).toBe(2);
    expect(empty.stderr.trim().split('\n')).toHaveLength(1);
    const badDate = await runCli(['--vault', root, 'search', 'x', '--since', 'June']);
    expect(badDate.code).toBe(2);
    expect(badDate.stderr).toMatch(/--since must be a date/);
    const badKind = await runCli(['--vault', root, 'search', 'x', '--kind', 'note']);
    expect(badKind.code).toBe(2);
  });

  it('stays consistent when two processes index at once', async () => {
    const root = await vaultWithFacts();
    const many = Array.from({ length: 300 }, (_, i) => `Fact number ${i} about topic ${i % 17}`).join('\n');
    await runJson(['--vault', root, 'remember', '--stdin', '--date', '2026-06-04'], { input: many });
    const [a, b] = await Promise.all([runCli(['--vault', root, 'reindex', '--json']), runCli(['--vault', root, 'reindex', '--json'])]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const ctx = await loadContext({ vault: root });
    const manifest = await readManifest(root);
    const store = await IndexStore.open(indexUri(ctx), null);
    try {
      const keys = (await store.keys()).map((k) => k.key);
      expect(new Set(keys).size).toBe(keys.length); // no duplicates
      expect(keys.length).toBe(manifestRowCount(manifest!));
      expect(keys.filter((k) => k.startsWith('f:')).length).toBe(303);
    } finally {
      store.close();
    }
  });

  it('watch makes an appended fact and a saved page searchable', async () => {
    const root = await vaultWithFacts();
    const child = spawn(process.execPath, [CLI, '--vault', root, 'watch'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    try {
      await waitFor(() => stderr.includes('watching'), 30_000, () => stderr);
      await appendFile(path.join(root, 'logs/2026-06-03.md'), '- [fact] Adopted a greyhound called Comet\n');
      await writeTree(root, { '3_Personal/Travel.md': '# Travel\n\nPlanning a trip to Kyoto in autumn.\n' });
      // Searched without refreshing, so only the watcher can have indexed these.
      const { openVault } = await import('../../src/vault/vault.js');
      const vault = await openVault({ vault: root });
      const seen = (query: string, file: string) => async () =>
        (await vault.search(query, { refresh: false, recordRecall: false })).some((r) => r.path === file);
      await waitFor(seen('greyhound Comet', 'logs/2026-06-03.md'), 30_000, () => stderr);
      await waitFor(seen('Kyoto', '3_Personal/Travel.md'), 30_000, () => stderr);
    } finally {
      child.kill('SIGINT');
      await new Promise((resolve) => child.on('close', resolve));
    }
    expect(stderr).toMatch(/indexed/);
    expect(await readFile(path.join(root, 'logs/2026-06-03.md'), 'utf8')).toMatch(/Comet/); // the watcher never writes logs
  });
});

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, context: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting; watcher said:\n${context()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
