/**
 * A search that brings the index up to date first (`refresh`, the default) runs its query beside the freshness
 * check and keeps that answer only when the check finds nothing changed (vault.ts, `searchIfUnchanged`): a change
 * made just before a search is always in its answer, and each search is recorded once.
 */
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RECALL_FILE } from '../../src/recall/events.js';
import { openVault } from '../../src/vault/vault.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const NOW = new Date('2026-07-01T00:00:00Z');
const PAGE = '2_Areas/Birds.md';

async function recalls(root: string): Promise<string[]> {
  const text = await readFile(path.join(root, RECALL_FILE), 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '').map((line) => (JSON.parse(line) as { query: string }).query);
}

describe('search with the freshness check beside it', () => {
  it('answers from the index as the check finds it, whether or not a file changed just before', async () => {
    const vault = await makeVault(await tempDir(), {
      config: 'index:\n  embedder: none\n',
      files: { [PAGE]: '---\ntitle: Birds\n---\n# Birds\n\n- The heron nests by the river\n' },
    });
    const root = vault.root;
    try {
      // No index yet: the check sends the search through a full pass.
      const first = await vault.search('heron', { now: NOW });
      expect(first.map((r) => r.text)).toEqual(['- The heron nests by the river']);

      // Nothing changed: the answer that ran beside the check is the answer, the same as without the check.
      const again = await vault.search('heron', { now: NOW });
      expect(again).toEqual(first);
      expect(await vault.search('heron', { now: NOW, refresh: false, recordRecall: false })).toEqual(first);

      // A line added with the index handle open: the answer of the old index is dropped, the new line is found.
      await appendFile(path.join(root, PAGE), '- A kingfisher dives for fish\n');
      expect((await vault.search('kingfisher', { now: NOW })).map((r) => r.text)).toEqual(['- A kingfisher dives for fish']);
    } finally {
      await vault.close();
    }

    // A new process's first search (no handle open yet) after a change: the same.
    await appendFile(path.join(root, PAGE), '- An osprey circles the lake\n');
    const fresh = await openVault({ vault: root, env: { ...process.env, VAULTKEEPER_EMBEDDER: undefined } });
    try {
      expect((await fresh.search('osprey', { now: NOW })).map((r) => r.text)).toEqual(['- An osprey circles the lake']);
      expect((await fresh.search('osprey', { now: NOW })).map((r) => r.text)).toEqual(['- An osprey circles the lake']);
    } finally {
      await fresh.close();
    }

    // Each search that asked for it is recorded once, whichever way its answer came.
    expect(await recalls(root)).toEqual(['heron', 'heron', 'kingfisher', 'osprey', 'osprey']);
  });
});
