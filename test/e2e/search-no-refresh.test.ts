/**
 * `search --no-refresh` searches the index as it is: no freshness check and no index pass (the failpoint
 * `reindex:full-pass` would kill a command that went through one), so a change since the last pass is not in its
 * answer until a search without it, which finds it. A vault with no index yet says so instead of answering nothing
 * in silence. Through the built CLI.
 */
import { appendFile, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MANIFEST_FILE } from '../../src/indexer/manifest.js';
import { runCli, runJson } from '../helpers/cli.js';
import { twoFactVault } from '../helpers/cli-vault.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();
const env = { LANCE_CPU_THREADS: '2' };
const noFullPass = { ...env, VAULTKEEPER_FAILPOINT: 'reindex:full-pass' };

async function texts(root: string, args: string[], runEnv: Record<string, string> = env): Promise<string[]> {
  const found = await runJson<{ results: Array<{ text: string }> }>(['--vault', root, 'search', ...args], { env: runEnv });
  return found.results.map((r) => r.text);
}

describe('search --no-refresh', () => {
  it('answers from the index as it is, without a check or a pass; a search without it then finds the change', async () => {
    const root = await twoFactVault(await tempDir(), env);
    expect(await texts(root, ['cello', '--no-refresh'], noFullPass)).toEqual(['Plays the cello on Sundays']);

    // A fact typed into the log by hand: not indexed yet.
    const log = path.join(root, 'logs/2026-06-02.md');
    expect(await readFile(log, 'utf8')).toMatch(/\n$/);
    await appendFile(log, '- [fact] Learns the oboe on Mondays\n');
    const manifest = (await stat(path.join(root, MANIFEST_FILE))).mtimeMs;
    expect(await texts(root, ['oboe', '--no-refresh'], noFullPass)).toEqual([]);
    expect((await stat(path.join(root, MANIFEST_FILE))).mtimeMs).toBe(manifest);

    // The default search sees the change (through a pass: the failpoint would kill it).
    const killed = await runCli(['--vault', root, 'search', 'oboe', '--json'], { env: noFullPass });
    expect(killed.code).not.toBe(0);
    // (Its neighbour in the batch follows: a fact is also found by the passage around it.)
    expect((await texts(root, ['oboe']))[0]).toBe('Learns the oboe on Mondays');
    expect((await texts(root, ['oboe', '--no-refresh'], noFullPass))[0]).toBe('Learns the oboe on Mondays');
  });

  it('says so when the vault has no index yet', async () => {
    const root = path.join(await tempDir(), 'vault');
    await runJson(['init', root], { env });
    await writeTree(root, { 'logs/2026-06-01.md': '# 2026-06-01\n\n## 09:00 · cli\n- [fact] Plays the cello on Sundays\n' });
    const r = await runCli(['--vault', root, 'search', 'cello', '--no-refresh', '--json'], { env: noFullPass });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ results: [] });
    expect(r.stderr).toContain('the vault has no index yet, so nothing was searched: run `vaultkeeper reindex`');
  });
});
