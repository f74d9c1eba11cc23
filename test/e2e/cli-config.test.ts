/** Config through the built CLI: a broken config stops commands with one line; env overrides apply. */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { localStamp } from '../../src/core/clock.js';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { expectOneLineError, git, initVault, snapshot } from '../helpers/vault.js';

const tempDir = useTempDir();

interface RememberJson {
  facts: { id: string; date: string; path: string; line: number }[];
}

describe('a broken config', () => {
  it.each([
    ['an unknown key', 'dream:\n  max_dayz: 3\n', /\.vaultkeeper\/config\.yaml: dream\.max_dayz: unknown key; allowed here: .*max_days/],
    ['a wrong type', 'dream:\n  max_days: lots\n', /\.vaultkeeper\/config\.yaml: dream\.max_days: .*number/],
    ['bad YAML', 'dream:\n\tmax_days: 3\n', /\.vaultkeeper\/config\.yaml: not valid YAML at line 2/],
    ['a secret', 'llm:\n  api_key: sk-live-DO-NOT-PRINT\n', /llm\.api_key: secrets are never kept in the vault.*llm\.api_key_env/],
  ])('stops remember with one line naming the file and key (%s), writing nothing', async (_name, config, pattern) => {
    const root = await initVault(await tempDir());
    await writeFile(path.join(root, '.vaultkeeper/config.yaml'), config);
    const before = await snapshot(root, { includeGit: true });
    const result = await runCli(['remember', 'Likes green tea'], { cwd: root });
    expectOneLineError(result, 1, pattern);
    expect(result.stderr).not.toContain('DO-NOT-PRINT');
    expect(await snapshot(root, { includeGit: true })).toEqual(before);
  });

  it('names the environment variable when an override is bad', async () => {
    const root = await initVault(await tempDir());
    expectOneLineError(await runCli(['remember', 'x'], { cwd: root, env: { VAULTKEEPER_TIMEZONE: 'Nowhere/Special' } }), 1, /timezone \(from VAULTKEEPER_TIMEZONE\)/);
    expectOneLineError(await runCli(['history'], { cwd: root, env: { VAULTKEEPER_EMBEDDER: 'word2vec' } }), 1, /index\.embedder \(from VAULTKEEPER_EMBEDDER\)/);
  });
});

describe('settings that reach the log', () => {
  it('VAULTKEEPER_TIMEZONE decides which daily log a fact lands in', async () => {
    const root = await initVault(await tempDir());
    // UTC+14 and UTC-11 are 25 hours apart, so their dates always differ.
    for (const zone of ['Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
      const before = localStamp(new Date(), zone).date;
      const result = await runJson<RememberJson>(['remember', `Remembered in ${zone}`], { cwd: root, env: { VAULTKEEPER_TIMEZONE: zone } });
      const after = localStamp(new Date(), zone).date;
      expect([before, after]).toContain(result.facts[0]!.date);
      expect(result.facts[0]!.path).toBe(`logs/${result.facts[0]!.date}.md`);
    }
  });

  it('the configured timezone is used when no override is set', async () => {
    const root = await initVault(await tempDir());
    const configFile = path.join(root, '.vaultkeeper/config.yaml');
    await writeFile(configFile, (await readFile(configFile, 'utf8')).replace('timezone: system', 'timezone: Pacific/Kiritimati'));
    const before = localStamp(new Date(), 'Pacific/Kiritimati');
    const result = await runJson<RememberJson>(['remember', 'Far east'], { cwd: root });
    const after = localStamp(new Date(), 'Pacific/Kiritimati');
    expect([before.date, after.date]).toContain(result.facts[0]!.date);
    const header = (await readFile(path.join(root, result.facts[0]!.path), 'utf8')).split('\n')[2]!;
    const time = /^## (\d{2}:\d{2}) · cli$/.exec(header)?.[1];
    expect(time).toBeDefined();
    // The header's minute is the zone's local time (allowing for the minute turning over during the run).
    const minutes = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
    const t = minutes(time!);
    const lo = minutes(before.time);
    const hi = minutes(after.time);
    expect(lo <= hi ? t >= lo && t <= hi : t >= lo || t <= hi).toBe(true);
  });

  it('capture.default_source names the batch when --source is not given', async () => {
    const root = await initVault(await tempDir());
    const configFile = path.join(root, '.vaultkeeper/config.yaml');
    await writeFile(configFile, (await readFile(configFile, 'utf8')).replace('default_source: cli', 'default_source: laptop'));
    await git(root, ['-c', 'user.name=P', '-c', 'user.email=p@example.com', 'commit', '-q', '-am', 'source']);
    const result = await runJson<RememberJson>(['remember', 'From the laptop', '--date', '2026-06-09'], { cwd: root });
    const lines = (await readFile(path.join(root, 'logs/2026-06-09.md'), 'utf8')).split('\n');
    expect(lines[result.facts[0]!.line - 2]).toMatch(/^## \d{2}:\d{2} · laptop$/);
  });
});
