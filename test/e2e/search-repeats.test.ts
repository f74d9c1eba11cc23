/**
 * A MEMORY.md line repeats a page's statement (issue 25): searched after a dream, the two are one result, the
 * page line (which shows when it was said and cites its fact), at the better of their ranks. A MEMORY.md line
 * whose page line the search did not find still answers. The built CLI on a real vault.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../src/vault/vault.js';
import { runJson } from '../helpers/cli.js';
import { makeVault } from '../helpers/indexed-vault.js';

const CONFIG = 'timezone: UTC\nindex:\n  embedder: none\ndream:\n  max_days: 60\n';
interface Result {
  kind: string;
  path: string;
  text: string;
}

describe('a MEMORY.md line and the page line it repeats', { timeout: 240_000 }, () => {
  let temp = '';
  let vault: Vault;
  beforeAll(async () => {
    temp = await mkdtemp(path.join(os.tmpdir(), 'vk-search-repeats-'));
    vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
    const facts = [
      ['Diego is allergic to shellfish', '2026-03-02'],
      ['Diego works at the harbour clinic', '2026-03-03'],
      ['Diego plays the cello on Sundays', '2026-03-04'],
      ['Diego lives near the old market', '2026-03-05'],
    ] as const;
    for (const [text, date] of facts) await vault.remember([{ text, category: 'fact', tags: [] }], { source: 'test', now: new Date(`${date}T10:00:00Z`) });
    const run = await vault.dream({ force: true, offline: true, now: new Date('2026-03-08T06:00:00Z') });
    expect(run.status, run.reason).toBe('ok');
    await vault.close();
  }, 120_000);
  afterAll(async () => {
    if (temp !== '') await rm(temp, { recursive: true, force: true });
  });

  it('shows the statement once, as its page line with its date', async () => {
    // The fixture holds the statement twice: MEMORY.md gathers the allergy from Diego's page.
    expect(await readFile(path.join(vault.root, 'MEMORY.md'), 'utf8')).toMatch(/^- Diego is allergic to shellfish — \[\[/m);
    const { results } = await runJson<{ results: Result[] }>(['search', 'shellfish allergy', '-k', '10'], { cwd: vault.root });
    const shown = results.filter((r) => r.text.includes('allergic to shellfish'));
    // (The page's lead quotes it too, with other facts: a result of its own, further down.)
    expect(shown.map((r) => r.kind)).not.toContain('core');
    expect(shown[0]!.text).toBe('- Diego is allergic to shellfish (2 March 2026)');
    expect(results[0]!.text).toContain('allergic to shellfish');
  });

  it('still answers from MEMORY.md when asked for core memory alone', async () => {
    const { results } = await runJson<{ results: Result[] }>(['search', 'shellfish', '--kind', 'core'], { cwd: vault.root });
    expect(results.map((r) => r.path)).toEqual(['MEMORY.md']);
  });
});
