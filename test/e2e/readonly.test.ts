/**
 * A vault on a read-only mount (issue 13, the smaller ones): search answers from the index as it is, with a
 * one-line note when that index is behind the files, instead of failing on the lock and the recall event it cannot write. Needs `mount --bind` and a read-only remount
 * (root, as here and in CI); where mounting fails the suite is skipped and says why.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';

const base = mkdtempSync(path.join(os.tmpdir(), 'vk-readonly-'));
const source = path.join(base, 'vault');
const mountPoint = path.join(base, 'ro');
let mounted = false;
let why = '';

afterAll(() => {
  if (mounted) execFileSync('umount', [mountPoint]);
  rmSync(base, { recursive: true, force: true });
});

async function mountReadOnly(): Promise<void> {
  await mkdir(mountPoint);
  try {
    execFileSync('mount', ['--bind', source, mountPoint], { stdio: 'pipe' });
    mounted = true;
    execFileSync('mount', ['-o', 'remount,ro,bind', mountPoint], { stdio: 'pipe' });
  } catch (error) {
    why = String((error as { stderr?: Buffer }).stderr ?? error).trim().split('\n')[0] ?? '';
  }
}

describe('a read-only vault', () => {
  it('is searched as it is, with one note; a write is refused in one line', async (ctx) => {
    await runJson(['init', source]);
    await runJson(['--vault', source, 'remember', 'Prefers dark roast coffee', '--date', '2026-06-01']);
    await runJson(['--vault', source, 'search', 'coffee']);
    await mountReadOnly();
    if (why !== '') ctx.skip(`cannot mount read-only here (${why}); run as root to test`);

    // The index is current (the mount is the same vault at another path: the manifest names its index by a relative
    // path), so the search answers with nothing to say.
    const current = await runCli(['--vault', mountPoint, 'search', 'what coffee does the user like', '--json']);
    expect(current.code, current.stderr).toBe(0);
    expect(current.stderr).toBe('');
    expect((JSON.parse(current.stdout) as { results: { text: string }[] }).results[0]!.text).toBe('Prefers dark roast coffee');

    // A fact stored since through the writable path: the index is behind, and the mount cannot bring it up to date.
    await runJson(['--vault', source, 'remember', 'Plays the cello on Sundays', '--date', '2026-06-02']);
    const found = await runCli(['--vault', mountPoint, 'search', 'what coffee does the user like', '--json']);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stderr.trimEnd().split('\n')).toEqual(['vaultkeeper: the vault is read-only here: searching its index as it is, without bringing it up to date']);
    expect((JSON.parse(found.stdout) as { results: { text: string }[] }).results[0]!.text).toBe('Prefers dark roast coffee');

    const write = await runCli(['--vault', mountPoint, 'remember', 'Likes green tea']);
    expect(write.code).toBe(1);
    expect(write.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
