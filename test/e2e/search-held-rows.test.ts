/**
 * A warm store keeps the rows its full-text searches read, by row id (shown-by-id.ts), for one table state: a search
 * after a write (lines edited in place, a fact remembered) sees what was written, not the rows it held.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexUri } from '../../src/indexer/location.js';
import { search } from '../../src/indexer/search.js';
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

  it('ranks a keyed value written since above the one it held as current', async () => {
    const vault = await makeVault(await tempDir(), { config: CONFIG });
    await vault.remember([{ text: 'home city:: Berlin', date: '2026-03-02' }, { text: 'Bought a new espresso grinder.', date: '2026-03-10' }]);
    await vault.reindex();
    // The store reads the table state once a search, at its end, and answers the keyed lookup at it (store.ts): a
    // state from before the write would serve the subject's newest row as it was.
    const store = await IndexStore.open(indexUri(vault.ctx), null);
    const found = async (): Promise<Array<{ text: string; score: number }>> =>
      (await search(vault.ctx, store, null, 'home city', { recordRecall: false, now: new Date('2026-05-01T12:00:00Z') })).map(({ text, score }) => ({ text, score }));
    try {
      // The second search of a state reads every subject's newest row; the third answers from them.
      let held: Array<{ text: string; score: number }> = [];
      for (let i = 0; i < 3; i++) {
        held = await found();
        expect(held.map((r) => r.text)).toEqual(['home city:: Berlin']);
      }
      await vault.remember([{ text: 'home city:: Lisbon', date: '2026-04-20' }]);
      await vault.reindex();
      const after = await found();
      expect(after.map((r) => r.text)).toEqual(['home city:: Lisbon', 'home city:: Berlin']);
      // Berlin is History now: half its weight (its text score moved a little with the rows added).
      expect(after[1]!.score).toBeLessThan(held[0]!.score * 0.6);
    } finally {
      store.close();
      await vault.close();
    }
  });
});
