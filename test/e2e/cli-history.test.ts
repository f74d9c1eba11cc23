/** `vaultkeeper history [PATH]` through the built CLI: the vault's git history, newest first. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { git, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();

interface HistoryJson {
  commits: { sha: string; date: string; message: string; author: string; op: string | null }[];
}

async function busyVault(): Promise<{ root: string; forgotten: string }> {
  const root = await initVault(await tempDir());
  await runJson(['remember', 'Likes green tea', '--date', '2026-06-09'], { cwd: root });
  await writeFile(path.join(root, '2_Areas', 'tea.md'), '# Tea\n\nGreen, no sugar.\n');
  await git(root, ['add', '2_Areas/tea.md']);
  await git(root, ['-c', 'user.name=Ana Person', '-c', 'user.email=ana@example.com', 'commit', '-q', '-m', 'A page about tea']);
  const remembered = await runJson<{ facts: { id: string }[] }>(['remember', 'Runs on Sundays', '--date', '2026-06-10'], { cwd: root });
  await runJson(['forget', remembered.facts[0]!.id], { cwd: root });
  return { root, forgotten: remembered.facts[0]!.id };
}

describe('vaultkeeper history', () => {
  it('--json lists every commit, newest first, with sha, date and message', async () => {
    const { root, forgotten } = await busyVault();
    const { commits } = await runJson<HistoryJson>(['history'], { cwd: root });
    expect(commits.map((c) => c.sha)).toEqual((await git(root, ['log', '--format=%H'])).split('\n').filter(Boolean));
    expect(commits.map((c) => c.message.split('\n')[0])).toEqual([
      `forget: 1 fact (id ${forgotten})`,
      'remember: 1 fact in logs/2026-06-10.md',
      'A page about tea',
      'remember: 1 fact in logs/2026-06-09.md',
      'init: new vaultkeeper vault',
    ]);
    for (const c of commits) {
      expect(c.sha).toMatch(/^[0-9a-f]{40}$/);
      expect(Number.isNaN(Date.parse(c.date))).toBe(false);
    }
    const dates = commits.map((c) => Date.parse(c.date));
    for (let i = 1; i < dates.length; i++) expect(dates[i - 1]!).toBeGreaterThanOrEqual(dates[i]!);
    // The program's commits carry the op trailer; the person's does not.
    expect(commits.map((c) => c.op)).toEqual(['forget', 'remember', null, 'remember', 'init']);
    expect(commits[0]!.message).toMatch(/\n\nVaultkeeper-Op: forget$/);
    expect(commits[2]).toMatchObject({ author: 'Ana Person', message: 'A page about tea' });
  });

  it('PATH limits the list to the commits that touched it', async () => {
    const { root } = await busyVault();
    const subjects = async (target: string): Promise<string[]> =>
      (await runJson<HistoryJson>(['history', target], { cwd: root })).commits.map((c) => c.message.split('\n')[0]!);
    expect(await subjects('logs/2026-06-09.md')).toEqual(['remember: 1 fact in logs/2026-06-09.md']);
    expect(await subjects('logs')).toEqual(['remember: 1 fact in logs/2026-06-10.md', 'remember: 1 fact in logs/2026-06-09.md', 'init: new vaultkeeper vault']);
    expect(await subjects('.vaultkeeper/tombstones.jsonl')).toEqual([expect.stringMatching(/^forget: /), 'init: new vaultkeeper vault']);
    expect(await subjects('2_Areas/tea.md')).toEqual(['A page about tea']);
    expect(await subjects('no/such/file.md')).toEqual([]);
  });

  it('-n limits the count, keeping the newest', async () => {
    const { root } = await busyVault();
    const { commits } = await runJson<HistoryJson>(['history', '-n', '2'], { cwd: root });
    expect(commits.map((c) => c.sha)).toEqual((await git(root, ['log', '-2', '--format=%H'])).split('\n').filter(Boolean));
  });

  it('prints one line a commit without --json', async () => {
    const { root } = await busyVault();
    const result = await runCli(['history'], { cwd: root });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^[0-9a-f]{8} {2}\d{4}-\d{2}-\d{2} \d{2}:\d{2} {2}forget: 1 fact/);
    expect(lines[2]).toMatch(/\(by Ana Person\) A page about tea$/);
    expect((await runCli(['history', 'nothing-here.md'], { cwd: root })).stdout).toBe('no commits touch nothing-here.md\n');
  });
});
