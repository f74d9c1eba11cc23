/**
 * A manifest written by an older version (its row hashes in another format) leads to one rebuild, with a note,
 * that ends where a rebuild from scratch ends: the same rows, the same row hashes, searchable.
 */
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MANIFEST_FILE, ROWS_DIR } from '../../src/indexer/manifest.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { dumpTable } from '../helpers/table-dump.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

const FILES = {
  'logs/2026-06-01.md': '# 2026-06-01\n\n## 09:00 · cli\n- [preference] Prefers dark roast coffee #coffee ^f-aaaaaaaaa1\n- [fact] Lives in Lisbon ^f-aaaaaaaaa2\n',
  'logs/2026-06-02.md': '# 2026-06-02\n\n## 09:00 · cli\n- [skill] Plays the cello in an orchestra #music ^f-bbbbbbbbb1\n',
  '2_Areas/music.md': '---\ntype: topic\n---\n# Music\n\n## Instruments\n- Plays the cello [[2026-06-02#^f-bbbbbbbbb1]]\n- Sings in a choir\n',
};

type Json = Record<string, unknown>;

/** Where versions 5 to 11 kept every row hash. */
const ROWS_FILE = '.vaultkeeper/index-rows.json';

/** Every file's row hash lists, from the shards (version 12), sorted by path: one object, as 5 to 11 kept them. */
async function allRows(root: string): Promise<Record<string, { keys: string[]; hashes: string[] }>> {
  const out: Record<string, { keys: string[]; hashes: string[] }> = {};
  for (const name of (await readdir(path.join(root, ROWS_DIR))).sort()) Object.assign(out, JSON.parse(await readFile(path.join(root, ROWS_DIR, name), 'utf8')));
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * Rewrites the vault's manifest as version 11 (as today's but for its row hashes in one file, without tombstones
 * in the summary), 10 and 9 (as 11), 5 to 8 (hashes in their own file, as an object per file) or 4 (hashes
 * inline) wrote it: 7 and 8 with today's hashes (7's table held text for LanceDB to stem, terms.ts; 8 is today's
 * but for the rows file's shape), the older ones with hashes of another format.
 */
async function writeOlder(root: string, version: 4 | 5 | 6 | 7 | 8 | 9 | 11): Promise<void> {
  const { tombstones: _t, ...summary } = JSON.parse(await readFile(path.join(root, MANIFEST_FILE), 'utf8')) as Json & { files: Record<string, Json> };
  const lists = await allRows(root);
  if (version === 9 || version === 11) {
    // 9 is 11 but for plain-English changes of state (text/state-change.ts); 11 is today's but for its one rows file
    const text = JSON.stringify(lists);
    const { createHash } = await import('node:crypto');
    await writeFile(path.join(root, ROWS_FILE), text);
    await writeFile(path.join(root, MANIFEST_FILE), JSON.stringify({ ...summary, version, rows: createHash('sha256').update(text).digest('base64url') }));
    return;
  }
  const older = Object.fromEntries(
    Object.entries(lists).map(([rel, { keys, hashes }]) => [rel, Object.fromEntries(keys.map((key, i) => [key, version >= 7 ? hashes[i]! : 'sha256-of-the-row-json']))]),
  );
  if (version !== 4) {
    const text = JSON.stringify(older);
    const { createHash } = await import('node:crypto');
    await writeFile(path.join(root, ROWS_FILE), text);
    await writeFile(path.join(root, MANIFEST_FILE), JSON.stringify({ ...summary, version, rows: createHash('sha256').update(text).digest('base64url') }));
    return;
  }
  const files: Record<string, Json> = {};
  for (const [rel, entry] of Object.entries(summary.files)) {
    const { facts: _f, pages: _p, core: _c, ...kept } = entry;
    files[rel] = { ...kept, rows: older[rel] };
  }
  const { rows: _digest, ...rest } = summary;
  await writeFile(path.join(root, MANIFEST_FILE), JSON.stringify({ ...rest, version, files }));
}

describe('a manifest from an older version', () => {
  for (const version of [11, 9, 8, 7, 6, 5, 4] as const) {
    it(`version ${version}: the next pass rebuilds the index, with a note, as a rebuild from scratch would`, async () => {
      const vault = await makeVault(await tempDir(), { config: 'index:\n  embedder: none\n', files: FILES });
      await vault.reindex({ clear: true });
      const fresh = { table: await dumpTable(vault.root), rows: await allRows(vault.root) };
      expect(fresh.table.length).toBeGreaterThan(3);

      await writeOlder(vault.root, version);
      expect((await vault.status()).index).toBeNull(); // not read: its counts come back with the rebuild
      const notes: string[] = [];
      const result = await vault.reindex({ onNote: (note) => notes.push(note) });
      expect(result.rebuilt).toBe('it was built by an older version');
      expect(notes).toEqual(['rebuilding the index: it was built by an older version']);
      expect(await dumpTable(vault.root)).toEqual(fresh.table);
      expect(await allRows(vault.root)).toEqual(fresh.rows);
      await expect(readFile(path.join(vault.root, ROWS_FILE), 'utf8')).rejects.toThrow(); // the older rows file is gone
      expect((await vault.status()).index?.rows).toBe(fresh.table.length);

      // Then a pass with nothing changed rebuilds nothing, and search finds what it found.
      expect((await vault.reindex()).rebuilt).toBeNull();
      expect((await vault.search('cello orchestra', { recordRecall: false }))[0]?.id).toBe('f-bbbbbbbbb1');
    });
  }

  it('a search through the freshness check rebuilds it too', async () => {
    const vault = await makeVault(await tempDir(), { config: 'index:\n  embedder: none\n', files: FILES });
    await vault.reindex({ clear: true });
    const fresh = await dumpTable(vault.root);
    await writeOlder(vault.root, 5);
    const notes: string[] = [];
    const hits = await vault.search('dark roast coffee', { recordRecall: false, onNote: (note) => notes.push(note) });
    expect(hits[0]?.id).toBe('f-aaaaaaaaa1');
    expect(notes).toContain('rebuilding the index: it was built by an older version');
    expect(await dumpTable(vault.root)).toEqual(fresh);
  });
});
