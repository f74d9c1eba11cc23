/**
 * Archived pages stay out of search unless asked for (--archived), however well they match: without other
 * filters the index store drops them from a fetched list instead of prefiltering every row (store.ts), and
 * must still find live results when archived rows fill the whole list.
 */
import { describe, expect, it } from 'vitest';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const NOW = new Date('2026-07-01T00:00:00Z');

/** More archived rows than a search's candidate list (50 for k = 10), each a better match than any live fact. */
const ARCHIVED_ROWS = 60;

const FILES = {
  '5_Archives/2_Areas/Old coffee.md': [
    '---',
    'title: Old coffee',
    '---',
    '# Old coffee',
    '',
    '## Tastings',
    '',
    ...Array.from({ length: ARCHIVED_ROWS }, (_, i) => `- coffee coffee tasting ${i + 1}`),
    '',
  ].join('\n'),
  'logs/2026-06-01.md': [
    '# 2026-06-01',
    '',
    '## 09:00 · cli',
    '- [fact] Bought a bag of coffee at the market on the way home from a long walk by the river ^f-aaaaaaaaa1',
    '- [fact] Fixed the bicycle chain and oiled the gears before the weekend ride ^f-aaaaaaaaa2',
    '',
  ].join('\n'),
  'logs/2026-06-02.md': [
    '# 2026-06-02',
    '',
    '## 09:00 · cli',
    '- [preference] Drinks the morning coffee black, without sugar, before reading the news ^f-bbbbbbbbb1',
    '',
  ].join('\n'),
};

describe('archived pages in search', () => {
  it('leaves them out even when they fill the whole candidate list, and shows them with archived', async () => {
    const vault = await makeVault(await tempDir(), { config: 'index:\n  embedder: none\n', files: FILES });
    try {
      await vault.reindex();
      const options = { refresh: false, recordRecall: false, now: NOW } as const;

      const archived = await vault.search('coffee', { ...options, archived: true, k: 10 });
      // The archived rows outrank every live fact: an unfiltered candidate list holds nothing else (their
      // statements, grouped by section into results of up to 600 characters).
      expect(archived.length).toBeGreaterThan(0);
      expect(archived.every((r) => r.path === '5_Archives/2_Areas/Old coffee.md')).toBe(true);

      const live = await vault.search('coffee', { ...options, k: 10 });
      // The bicycle fact is found by its batch neighbour's words (the context field).
      expect(live.map((r) => r.id).sort()).toEqual(['f-aaaaaaaaa1', 'f-aaaaaaaaa2', 'f-bbbbbbbbb1']);
      expect(live.every((r) => !r.path.startsWith('5_Archives/'))).toBe(true);

      // With another filter the same holds (that query is prefiltered in LanceDB).
      const facts = await vault.search('coffee', { ...options, kind: 'fact', since: '2026-06-02' });
      expect(facts.map((r) => r.id)).toEqual(['f-bbbbbbbbb1']);
      const pages = await vault.search('coffee', { ...options, kind: 'page', archived: true, k: 100 });
      expect(pages.flatMap((r) => r.statements)).toHaveLength(ARCHIVED_ROWS);
      expect(await vault.search('coffee', { ...options, kind: 'page' })).toEqual([]);
    } finally {
      await vault.close();
    }
  });
});
