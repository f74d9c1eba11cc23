/**
 * `forget <id>` and the pass after it with the facts the index pass keeps of each log (logs/log-facts.ts): the kept
 * facts narrow where a fact is looked for, and a missing, damaged, stale or wrong month file never hides one.
 * Every case forgets a fact and checks that it left search, and that its repeat in another log left it too.
 */
import { appendFile, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const KEPT = '.vaultkeeper/log-facts';
const MONTH = `${KEPT}/2026-06.json`;

interface RememberJson {
  facts: { id: string }[];
}
interface ForgetJson {
  tombstoned: { id: string; path: string }[];
}

/** A vault of two logs, the second repeating a fact of the first, indexed (so their facts are kept). */
async function indexedVault(): Promise<{ root: string; id: string }> {
  const root = await initVault(await tempDir());
  const first = await runJson<RememberJson>(['--vault', root, 'remember', '--stdin', '--date', '2026-06-01'], { input: 'The spare key is under the blue flowerpot\nLikes green tea' });
  await runJson(['--vault', root, 'remember', 'Told Ana: the spare key is under the blue flowerpot', '--date', '2026-06-02']);
  await runJson(['--vault', root, 'remember', 'Walked the dog in the rain', '--date', '2026-06-03']);
  await runJson(['--vault', root, 'reindex']);
  return { root, id: first.facts[0]!.id };
}

async function searchTexts(root: string, query: string): Promise<string> {
  const hits = await runJson<{ results: Array<{ text: string }> }>(['--vault', root, 'search', query]);
  return hits.results.map((hit) => hit.text).join('\n');
}

async function forgetAndCheck(root: string, id: string): Promise<void> {
  expect(await searchTexts(root, 'spare key blue flowerpot')).toMatch(/flowerpot/);
  const result = await runJson<ForgetJson>(['--vault', root, 'forget', id]);
  expect(result.tombstoned).toEqual([expect.objectContaining({ id, path: 'logs/2026-06-01.md' })]);
  expect(await searchTexts(root, 'spare key blue flowerpot')).not.toMatch(/flowerpot/);
  expect(await searchTexts(root, 'green tea')).toMatch(/green tea/);
}

describe('forget with the kept log facts', () => {
  it('keeps each indexed log facts by month, and forgets through them', async () => {
    const { root, id } = await indexedVault();
    const kept = JSON.parse(await readFile(path.join(root, MONTH), 'utf8')) as { logs: Record<string, { size: number }> };
    expect(Object.keys(kept.logs)).toEqual(['logs/2026-06-01.md', 'logs/2026-06-02.md', 'logs/2026-06-03.md']);
    expect(kept.logs['logs/2026-06-01.md']!.size).toBe((await stat(path.join(root, 'logs/2026-06-01.md'))).size);
    await forgetAndCheck(root, id);
  });

  it('forgets a fact with the month file deleted', async () => {
    const { root, id } = await indexedVault();
    await rm(path.join(root, KEPT), { recursive: true });
    await forgetAndCheck(root, id);
  });

  it('forgets a fact with the month file damaged', async () => {
    const { root, id } = await indexedVault();
    await writeFile(path.join(root, MONTH), '{"format":1,"logs":{"logs/2026-06-01.md":{"size":');
    await forgetAndCheck(root, id);
  });

  it('forgets a fact the month file names no fact of, for logs as they are (a wrong file never hides one)', async () => {
    const { root, id } = await indexedVault();
    const kept = JSON.parse(await readFile(path.join(root, MONTH), 'utf8')) as { logs: Record<string, { ids: string; words: string }> };
    for (const entry of Object.values(kept.logs)) Object.assign(entry, { ids: '', words: '' });
    await writeFile(path.join(root, MONTH), JSON.stringify(kept));
    await forgetAndCheck(root, id);
  });

  it('forgets a fact appended by hand after the pass (the log no longer the size its entry names)', async () => {
    const { root } = await indexedVault();
    await appendFile(path.join(root, 'logs/2026-06-03.md'), '- [fact] The alarm code is 4512 ^f-handwrit01\n');
    const result = await runJson<ForgetJson>(['--vault', root, 'forget', 'f-handwrit01']);
    expect(result.tombstoned).toEqual([expect.objectContaining({ id: 'f-handwrit01', path: 'logs/2026-06-03.md' })]);
    expect(await searchTexts(root, 'alarm code')).not.toMatch(/4512/);
  });
});
