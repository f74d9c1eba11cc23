/**
 * A keyed subject's newest row, looked up from the latest date of its rows a search found (store.ts
 * `newestCandidates`): the rows dated before it are not read, and the answer is the one every row of the subject
 * gives: the latest date, a tie on the date to the later line, the search's other filters applied to every subject.
 */
import { describe, expect, it } from 'vitest';
import { indexUri } from '../../src/indexer/location.js';
import { search } from '../../src/indexer/search.js';
import { IndexStore } from '../../src/indexer/store.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const CONFIG = 'index:\n  embedder: none\n';
const CURRENT = { where: null, archived: false };

describe("a keyed subject's newest row", () => {
  it('is found from the date of an older row found, on the same day by line, and within the filters', async () => {
    const vault = await makeVault(await tempDir(), { config: CONFIG });
    await vault.remember([
      { text: 'home city:: Berlin', date: '2026-01-05' },
      { text: 'favourite tea:: sencha', date: '2026-01-20' },
      { text: 'home city:: Paris', date: '2026-02-10' },
      { text: 'favourite tea:: rooibos', date: '2026-03-01' },
      { text: 'home city:: Lisbon', date: '2026-03-20' },
    ]);
    // The same day, a later line: the newest.
    await vault.remember([{ text: 'home city:: Porto', date: '2026-03-20' }]);
    await vault.reindex();
    const store = await IndexStore.open(indexUri(vault.ctx), null);
    try {
      const dates = (rows: Map<string, { date: string }>): Record<string, string | undefined> =>
        Object.fromEntries([...rows].map(([subject, row]) => [subject, row.date]));
      const porto = await store.newestKeyed(new Map([['home city', '2026-03-20']]), CURRENT);
      const fromBerlin = await store.newestKeyed(new Map([['home city', '2026-01-05']]), CURRENT);
      const undated = await store.newestKeyed(new Map([['home city', '']]), CURRENT);
      expect(dates(porto)).toEqual({ 'home city': '2026-03-20' });
      for (const other of [fromBerlin, undated]) expect(other).toEqual(porto);
      const lisbon = (await store.fullText({ terms: ['lisbon'], contextWeight: 0.85 }, CURRENT, 10))[0]!;
      expect(porto.get('home city')!.line).toBeGreaterThan(lisbon.line);

      // An until date applies to every subject, the one looked up whole and the one looked up from a date.
      const until = { where: "date <= '2026-02-28'", archived: false };
      const before = await store.newestKeyed(new Map([['home city', '2026-01-05'], ['favourite tea', '']]), until);
      expect(dates(before)).toEqual({ 'home city': '2026-02-10', 'favourite tea': '2026-01-20' });

      // Through search, in a fresh store: Berlin, found alone, ranks as History below its weight as current.
      const found = async (): Promise<Array<{ text: string; score: number }>> =>
        (await search(vault.ctx, store, null, 'Berlin', { recordRecall: false, now: new Date('2026-05-01T12:00:00Z') })).map(({ text, score }) => ({ text, score }));
      const berlin = await found();
      expect(berlin.map((r) => r.text)).toEqual(['home city:: Berlin']);
      await vault.forget({ match: 'Paris' });
      await vault.forget({ match: 'Lisbon' });
      await vault.forget({ match: 'Porto' });
      await vault.reindex();
      const alone = await found();
      expect(alone.map((r) => r.text)).toEqual(['home city:: Berlin']);
      expect(berlin[0]!.score).toBeLessThan(alone[0]!.score * 0.6);
    } finally {
      store.close();
      await vault.close();
    }
  });
});
