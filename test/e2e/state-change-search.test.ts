/**
 * Plain-English changes of state supersede through the built CLI (text/state-change.ts, indexer/projection.ts):
 * "I moved to Lisbon" said after "I live in Berlin" is the current home city in search, also over a keyed
 * `home city:: Berlin`; an uncertain reading ("I moved to Oslo in 2015") changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const ENV = { VAULTKEEPER_EMBEDDER: 'none' };

interface SearchJson {
  results: Array<{ text: string; date: string | null; score: number }>;
}

async function remember(root: string, text: string, date: string): Promise<void> {
  await runJson(['remember', text, '--date', date], { cwd: root, env: ENV });
}

async function texts(root: string, query: string): Promise<string[]> {
  return (await runJson<SearchJson>(['search', query], { cwd: root, env: ENV })).results.map((r) => r.text);
}

describe('a plain-English change of state in search', () => {
  it('ranks "I moved to Lisbon" above the older "I live in Berlin" for where I live and for the home city', async () => {
    const root = await initVault(await tempDir());
    await remember(root, 'I live in Berlin.', '2026-03-02');
    await remember(root, 'Bought a new espresso grinder.', '2026-03-10');
    await remember(root, 'I moved to Lisbon last weekend.', '2026-04-20');

    for (const query of ['where do I live', 'home city']) {
      const found = await texts(root, query);
      expect(found[0], query).toBe('I moved to Lisbon last weekend.');
      if (query === 'where do I live') expect(found.indexOf('I live in Berlin.')).toBeGreaterThan(0);
    }
  });

  it('supersedes a keyed home city:: Berlin with a later plain "moved to Lisbon" (the same key)', async () => {
    const root = await initVault(await tempDir());
    await remember(root, 'home city:: Berlin', '2026-03-02');
    await remember(root, 'I moved to Lisbon last weekend.', '2026-04-20');
    const found = await texts(root, 'home city');
    expect(found[0]).toBe('I moved to Lisbon last weekend.');
    expect(found).toContain('home city:: Berlin');
  });

  it('leaves the current value alone when the later statement is an uncertain reading or no change at all', async () => {
    const root = await initVault(await tempDir());
    await remember(root, 'I live in Berlin.', '2026-03-02');
    // a move long ago (they may have moved since), a plan, a question: none is a current home city
    await remember(root, 'I moved to Oslo in 2015.', '2026-04-20');
    await remember(root, 'I might move to Madrid, I would love to live there.', '2026-04-21');
    await remember(root, 'Did you move to Lisbon? Do you live there now?', '2026-04-22');
    const found = await texts(root, 'where do I live');
    expect(found[0]).toBe('I live in Berlin.');
    expect(found).not.toContain('I moved to Oslo in 2015.'); // not given the home city's words either
  });
});
