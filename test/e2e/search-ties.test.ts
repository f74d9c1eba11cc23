/**
 * Equal scores at the candidate cut. LanceDB returns an arbitrary subset of the rows tied at its limit, so
 * the index store fetches until the tied run is whole and cuts it in key order (ranked.ts): two
 * indexes of the same files, built separately and by different histories, answer with the same JSON.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FOLD_IN_ROWS } from '../../src/indexer/reindex.js';
import { IndexStore } from '../../src/indexer/store.js';
import type { Vault } from '../../src/vault/vault.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const NOW = new Date('2026-07-01T00:00:00Z');
const CONFIG = 'index:\n  embedder: none\n';

/** Pages of lines that all score the same for "coffee" (same words but one, same length), many more than a search's 60 candidates. */
const PAGES = 4;
const LINES = 40;

function page(n: number, lines = LINES): string {
  const notes = Array.from({ length: lines }, (_, i) => `- coffee tasting note w${n}x${i}`);
  return ['---', `title: Tasting ${n}`, '---', `# Tasting ${n}`, '', '## Notes', '', ...notes, ''].join('\n');
}

const pagePath = (n: number): string => `2_Areas/Tasting ${n}.md`;

async function answers(vault: Vault): Promise<string[]> {
  const options = { refresh: false, recordRecall: false, now: NOW } as const;
  const out: string[] = [];
  for (const [query, k] of [['coffee', 10], ['coffee', 40], ['coffee tasting', 10], ['note', 5]] as const) {
    out.push(JSON.stringify(await vault.search(query, { ...options, k })));
  }
  return out;
}

async function unindexedRows(vault: Vault): Promise<number> {
  const store = await IndexStore.open(path.join(vault.root, '.vaultkeeper/index'), null);
  return store.unindexedRows().finally(() => store.close());
}

describe('search with equal scores at the candidate cut', () => {
  it('answers the same from two indexes of the same files, one built at once and one in two updates', async () => {
    const files = Object.fromEntries(Array.from({ length: PAGES }, (_, i) => [pagePath(i + 1), page(i + 1)]));
    const atOnce = await makeVault(await tempDir(), { config: CONFIG, files });
    const inTwo = await makeVault(await tempDir(), { config: CONFIG, files: { [pagePath(1)]: page(1), [pagePath(2)]: page(2) } });
    try {
      await atOnce.reindex();
      await inTwo.reindex();
      for (const n of [3, 4]) await writeFile(path.join(inTwo.root, pagePath(n)), page(n));
      const update = await inTwo.reindex();
      // The update's rows are folded into the full-text index (at least FOLD_IN_ROWS of them), so both indexes
      // score alike; only where their rows lie differs, which is what LanceDB's cut of a tie depends on.
      expect(update.added).toBeGreaterThanOrEqual(FOLD_IN_ROWS);
      expect(await unindexedRows(inTwo)).toBe(0);

      const first = await answers(atOnce);
      const coffee = JSON.parse(first[0]!) as Array<{ score: number; path: string; line: number }>;
      // Tie-heavy indeed: every result scores the same, and there are more tied rows than candidates.
      expect(coffee.length).toBeGreaterThan(0);
      expect(new Set(coffee.map((r) => r.score)).size).toBe(1);
      expect(await answers(inTwo)).toEqual(first);
      // And the same again from the same index.
      expect(await answers(atOnce)).toEqual(first);
    } finally {
      await atOnce.close();
      await inTwo.close();
    }
  });

  it('leaves a small update searched flat and folds a large one into the full-text index', async () => {
    const vault = await makeVault(await tempDir(), { config: CONFIG, files: { [pagePath(1)]: page(1), [pagePath(2)]: page(2), [pagePath(3)]: page(3) } });
    try {
      await vault.reindex();
      expect(await unindexedRows(vault)).toBe(0);
      // A few rows: a compaction would cost more than searching them flat.
      await writeFile(path.join(vault.root, '2_Areas/Small.md'), '# Small\n\n- coffee grinder\n- coffee scale\n');
      const small = await vault.reindex();
      expect(small.added).toBe(2);
      expect(await unindexedRows(vault)).toBe(2);
      expect((await vault.search('grinder', { refresh: false, recordRecall: false, now: NOW })).map((r) => r.path)).toEqual(['2_Areas/Small.md']);
      // Rows enough to slow every query: the write folds them in.
      await writeFile(path.join(vault.root, pagePath(4)), page(4, FOLD_IN_ROWS));
      const large = await vault.reindex();
      expect(large.added).toBe(FOLD_IN_ROWS);
      expect(await unindexedRows(vault)).toBe(0);
      expect((await vault.search('grinder', { refresh: false, recordRecall: false, now: NOW })).map((r) => r.path)).toEqual(['2_Areas/Small.md']);
    } finally {
      await vault.close();
    }
  });
});
