/**
 * The dream writes the same bytes whatever the machine's locale (issue 10: the consolidator stays
 * deterministic). Lists the dream sorts (index.md, Related, MEMORY.md, parts) follow one fixed collation,
 * not LANG: under da_DK "Aase" sorts after "Zoe", under en-US before it.
 */
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWikiPages } from '../../src/pages/discover.js';
import { runCli } from '../helpers/cli.js';
import { makeVault } from '../helpers/indexed-vault.js';

let temp = '';
beforeAll(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'vk-dream-locale-'));
});
afterAll(async () => {
  if (temp !== '') await rm(temp, { recursive: true, force: true });
});

const FACTS: Array<[string, string]> = [
  ['Aase Berg plays the cello', '2026-06-01'],
  ['Zoe Hart plays chess', '2026-06-01'],
  ['Aase Berg has a sailing boat', '2026-06-02'],
  ['Zoe Hart has a dog', '2026-06-02'],
  ['Lunch with Aase Berg and Zoe Hart', '2026-06-03'],
  ['Aase Berg likes green tea', '2026-06-03'],
  ['Zoe Hart likes jazz', '2026-06-03'],
];

describe('the dream under two locales', { timeout: 240_000 }, () => {
  it('writes byte-identical pages, index and MEMORY.md under LANG=da_DK and LANG=en_US', async () => {
    const vault = await makeVault(path.join(temp, 'base'), { config: 'timezone: UTC\nindex:\n  embedder: none\n' });
    for (const [text, date] of FACTS) await vault.remember([{ text, category: 'fact' as never, tags: [] }], { source: 'test', now: new Date(`${date}T10:00:00Z`) });
    await vault.close();
    const written = new Map<string, Map<string, string>>();
    for (const lang of ['da_DK.UTF-8', 'en_US.UTF-8']) {
      const root = path.join(temp, lang);
      await cp(vault.root, root, { recursive: true });
      const result = await runCli(['--vault', root, 'dream', '--force', '--offline', '--json'], { env: { LANG: lang, LC_ALL: lang } });
      expect(result.code, result.stderr).toBe(0);
      const files = new Map<string, string>();
      for (const rel of [...(await listWikiPages(root)), 'index.md', 'MEMORY.md']) files.set(rel, (await readFile(path.join(root, rel), 'utf8')).replace(/r-\d{8}-\d{6}/g, 'r-RUN')); // the run id holds the clock
      written.set(lang, files);
    }
    const [danish, english] = [written.get('da_DK.UTF-8')!, written.get('en_US.UTF-8')!];
    // Both people have their page, so the index lists them: the order there is what a locale would change.
    const index = english.get('index.md')!;
    expect(index.indexOf('Aase Berg')).toBeGreaterThanOrEqual(0);
    expect(index.indexOf('Aase Berg')).toBeLessThan(index.indexOf('Zoe Hart'));
    expect([...danish.keys()].sort()).toEqual([...english.keys()].sort());
    for (const [rel, text] of english) expect(danish.get(rel), rel).toBe(text);
  });
});
