/** The projection rules and the indexer's incremental behaviour, on real vaults and a real LanceDB. */
import { appendFile, readFile, rename, rm, writeFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readManifest } from '../../src/indexer/manifest.js';
import { indexUri } from '../../src/indexer/reindex.js';
import { IndexStore } from '../../src/indexer/store.js';
import type { Vault } from '../../src/vault/vault.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();

const LOGS = {
  'logs/2026-06-01.md': '# 2026-06-01\n\n## 09:00 · cli\n- [preference] Prefers dark roast coffee #coffee ^f-aaaaaaaaa1\n- [fact] Lives in Lisbon ^f-aaaaaaaaa2\n',
  'logs/2026-06-02.md': '# 2026-06-02\n\n## 09:00 · cli\n- [skill] Plays the cello in an orchestra #music ^f-bbbbbbbbb1\n',
  'logs/2026-06-03.md': '# 2026-06-03\n\n## 09:00 · cli\n- [decision] Will run the Porto marathon #running ^f-ccccccccc1\n',
};

async function keys(vault: Vault): Promise<string[]> {
  const store = await IndexStore.open(indexUri(vault.ctx), null);
  try {
    return (await store.keys()).map((k) => k.key).sort();
  } finally {
    store.close();
  }
}

const ids = (results: Array<{ id: string | null }>): string[] => results.map((r) => r.id ?? '').filter((id) => id !== '');

describe('projection rules', () => {
  it('indexes facts after the watermark and on skipped dates only', async () => {
    const vault = await makeVault(await tempDir(), {
      config: 'index:\n  embedder: none\n',
      files: { ...LOGS, '2_Areas/Music.md': '# Music\n\n- Plays the cello. [[2026-06-02#^f-bbbbbbbbb1]]\n', 'log.md': '# Dream journal\n\n- 2026-06-04T03:00:00Z · run r-1 · consolidated 2026-06-01..2026-06-02 · watermark=2026-06-02\n- 2026-06-05T03:00:00Z · run r-2 · gave up · skipped=2026-06-01 · watermark=2026-06-02\n' },
    });
    const result = await vault.reindex();
    expect(result.facts).toBe(3); // 06-01 is skipped (2 facts), 06-02 consolidated onto Music.md, 06-03 pending
    const factKeys = (await keys(vault)).filter((k) => k.startsWith('f:'));
    expect(factKeys).toEqual(['f:logs/2026-06-01.md#f-aaaaaaaaa1', 'f:logs/2026-06-01.md#f-aaaaaaaaa2', 'f:logs/2026-06-03.md#f-ccccccccc1']);
    const cello = await vault.search('cello orchestra', { refresh: false, recordRecall: false });
    expect(ids(cello)).not.toContain('f-bbbbbbbbb1');
    expect(cello[0]?.path).toBe('2_Areas/Music.md'); // the page stands for the consolidated fact
  });

  it('keeps tombstoned facts out, from logs and from pages that cite or repeat them', async () => {
    const vault = await makeVault(await tempDir(), {
      config: 'index:\n  embedder: none\n',
      files: {
        ...LOGS,
        '2_Areas/Coffee.md': '---\ntitle: Coffee\ntags: [coffee]\n---\n# Coffee\n\n## Roast\n\nPrefers dark roast coffee. [[2026-06-01#^f-aaaaaaaaa1]]\n\n## Origins\n\nLikes Ethiopian beans, and the town of Lisbon.\n\n## Copied\n\nShe said she prefers dark roast coffee on weekdays.\n',
      },
    });
    await vault.reindex();
    expect((await vault.search('dark roast', { refresh: false, recordRecall: false })).length).toBeGreaterThan(0);
    await vault.forget({ id: 'f-aaaaaaaaa1' }, { reason: 'test' });
    const result = await vault.reindex();
    const after = await vault.search('dark roast coffee', { refresh: false, recordRecall: false });
    expect(after.map((r) => r.text).join('\n')).not.toMatch(/dark roast/i);
    expect(result.pages).toBeGreaterThan(0); // the Origins section stays
    expect((await vault.search('Ethiopian beans', { refresh: false, recordRecall: false }))[0]?.heading).toBe('Origins');
    // and after a rebuild from scratch
    await vault.reindex({ clear: true });
    expect((await vault.search('dark roast', { refresh: false, recordRecall: false })).map((r) => r.text).join('\n')).not.toMatch(/dark roast/i);
  });

  it('hides archived pages unless asked', async () => {
    const vault = await makeVault(await tempDir(), {
      config: 'index:\n  embedder: none\n',
      files: {
        '5_Archives/Old job.md': '# Old job\n\nWorked at Globex on the billing system.\n',
        '2_Areas/Retired.md': '---\nstatus: archived\n---\n# Retired\n\nUsed to play squash at Globex.\n',
        '2_Areas/Work.md': '# Work\n\nNow at Initech, not Globex.\n',
      },
    });
    await vault.reindex();
    const plain = await vault.search('Globex', { refresh: false, recordRecall: false });
    expect(plain.map((r) => r.path)).toEqual(['2_Areas/Work.md']);
    const all = await vault.search('Globex', { refresh: false, recordRecall: false, archived: true });
    expect(all.map((r) => r.path).sort()).toEqual(['2_Areas/Retired.md', '2_Areas/Work.md', '5_Archives/Old job.md']);
  });

  it('indexes MEMORY.md sections as core rows', async () => {
    const vault = await makeVault(await tempDir(), {
      config: 'index:\n  embedder: none\n',
      files: { 'MEMORY.md': '# Memory\n\n## Identity\n\n- The user is a cellist living in Porto.\n' },
    });
    const result = await vault.reindex();
    expect(result.core).toBeGreaterThan(0);
    const hits = await vault.search('cellist', { refresh: false, recordRecall: false, kind: 'core' });
    expect(hits[0]).toMatchObject({ kind: 'core', path: 'MEMORY.md', heading: 'Identity', link: '[[MEMORY#Identity]]' });
  });
});

describe('incremental indexing', () => {
  it('touches only what changed, and ends where a rebuild from scratch ends', async () => {
    const dir = await tempDir();
    const vault = await makeVault(dir, { config: 'index:\n  embedder: hash\n', files: { ...LOGS, '2_Areas/Music.md': '# Music\n\nPlays the cello. [[2026-06-02#^f-bbbbbbbbb1]]\n' } });
    const first = await vault.reindex();
    expect(first.files.indexed).toBe(5); // 3 logs, 1 page, MEMORY.md
    const second = await vault.reindex();
    expect(second).toMatchObject({ added: 0, removed: 0, embedded: 0 });
    expect(second.files.unchanged).toBe(5);

    // A new batch, as every writer appends one: the facts before it keep their context, so only the new rows are written.
    await appendFile(path.join(vault.root, 'logs/2026-06-03.md'), '\n## 10:00 · cli\n- [fact] Owns a grey cat named Miso ^f-ccccccccc2\n- [fact] Drinks green tea in the afternoon ^f-ccccccccc3\n');
    const appended = await vault.reindex();
    expect(appended).toMatchObject({ added: 2, removed: 0, embedded: 2 });
    expect(appended.files).toMatchObject({ updated: 1, unchanged: 4 });

    await rename(path.join(vault.root, '2_Areas/Music.md'), path.join(vault.root, '2_Areas/Cello.md'));
    await writeTree(vault.root, { '1_Projects/Marathon.md': '# Marathon\n\n## Plan\n\nRun Porto. [[2026-06-03#^f-ccccccccc1]]\n' });
    const moved = await vault.reindex();
    expect(moved.files).toMatchObject({ indexed: 2, removed: 1 });
    expect(moved.embedded).toBeLessThan(moved.added); // the renamed page's text was embedded before (cache)

    const incrementalKeys = await keys(vault);
    const incremental = await readManifest(vault.root);
    const rebuilt = await vault.reindex({ clear: true });
    expect(rebuilt.embedded).toBe(0); // the embedding cache survives --clear
    expect(await keys(vault)).toEqual(incrementalKeys);
    const fresh = await readManifest(vault.root);
    const rowsOf = (m: typeof fresh) => Object.fromEntries(Object.entries(m!.files).map(([p, e]) => [p, e.rows]));
    expect(rowsOf(fresh)).toEqual(rowsOf(incremental));
    expect(incrementalKeys.some((k) => k.startsWith('p:2_Areas/Music.md'))).toBe(false);
    expect(incrementalKeys.some((k) => k.startsWith('p:2_Areas/Cello.md'))).toBe(true);
  });

  it('finds rows added after the full-text index was built, without an optimize', async () => {
    const vault = await makeVault(await tempDir(), { config: 'index:\n  embedder: none\n', files: LOGS });
    await vault.reindex();
    await vault.remember([{ text: 'Collects vintage typewriters from flea markets', date: '2026-06-03' }]);
    await vault.reindex();
    const hits = await vault.search('typewriters', { refresh: false, recordRecall: false });
    expect(hits[0]?.text).toBe('Collects vintage typewriters from flea markets');
  });

  it('rebuilds a corrupt or deleted index from the files, with a message', async () => {
    const vault = await makeVault(await tempDir(), { config: 'index:\n  embedder: none\n', files: LOGS });
    await vault.reindex();
    const tableDir = path.join(indexUri(vault.ctx), 'rows.lance');
    // Garble every data file of the table.
    const dataDir = path.join(tableDir, 'data');
    for (const name of await readdir(dataDir)) await writeFile(path.join(dataDir, name), 'not lance');
    const notes: string[] = [];
    const result = await vault.reindex({ onNote: (m) => notes.push(m) });
    expect(notes.join('\n')).toMatch(/rebuilding the index/);
    expect(result.facts).toBe(4);
    expect((await vault.search('cello', { refresh: false, recordRecall: false }))[0]?.id).toBe('f-bbbbbbbbb1');

    await rm(indexUri(vault.ctx), { recursive: true, force: true });
    const again = await vault.reindex({ onNote: (m) => notes.push(m) });
    expect(again.facts).toBe(4);
    expect(notes.at(-1)).toMatch(/index is missing/);
  });

  it('rebuilds when the embedder changes', async () => {
    const dir = await tempDir();
    const vault = await makeVault(dir, { config: 'index:\n  embedder: none\n', files: LOGS });
    await vault.reindex();
    await writeFile(path.join(vault.root, '.vaultkeeper/config.yaml'), 'index:\n  embedder: hash\n');
    const { openVault } = await import('../../src/vault/vault.js');
    const hashed = await openVault({ vault: vault.root, env: { ...process.env, VAULTKEEPER_EMBEDDER: undefined } });
    const notes: string[] = [];
    const result = await hashed.reindex({ onNote: (m) => notes.push(m) });
    expect(notes.join('\n')).toMatch(/embedder changed from none to hash/);
    expect(result.facts).toBe(4);
    expect((await hashed.search('orchestra cello', { refresh: false, recordRecall: false }))[0]?.id).toBe('f-bbbbbbbbb1');
  });
});

describe('search', () => {
  it('filters by kind, category, tag and dates, and records recall events', async () => {
    const vault = await makeVault(await tempDir(), {
      files: { ...LOGS, '2_Areas/Coffee.md': '---\ntags: [coffee]\n---\n# Coffee\n\nDark roast, French press. [[2026-06-01#^f-aaaaaaaaa1]]\n' },
    });
    await vault.reindex();
    const q = (options: Parameters<Vault['search']>[1]) => vault.search('coffee roast', { refresh: false, ...options });
    expect((await q({ kind: 'page' })).every((r) => r.kind === 'page')).toBe(true);
    expect((await q({ kind: 'fact' })).map((r) => r.id)[0]).toBe('f-aaaaaaaaa1'); // a neighbour follows by its context
    expect(await q({ category: 'decision' })).toEqual([]);
    // The page line cites the fact shown first: one fact, one slot (docs/cli.md). Asked for pages, the tag finds it.
    expect((await q({ tag: 'coffee' })).map((r) => r.kind)).toEqual(['fact']);
    expect((await q({ tag: 'coffee', kind: 'page' })).map((r) => r.kind)).toEqual(['page']);
    expect(await q({ since: '2026-06-02' })).toEqual([]);
    const until = await q({ until: '2026-06-01', kind: 'fact' });
    expect(until.map((r) => r.id)).toContain('f-aaaaaaaaa1');
    expect(until.every((r) => r.date! <= '2026-06-01')).toBe(true);
    const fact = (await q({ kind: 'fact' }))[0]!;
    expect(fact).toMatchObject({ path: 'logs/2026-06-01.md', line: 4, date: '2026-06-01', link: '[[2026-06-01#^f-aaaaaaaaa1]]', category: 'preference' });
    const recall = (await readFile(path.join(vault.root, '.vaultkeeper/recall.jsonl'), 'utf8')).trim().split('\n');
    expect(recall.length).toBe(8);
    expect(JSON.parse(recall[0]!)).toMatchObject({ query: 'coffee roast', filters: { kind: 'page' } });
  });

  it('returns results in a deterministic order', async () => {
    const vault = await makeVault(await tempDir(), {
      files: {
        'logs/2026-06-01.md': '# 2026-06-01\n\n## 09:00 · cli\n- [fact] Tea ritual every morning ^f-ddddddddd1\n',
        'logs/2026-06-02.md': '# 2026-06-02\n\n## 09:00 · cli\n- [fact] Tea ritual every morning ^f-ddddddddd2\n',
        '2_Areas/Tea.md': '# Tea\n\nTea ritual every morning.\n',
      },
    });
    await vault.reindex();
    const runs = await Promise.all([1, 2, 3].map(() => vault.search('tea ritual', { refresh: false, recordRecall: false, now: new Date('2026-07-01T00:00:00Z') })));
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).toEqual(runs[0]);
    const facts = runs[0]!.filter((r) => r.kind === 'fact');
    expect(facts.map((r) => r.date)).toEqual(['2026-06-02', '2026-06-01']); // equal text: the newer first
  });
});

describe('nothing is silently lost', () => {
  it('a fact appended to a consolidated day, or whose citation a person removed, is searchable as a fact', async () => {
    const vault = await makeVault(await tempDir(), { config: 'index:\n  embedder: none\n', files: LOGS });
    const dreamt = await vault.dream({ force: true, offline: true, now: new Date('2026-06-10T12:00:00Z') });
    expect(dreamt.status).toBe('ok');
    expect((await vault.search('cello orchestra', { refresh: true, recordRecall: false, kind: 'fact' })).length).toBe(0); // on a page now
    // a late fact for a day already consolidated
    await vault.remember([{ text: 'Tuned the harpsichord for the recital', date: '2026-06-02' }]);
    const late = await vault.search('harpsichord recital', { recordRecall: false });
    expect(late[0]).toMatchObject({ kind: 'fact', date: '2026-06-02' });
    // a person removes a citation from a page: the fact comes back as a fact
    const citing = await Promise.all(dreamt.pages.created.map(async (p) => ({ p, text: await readFile(path.join(vault.root, p), 'utf8') })));
    const page = citing.find((c) => c.text.includes('f-bbbbbbbbb1'));
    expect(page).toBeDefined();
    const file = path.join(vault.root, page!.p);
    const text = page!.text;
    await writeFile(file, text.split('\n').filter((line) => !line.includes('f-bbbbbbbbb1')).join('\n'));
    const back = await vault.search('cello orchestra', { recordRecall: false, kind: 'fact' });
    expect(back.map((r) => r.id)).toEqual(['f-bbbbbbbbb1']);
  });
});
