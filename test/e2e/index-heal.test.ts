/**
 * A self-healing index (issue 13, deliverable 7): the index is a projection of the vault's files, so any
 * damaged LanceDB file under .vaultkeeper/index is rebuilt by `reindex --clear`, by plain `reindex` (which
 * probes the data and every index before it trusts the table) and by `search` itself when the damage is in
 * what it reads, with one line on stderr and never a stack, a Rust source path or a LanceDB log line.
 */
import { cp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { initVault } from '../helpers/vault.js';
import { useTempDir } from '../helpers/tmp.js';

const TABLE = '.vaultkeeper/index/rows.lance';

/** Ways an index file gets damaged: each picks its file in the built table and breaks it. */
/**
 * `searchReads: false` marks damage a search never touches (it answers right, with nothing to say); the
 * first write after it meets the damage and rebuilds. Search's freshness pass does not probe every index
 * (that would cost more than the search); plain `reindex` does.
 */
const CORRUPTIONS: Array<{ name: string; damage: (table: string) => Promise<void>; searchReads?: false }> = [
  { name: 'newest manifest overwritten with garbage', damage: async (t) => writeFile(await newestManifest(t), Buffer.from('not a lance manifest at all '.repeat(20))) },
  { name: 'newest manifest truncated to 0 bytes', damage: async (t) => writeFile(await newestManifest(t), '') },
  { name: 'data file overwritten', damage: async (t) => writeFile(await firstFile(path.join(t, 'data'), '.lance'), Buffer.alloc(300, 7)) },
  { name: 'full-text index file overwritten', damage: async (t) => writeFile(await ftsFile(t), Buffer.alloc(300, 7)) },
  { name: 'full-text index metadata overwritten', damage: async (t) => writeFile(await indexFile(t, 'metadata'), Buffer.alloc(300, 7)) },
  { name: 'btree index file overwritten', damage: async (t) => writeFile(await indexFile(t, 'page_lookup'), Buffer.alloc(300, 7)), searchReads: false },
];

/** Manifests are named u64::MAX minus the version, so the newest has the smallest name. */
async function newestManifest(table: string): Promise<string> {
  const names = (await readdir(path.join(table, '_versions'))).filter((n) => n.endsWith('.manifest')).sort();
  expect(names.length).toBeGreaterThan(0);
  return path.join(table, '_versions', names[0]!);
}

async function firstFile(dir: string, suffix: string): Promise<string> {
  const name = (await readdir(dir)).find((n) => n.endsWith(suffix));
  expect(name).toBeDefined();
  return path.join(dir, name!);
}

/** An inverted-list file of a full-text index (the btree indices hold page_* files instead). */
async function ftsFile(table: string): Promise<string> {
  return indexFile(table, 'invert');
}

/** The first file under _indices/ whose name holds `part` (e.g. a full-text index's metadata, a btree's page_lookup). */
async function indexFile(table: string, part: string): Promise<string> {
  const indices = path.join(table, '_indices');
  for (const dir of (await readdir(indices)).sort()) {
    const found = (await readdir(path.join(indices, dir))).find((n) => n.includes(part));
    if (found !== undefined) return path.join(indices, dir, found);
  }
  throw new Error(`no index file with '${part}' found`);
}

function expectNoStack(stderr: string): void {
  expect(stderr).not.toMatch(/\n\s+at |\.rs:\d+|Caused by|cargo| WARN | ERROR /);
}

describe('a corrupt index heals', () => {
  const tempDir = useTempDir();

  it('is rebuilt by reindex --clear, by plain reindex and by search itself, for every damaged file', async () => {
    const dir = await tempDir();
    const root = await initVault(dir);
    for (const fact of ['The heron nests by the quarry lake', 'Aurora prefers green tea over coffee', 'The ferry to Lindholm leaves at 7:40']) {
      expect((await runCli(['remember', fact], { cwd: root })).code).toBe(0);
    }
    await writeFile(path.join(root, '2_Areas', 'birds.md'), '# Birds\n\nThe kingfisher hunts along the mill stream.\n');
    const built = await runCli(['reindex', '--json'], { cwd: root });
    expect(built.code, built.stderr).toBe(0);
    expect((JSON.parse(built.stdout) as { facts: number; pages: number }).facts).toBe(3);
    const good = path.join(dir, 'good-index');
    await cp(path.join(root, '.vaultkeeper', 'index'), good, { recursive: true });

    const restore = async (): Promise<void> => {
      await rm(path.join(root, '.vaultkeeper', 'index'), { recursive: true, force: true });
      await cp(good, path.join(root, '.vaultkeeper', 'index'), { recursive: true });
    };
    const searchFinds = async (query: string, text: RegExp): Promise<string> => {
      const found = await runCli(['search', query, '--json'], { cwd: root });
      expect(found.code, found.stderr).toBe(0);
      expect((JSON.parse(found.stdout) as { results: Array<{ text: string }> }).results.map((r) => r.text).join('\n')).toMatch(text);
      return found.stderr;
    };

    for (const { name, damage, searchReads } of CORRUPTIONS) {
      await restore();
      await damage(path.join(root, TABLE));
      const cleared = await runCli(['reindex', '--clear', '--json'], { cwd: root });
      expect(cleared.code, `${name}: ${cleared.stderr}`).toBe(0);
      expect(JSON.parse(cleared.stdout)).toMatchObject({ rebuilt: 'requested', facts: 3 });
      expectNoStack(cleared.stderr);
      await searchFinds('heron quarry', /heron nests/);
      await searchFinds('kingfisher', /kingfisher hunts/);

      // Plain reindex, with nothing changed in the vault: it must not trust the damaged table.
      await restore();
      await damage(path.join(root, TABLE));
      const plain = await runCli(['reindex', '--json'], { cwd: root });
      expect(plain.code, `${name}: ${plain.stderr}`).toBe(0);
      expect(JSON.parse(plain.stdout), name).toMatchObject({ facts: 3, pages: 1, rebuilt: expect.stringMatching(/./) });
      const notes = plain.stderr.split('\n').filter((l) => l !== '');
      expect(notes, `${name}: ${plain.stderr}`).toHaveLength(1);
      expect(notes[0]).toMatch(/^vaultkeeper: rebuilding the index/);
      expectNoStack(plain.stderr);
      expect(await searchFinds('heron quarry', /heron nests/), `${name}: search after the rebuild has nothing to say`).toBe('');

      await restore();
      await damage(path.join(root, TABLE));
      const stderr = await searchFinds('ferry Lindholm', /ferry to Lindholm/);
      const lines = stderr.split('\n').filter((l) => l !== '');
      expectNoStack(stderr);
      if (searchReads === false) {
        expect(lines, `${name}: ${stderr}`).toHaveLength(0);
        // Writes do not read it either: a new fact is indexed and found, with nothing to say.
        expect((await runCli(['remember', 'The osprey fishes at dawn'], { cwd: root })).code).toBe(0);
        expect(await searchFinds('osprey dawn', /osprey fishes/), name).toBe('');
        // The reindex command reads every index, finds the damage and rebuilds, with one note.
        const verified = await runCli(['reindex', '--json'], { cwd: root });
        expect(JSON.parse(verified.stdout), `${name}: ${verified.stderr}`).toMatchObject({ facts: 4, rebuilt: expect.stringMatching(/could not be read/) });
        expect(verified.stderr.split('\n').filter((l) => l !== ''), name).toHaveLength(1);
        expect(await searchFinds('osprey dawn', /osprey fishes/), name).toBe('');
        continue;
      }
      expect(lines, `${name}: ${stderr}`).toHaveLength(1);
      expect(lines[0]).toMatch(/^vaultkeeper: .*rebuild/);
      await searchFinds('Aurora tea', /green tea/);
    }
  }, 240_000);

  it('skips the full pass when nothing changed, and still catches a file damaged in place at the same size', async () => {
    const dir = await tempDir();
    const root = await initVault(dir);
    for (const fact of ['The heron nests by the quarry lake', 'Aurora prefers green tea over coffee']) {
      expect((await runCli(['remember', fact], { cwd: root })).code).toBe(0);
    }
    // The first reindex writes the table; the second probes every index of the table it left.
    expect((await runCli(['reindex', '--json'], { cwd: root })).code).toBe(0);
    const probed = await runCli(['reindex', '--json'], { cwd: root });
    expect(probed.code, probed.stderr).toBe(0);
    const manifest = path.join(root, '.vaultkeeper', 'index-manifest.json');
    const before = await stat(manifest);

    // With the full pass armed to die, an unchanged vault answers anyway: the freshness check never reaches it.
    const fullPassDies = { VAULTKEEPER_FAILPOINT: 'reindex:full-pass' };
    const noop = await runCli(['reindex', '--json'], { cwd: root, env: fullPassDies });
    expect(noop.code, noop.stderr).toBe(0);
    const withoutMs = (json: string): unknown => ({ ...(JSON.parse(json) as Record<string, unknown>), ms: 0 });
    expect(withoutMs(noop.stdout)).toEqual(withoutMs(probed.stdout));
    const found = await runCli(['search', 'heron', '--json'], { cwd: root, env: fullPassDies });
    expect(found.code, found.stderr).toBe(0);
    expect((JSON.parse(found.stdout) as { results: Array<{ text: string }> }).results[0]?.text).toMatch(/heron nests/);
    expect((await stat(manifest)).mtimeMs, 'nothing changed: the manifest is not rewritten').toBe(before.mtimeMs);

    // Garbage of the data file's own length: same name, same size, a new mtime.
    const data = await firstFile(path.join(root, TABLE, 'data'), '.lance');
    const size = (await readFile(data)).length;
    await writeFile(data, Buffer.alloc(size, 7));
    expect((await stat(data)).size).toBe(size);
    const caught = await runCli(['reindex', '--json'], { cwd: root, env: fullPassDies });
    expect(caught.code, 'the changed fingerprint sends reindex to the full pass').toBe(-1);
    const healed = await runCli(['reindex', '--json'], { cwd: root });
    expect(healed.code, healed.stderr).toBe(0);
    expect(JSON.parse(healed.stdout)).toMatchObject({ facts: 2, rebuilt: expect.stringMatching(/could not be read/) });
    expect(healed.stderr.split('\n').filter((l) => l !== '')).toHaveLength(1);
    expectNoStack(healed.stderr);
    await expect(runCli(['search', 'quarry', '--json'], { cwd: root })).resolves.toMatchObject({ code: 0, stderr: '' });
  }, 120_000);

  it('rebuilds when the row hashes are not the ones the manifest names', async () => {
    const root = await initVault(await tempDir());
    expect((await runCli(['remember', 'The heron nests by the quarry lake'], { cwd: root })).code).toBe(0);
    expect((await runCli(['reindex', '--json'], { cwd: root })).code).toBe(0);
    // The freshness check reads only the manifest; a pass that must index reads the shard of a file it projects and checks its digest.
    const shards = path.join(root, '.vaultkeeper', 'index-rows');
    for (const name of await readdir(shards)) await writeFile(path.join(shards, name), '{}');
    expect((await runCli(['remember', 'Aurora prefers green tea over coffee'], { cwd: root })).code).toBe(0);
    const healed = await runCli(['reindex', '--json'], { cwd: root });
    expect(healed.code, healed.stderr).toBe(0);
    expect(JSON.parse(healed.stdout)).toMatchObject({ facts: 2, rebuilt: expect.stringMatching(/row hashes for logs\/.* are missing or not those its manifest names/) });
    expect(healed.stderr.split('\n').filter((l) => l !== '')).toHaveLength(1);
    const found = await runCli(['search', 'heron', '--json'], { cwd: root });
    expect(found.code, found.stderr).toBe(0);
    expect(found.stderr).toBe('');
    expect((JSON.parse(found.stdout) as { results: Array<{ text: string }> }).results[0]?.text).toMatch(/heron nests/);
  }, 120_000);

  it('plain reindex finds damage in the data file an update added, not only in the first one', async () => {
    const dir = await tempDir();
    const root = await initVault(dir);
    expect((await runCli(['remember', 'The heron nests by the quarry lake'], { cwd: root })).code).toBe(0);
    expect((await runCli(['reindex', '--clear', '--json'], { cwd: root })).code).toBe(0);
    const before = new Set(await readdir(path.join(root, TABLE, 'data')));
    // An update adds its row in a fragment of its own, with its own data file.
    expect((await runCli(['remember', 'Aurora prefers green tea over coffee'], { cwd: root })).code).toBe(0);
    const updated = await runCli(['reindex', '--json'], { cwd: root });
    expect(JSON.parse(updated.stdout)).toMatchObject({ added: 1, rebuilt: null });
    const added = (await readdir(path.join(root, TABLE, 'data'))).filter((name) => !before.has(name));
    expect(added).toHaveLength(1);
    await writeFile(path.join(root, TABLE, 'data', added[0]!), Buffer.alloc(300, 7));

    const plain = await runCli(['reindex', '--json'], { cwd: root });
    expect(plain.code, plain.stderr).toBe(0);
    expect(JSON.parse(plain.stdout)).toMatchObject({ facts: 2, rebuilt: expect.stringMatching(/could not be read/) });
    expectNoStack(plain.stderr);
    const found = await runCli(['search', 'green tea', '--json'], { cwd: root });
    expect((JSON.parse(found.stdout) as { results: Array<{ text: string }> }).results.map((r) => r.text)).toContain('Aurora prefers green tea over coffee');
  }, 120_000);
  it('after a write, reads the full-text index again only when its files are not as the last full probe left them', async () => {
    const root = await initVault(await tempDir());
    for (const fact of ['The heron nests by the quarry lake', 'Aurora prefers green tea over coffee']) {
      expect((await runCli(['remember', fact], { cwd: root })).code).toBe(0);
    }
    const probedIndices = async (): Promise<string | undefined> =>
      (JSON.parse(await readFile(path.join(root, '.vaultkeeper', 'index-manifest.json'), 'utf8')) as { probedIndices?: string }).probedIndices;
    // The first reindex writes the table; the second probes every index and keeps the index files' fingerprint.
    expect((await runCli(['reindex', '--json'], { cwd: root })).code).toBe(0);
    expect(await probedIndices()).toBeUndefined();
    expect((await runCli(['reindex', '--json'], { cwd: root })).code).toBe(0);
    const probed = await probedIndices();
    expect(probed).toEqual(expect.any(String));

    // A write adds a row and leaves the index files as they were: the fingerprint holds, the full-text matches are skipped.
    expect((await runCli(['remember', 'The ferry to Lindholm leaves at 7:40'], { cwd: root })).code).toBe(0);
    const written = await runCli(['reindex', '--json'], { cwd: root });
    expect(JSON.parse(written.stdout)).toMatchObject({ facts: 3, added: 1, rebuilt: null });
    expect(await probedIndices()).toBe(probed);

    // A full-text index file written since: not the files probed, so the full probe reads them and finds the damage.
    const fts = await ftsFile(path.join(root, TABLE));
    await writeFile(fts, Buffer.alloc((await stat(fts)).size, 7));
    expect((await runCli(['remember', 'The osprey fishes at dawn'], { cwd: root })).code).toBe(0);
    const caught = await runCli(['reindex', '--json'], { cwd: root });
    expect(caught.code, caught.stderr).toBe(0);
    expect(JSON.parse(caught.stdout)).toMatchObject({ facts: 4, rebuilt: expect.stringMatching(/could not be read/) });
    expectNoStack(caught.stderr);
    const found = await runCli(['search', 'osprey dawn', '--json'], { cwd: root });
    expect((JSON.parse(found.stdout) as { results: Array<{ text: string }> }).results.map((r) => r.text)).toContain('The osprey fishes at dawn');
  }, 120_000);
});
