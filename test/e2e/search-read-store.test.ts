/**
 * A vault searches through a store opened to search only (IndexStore.openToSearch), which reads the table through
 * LanceDB's native binding without its JavaScript (lance-read.ts). It must answer every search exactly as a store
 * opened with LanceDB's own builders does — full text over both fields, filters, keyed subjects, tied runs read by
 * row id in a warm store — refuse writes, and keep LanceDB's JavaScript out of a CLI search.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexUri } from '../../src/indexer/location.js';
import { search } from '../../src/indexer/search.js';
import { IndexStore } from '../../src/indexer/store.js';
import { runJson } from '../helpers/cli.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const NOW = new Date('2026-07-01T12:00:00Z');

/** Lines that tie for "coffee" past a search's candidates, so a warm store reads the tied run by row id. */
function tastingPage(): string {
  const notes = Array.from({ length: 80 }, (_, i) => `- coffee tasting note x${i}`);
  return ['---', 'title: Tasting', 'tags: [drinks]', '---', '# Tasting', '', '## Notes', '', ...notes, ''].join('\n');
}

const FILES = {
  '2_Areas/Tasting.md': tastingPage(),
  '5_Archives/Old cafe.md': '---\ntitle: Old cafe\n---\n# Old cafe\n\n- The old cafe served coffee until 2024\n',
};

const QUERIES: Array<[string, Record<string, unknown>]> = [
  ['coffee', {}],
  ['coffee', { k: 3 }],
  ['coffee tasting', { kind: 'page' }],
  ['coffee', { archived: true }],
  ['home city', {}],
  ['espresso grinder', { since: '2026-03-05' }],
  ['what does the user drink', { category: 'preference' }],
  ['coffee', { tag: 'drinks' }],
  ['"new roastery"', {}],
  ['coffee -tasting', {}],
];

describe('the store a vault searches with', () => {
  it('answers as a store opened with LanceDB\'s own builders does, search after search', async () => {
    const vault = await makeVault(await tempDir(), { config: 'index:\n  embedder: none\n', files: FILES });
    try {
      await vault.remember([
        { text: 'home city:: Berlin', date: '2026-03-02' },
        { text: 'Bought a new espresso grinder.', date: '2026-03-10' },
        { text: 'Prefers oat milk in coffee', category: 'preference', date: '2026-03-11' },
        { text: 'coffee at the new roastery', date: '2026-03-12' },
        { text: 'home city:: Lisbon', date: '2026-04-02' },
      ]);
      await vault.reindex();
      const uri = indexUri(vault.ctx);
      const read = await IndexStore.openToSearch(uri, null);
      const full = await IndexStore.open(uri, null);
      try {
        // Three rounds: the second and third reuse what each store holds (rows by id, each subject's newest row).
        for (let round = 0; round < 3; round++) {
          for (const [query, options] of QUERIES) {
            const opts = { ...options, recordRecall: false, now: NOW };
            const ours = await search(vault.ctx, read, null, query, opts);
            expect(ours, `${query} ${JSON.stringify(options)} round ${round}`).toEqual(await search(vault.ctx, full, null, query, opts));
          }
        }
        // The searches found something: tied runs, a keyed subject's current value, an archived page.
        expect((await search(vault.ctx, read, null, 'coffee tasting', { recordRecall: false, now: NOW }))[0]?.path).toBe('2_Areas/Tasting.md');
        expect((await search(vault.ctx, read, null, 'home city', { recordRecall: false, now: NOW }))[0]?.text).toContain('Lisbon');
        expect((await search(vault.ctx, read, null, 'old cafe', { archived: true, recordRecall: false, now: NOW }))[0]?.path).toBe('5_Archives/Old cafe.md');
        expect(await read.count()).toBe(await full.count());
        expect(await read.state()).toBe(await full.state());
        await expect(read.deleteKeys(['x'])).rejects.toThrow(/opened to be searched, not written/);
        await expect(read.optimize()).rejects.toThrow(/opened to be searched, not written/);
      } finally {
        read.close();
        full.close();
      }
    } finally {
      await vault.close();
    }
  });

  it('keeps LanceDB\'s JavaScript out of a CLI search: its native binding alone is loaded', async () => {
    const dir = await tempDir();
    const root = path.join(dir, 'vault');
    const env = { LANCE_CPU_THREADS: '2' };
    await runJson(['init', root], { env });
    await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'index:\n  embedder: none\n');
    await runJson(['--vault', root, 'remember', 'Plays the cello on Sundays'], { env });
    // Indexed and unchanged: the search answers from the index as it is (a change would bring a pass, which writes).
    await runJson(['--vault', root, 'reindex'], { env });
    // A preload that lists the files of LanceDB's JavaScript package the process loaded (its binary is another package).
    const preload = path.join(dir, 'record.cjs');
    const out = path.join(dir, 'loaded.json');
    await writeFile(
      preload,
      `const M = require('node:module'); const load = M._load; const seen = new Set();
M._load = function (request, parent, isMain) { const r = load.apply(this, arguments); try { seen.add(M._resolveFilename(request, parent, isMain)); } catch {} return r; };
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify([...seen].filter((f) => f.includes('/@lancedb/lancedb/')))));
`,
    );
    const found = await runJson<{ results: Array<{ text: string }> }>(['--vault', root, 'search', 'cello'], { env, nodeArgs: ['--require', preload] });
    expect(found.results[0]?.text).toBe('Plays the cello on Sundays');
    const loaded = (JSON.parse(await readFile(out, 'utf8')) as string[]).map((file) => path.basename(file)).sort();
    expect(loaded).toEqual(['native.js']);
  });
});
