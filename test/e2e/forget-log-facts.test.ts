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
const MONTHS = [`${KEPT}/ids/2026-06`, `${KEPT}/words/2026-06`];

/** A month file's lines after its header: path, size, mtime, data. */
async function monthLines(root: string, month: string): Promise<string[][]> {
  return (await readFile(path.join(root, month), 'latin1'))
    .split('\n')
    .slice(1, -1)
    .map((line) => line.split('\t'));
}

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
    for (const month of MONTHS) {
      const lines = await monthLines(root, month);
      expect(lines.map((line) => line[0])).toEqual(['logs/2026-06-01.md', 'logs/2026-06-02.md', 'logs/2026-06-03.md']);
      expect(Number(lines[0]![1])).toBe((await stat(path.join(root, 'logs/2026-06-01.md'))).size);
      // Two facts in the first log: 8 hex digits each, or a mask of two uint32s each.
      if (month.includes('/ids/')) expect(lines[0]![3]).toMatch(/^[0-9a-f]{16}$/);
      else expect(Buffer.from(lines[0]![3]!, 'base64').length).toBe(16);
    }
    await forgetAndCheck(root, id);
  });

  it('forgets a fact with the month file deleted', async () => {
    const { root, id } = await indexedVault();
    await rm(path.join(root, KEPT), { recursive: true });
    await forgetAndCheck(root, id);
  });

  it('forgets a fact with the month file damaged', async () => {
    const { root, id } = await indexedVault();
    for (const month of MONTHS) await writeFile(path.join(root, month), `vaultkeeper log facts 1 ${month.includes('/ids/') ? 'ids' : 'words'}\nlogs/2026-06-01.md\t12`);
    await forgetAndCheck(root, id);
  });

  it('forgets a fact the month file names no fact of, for logs as they are (a wrong file never hides one)', async () => {
    const { root, id } = await indexedVault();
    for (const month of MONTHS) {
      const header = (await readFile(path.join(root, month), 'latin1')).split('\n')[0]!;
      const lines = (await monthLines(root, month)).map(([rel, size, mtime]) => `${rel}\t${size}\t${mtime}\t\n`);
      await writeFile(path.join(root, month), `${header}\n${lines.join('')}`, 'latin1');
    }
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
