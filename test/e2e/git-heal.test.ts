/**
 * Damaged git and damaged tombstones (issue 30): writers refuse with the pointer to `doctor --fix` (never a
 * git message, never a new history), doctor names the damage, and `doctor --fix` repairs it keeping every log
 * line, after which `git fsck` is clean and writers work again.
 */
import { readFile, rm, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { commitSubjects, git, initVault } from '../helpers/vault.js';
import { useTempDir } from '../helpers/tmp.js';

const env = { LANCE_CPU_THREADS: '2' };

async function remember(root: string, text: string): Promise<{ code: number; stderr: string }> {
  return runCli(['--vault', root, 'remember', text], { env });
}

async function objectFile(root: string, rev: string): Promise<string> {
  const sha = (await git(root, ['rev-parse', rev])).trim();
  return path.join(root, '.git', 'objects', sha.slice(0, 2), sha.slice(2));
}

/** After the fix: fsck clean, every fact line in the log committed, and a writer works again. */
async function healed(root: string, lines: readonly string[]): Promise<void> {
  expect((await git(root, ['fsck', '--no-dangling', '--no-progress'])).trim()).toBe('');
  const log = (await git(root, ['ls-files', 'logs/*.md'])).trim().split('\n')[0]!;
  const committed = await git(root, ['show', `HEAD:${log}`]);
  for (const line of lines) expect(committed).toContain(line);
  const again = await remember(root, 'after the repair');
  expect(again.code, again.stderr).toBe(0);
}

describe('git that heals or says how', () => {
  const tempDir = useTempDir();

  it('an empty HEAD commit object (a power cut before git flushed it): writers refuse, doctor --fix re-points HEAD and commits the files on top', async () => {
    const root = await initVault(await tempDir(), { env });
    expect((await remember(root, 'Rosa grows basil')).code).toBe(0);
    expect((await remember(root, 'Rosa moved to Porto')).code).toBe(0);
    await truncate(await objectFile(root, 'HEAD'), 0);
    const refused = await remember(root, 'a third fact');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^vaultkeeper: the vault's git repository is damaged: .*empty; nothing was written; run `vaultkeeper doctor --fix`/);
    expect(refused.stderr).not.toContain('unexpected error');
    expect(await readFile(path.join(root, (await git(root, ['ls-files', 'logs/*.md'])).trim()), 'utf8')).not.toContain('a third fact');
    const report = await runCli(['--vault', root, 'doctor'], { env });
    expect(report.code).toBe(1);
    expect(report.stdout).toMatch(/GIT_HEAD .*empty/);
    expect(report.stdout).toMatch(/GIT_OBJECT/);
    const fix = await runCli(['--vault', root, 'doctor', '--fix'], { env });
    expect(fix.stdout).toMatch(/fixed: re-pointed refs\/heads\/main to [0-9a-f]{12}/);
    expect(fix.stdout).not.toContain('not fixed');
    await healed(root, ['Rosa grows basil', 'Rosa moved to Porto']);
  });

  it('a truncated object and a missing HEAD: doctor --fix moves the object aside, writes HEAD, keeps every line', async () => {
    const root = await initVault(await tempDir(), { env });
    expect((await remember(root, 'Ines plays cello')).code).toBe(0);
    const file = await objectFile(root, 'HEAD');
    const bytes = await readFile(file);
    await rm(file, { force: true });
    await writeFile(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await rm(path.join(root, '.git', 'HEAD'));
    const refused = await remember(root, 'more');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/git repository is damaged: \.git\/HEAD is missing.*doctor --fix/);
    const fix = await runCli(['--vault', root, 'doctor', '--fix'], { env });
    expect(fix.stdout).toContain('fixed: wrote .git/HEAD: ref: refs/heads/main');
    expect(fix.stdout).toMatch(/fixed: moved 1 unreadable object file to \.git\/vaultkeeper-damaged\//);
    await healed(root, ['Ines plays cello']);
  });

  it('an unborn branch beside the vault\'s files: writers never start a new history; doctor --fix goes back to the reflog\'s newest commit', async () => {
    const root = await initVault(await tempDir(), { env });
    expect((await remember(root, 'Tomas keeps bees')).code).toBe(0);
    const before = await commitSubjects(root);
    await rm(path.join(root, '.git', 'refs', 'heads', 'main'));
    await rm(path.join(root, '.git', 'packed-refs'), { force: true });
    const refused = await remember(root, 'more');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/HEAD names the branch refs\/heads\/main, which has no commit \(a new history would start\).*doctor --fix/);
    const fix = await runCli(['--vault', root, 'doctor', '--fix'], { env });
    expect(fix.code, fix.stdout + fix.stderr).toBe(0);
    // The history goes on from where it was, not from a new root commit.
    expect((await commitSubjects(root)).slice(-before.length)).toEqual(before);
    await healed(root, ['Tomas keeps bees']);
  });
});

describe('a damaged tombstone file', () => {
  const tempDir = useTempDir();

  it('a torn last tombstone line: the fact stays forgotten, writers stop with the fix, doctor --fix restores the line', async () => {
    const root = await initVault(await tempDir(), { env });
    const stored = await runCli(['--vault', root, 'remember', 'The safe code is behind the clock', '--json'], { env });
    const id = (JSON.parse(stored.stdout) as { facts: Array<{ id: string }> }).facts[0]!.id;
    expect((await runCli(['--vault', root, 'forget', id], { env })).code).toBe(0);
    const file = path.join(root, '.vaultkeeper', 'tombstones.jsonl');
    const whole = await readFile(file, 'utf8');
    // What an older version left on a full disk: the line cut after its id.
    await writeFile(file, whole.slice(0, whole.indexOf('"text"') + 10));
    const search = await runCli(['--vault', root, 'search', 'safe code clock', '--json'], { env });
    expect(search.stdout).not.toContain(id);
    const refused = await remember(root, 'another fact');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/tombstones\.jsonl is damaged \(line 1 not a tombstone\).*nothing was written; run `vaultkeeper doctor --fix`/);
    const fix = await runCli(['--vault', root, 'doctor', '--fix'], { env });
    expect(fix.stdout).toContain(`fixed: restored the tombstone of ${id}`);
    const restored = JSON.parse((await readFile(file, 'utf8')).trim()) as { id: string; text: string };
    expect(restored).toMatchObject({ id, text: 'the safe code is behind the clock' });
    expect((await remember(root, 'another fact')).code).toBe(0);
  });
});
