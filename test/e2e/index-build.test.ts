/**
 * A rebuild through the built CLI: one add, then the table's four indices built side by side (store.ts), every
 * row in them, and searches that use each of them answering.
 */
import { appendFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexStore } from '../../src/indexer/store.js';
import { idHash, LogFactsReader } from '../../src/logs/log-facts.js';
import { runCli, runJson } from '../helpers/cli.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

const FILES = {
  'logs/2026-06-01.md':
    '# 2026-06-01\n\n## 09:00 · cli\n- [preference] Prefers dark roast coffee #coffee ^f-aaaaaaaaa1\n- [fact] Lives near the harbour in Lisbon ^f-aaaaaaaaa2\n',
  '2_Areas/Music.md': '---\ntitle: Music\ntags: [music]\n---\n# Music\n\n## Instruments\n\n- Plays the cello in an orchestra.\n- Tunes the viola by ear.\n',
  '4_Resources/Café Notes.md': '# Café notes\n\nEspresso in Tōkyō, naïve latte art. 😀\n',
};

interface SearchJson {
  results: Array<{ path: string; text: string }>;
}

describe('a rebuild', () => {
  it('builds the key, path and subject indices and both full-text indices over every row, and each answers', async () => {
    const vault = await makeVault(await tempDir(), { config: 'index:\n  embedder: none\n', files: FILES });
    const root = vault.root;
    const first = await runJson<{ rows: number; rebuilt: string }>(['--vault', root, 'reindex', '--clear']);
    expect(first.rebuilt).toBe('requested');
    expect(first.rows).toBeGreaterThanOrEqual(5);

    const indices = await readdir(path.join(root, '.vaultkeeper/index/rows.lance/_indices'));
    expect(indices).toHaveLength(5);
    const store = await IndexStore.open(path.join(root, '.vaultkeeper/index'), null);
    try {
      expect(await store.count()).toBe(first.rows);
      expect(await store.unindexedRows()).toBe(0);
      await store.probe(true); // a full-text match on both fields, a key and a path lookup
    } finally {
      store.close();
    }

    // The content field, the context field (a fact's neighbour: "harbour" is only in the other fact's passage) and non-ASCII text.
    const cello = await runJson<SearchJson>(['--vault', root, 'search', 'cello orchestra']);
    expect(cello.results[0]?.path).toBe('2_Areas/Music.md');
    const roast = await runJson<SearchJson>(['--vault', root, 'search', 'harbour coffee']);
    expect(roast.results.map((r) => r.text)).toContain('Prefers dark roast coffee');
    const cafe = await runJson<SearchJson>(['--vault', root, 'search', 'espresso']);
    expect(cafe.results[0]?.text).toBe('Espresso in Tōkyō, naïve latte art. 😀');

    // A second rebuild gives the same rows and leaves the index as healthy as the first.
    const second = await runJson<{ rows: number }>(['--vault', root, 'reindex', '--clear']);
    expect(second.rows).toBe(first.rows);
    // doctor exits 1 here for the files left uncommitted; what matters is that it finds nothing wrong with the index.
    const doctor = JSON.parse((await runCli(['--vault', root, 'doctor', '--json'])).stdout) as { problems: Array<{ code: string }> };
    expect(doctor.problems.filter((p) => p.code.startsWith('INDEX'))).toEqual([]);
  });

  it('leaves the row-hash shards its manifest names and the log facts of every log: the next pass re-projects one log', async () => {
    const vault = await makeVault(await tempDir(), { config: 'index:\n  embedder: none\n', files: FILES });
    const root = vault.root;
    const LOG = 'logs/2026-06-01.md';
    const built = await runJson<{ rebuilt: string }>(['--vault', root, 'reindex', '--clear']);
    expect(built.rebuilt).toBe('requested');
    // Written while the indices were built (reindex.ts): the log's facts vouch for it as it is now.
    const ids = new LogFactsReader(root, 'ids');
    expect(ids.kept(LOG, await stat(path.join(root, LOG)))).toBe(true);
    expect(ids.mayHoldId(LOG, idHash('f-aaaaaaaaa2'))).toBe(true);
    expect(ids.mayHoldId(LOG, idHash('f-zzzzzzzzz9'))).toBe(false);

    // A fact appended by hand: a shard the manifest did not name as written would make this pass a rebuild.
    await appendFile(path.join(root, LOG), '- [fact] Walks the dog at dawn ^f-aaaaaaaaa3\n');
    const next = await runJson<{ rebuilt: string | null; rows: number; removed: number; files: { updated: number; unchanged: number } }>(['--vault', root, 'reindex']);
    expect(next.rebuilt).toBeNull();
    expect(next.files).toMatchObject({ indexed: 0, updated: 1, removed: 0, skipped: 0 });
    // The earlier fact's passage now holds the new one: its old row goes, found by the hashes in the log's shard.
    expect(next.removed).toBeGreaterThan(0);
    const store = await IndexStore.open(path.join(root, '.vaultkeeper/index'), null);
    try {
      expect(await store.count()).toBe(next.rows);
    } finally {
      store.close();
    }
    const dawn = await runJson<SearchJson>(['--vault', root, 'search', 'dawn']);
    expect(dawn.results[0]?.text).toBe('Walks the dog at dawn');
  });
});
