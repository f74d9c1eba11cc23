/**
 * A warm store keeps the rows its full-text searches read, by row id (shown-by-id.ts), for one table state: a search
 * after a write (lines edited in place, a fact remembered) sees what was written, not the rows it held.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexUri } from '../../src/indexer/location.js';
import { IndexStore } from '../../src/indexer/store.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const CONFIG = 'index:\n  embedder: none\n';

/** A page of lines that all score alike for "coffee", past a search's 60 candidates: its tied run is read by id. */
function page(word: string): string {
  const notes = Array.from({ length: 90 }, (_, i) => `- coffee ${word} note x${i}`);
  return ['---', 'title: Tasting', '---', '# Tasting', '', '## Notes', '', ...notes, ''].join('\n');
}

const PAGE = '2_Areas/Tasting.md';
const FILTER = { where: null, archived: false };

describe('the rows a warm store holds', () => {
  it('answers a search after a write from the rows written, not the ones it held', async () => {
    const vault = await makeVault(await tempDir(), { config: CONFIG, files: { [PAGE]: page('tasting') } });
    const store = await IndexStore.open(indexUri(vault.ctx), null);
    const texts = async (terms = ['coffee']): Promise<string[]> => (await store.fullText({ terms, contextWeight: 0.85 }, FILTER, 50)).map((hit) => hit.text);
    try {
      await vault.reindex();
      for (let i = 0; i < 3; i++) {
        const before = await texts();
        expect(before).toHaveLength(50);
        expect(before.every((text) => text.includes('tasting'))).toBe(true);
      }
      // The same lines in other words.
      await writeFile(path.join(vault.root, PAGE), page('roasting'));
      await vault.reindex();
      const after = await texts();
      expect(after).toHaveLength(50);
      expect(after.filter((text) => text.includes('tasting'))).toEqual([]);
      expect(after.every((text) => text.includes('roasting'))).toBe(true);

      // A fact written since is found by the next search of the same store, above the rows it held.
      expect((await texts(['coffee', 'roastery']))[0]).toContain('coffee');
      await vault.remember([{ text: 'coffee at the new roastery' }]);
      await vault.reindex();
      expect((await texts(['coffee', 'roastery']))[0]).toBe('coffee at the new roastery');
    } finally {
      store.close();
      await vault.close();
    }
  });
});
