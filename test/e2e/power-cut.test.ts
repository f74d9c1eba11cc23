/**
 * A power cut right after a command exits 0 (issue 30): the vault lives on an ext4 file system in a loop-
 * mounted image file, and the image is copied (`cp`, no sync) the moment the command exits. The loop device
 * hands the image only what ext4 has written out; what is still in ext4's page cache (a write never flushed)
 * is not in the image yet, so the copy is the disk a power cut would leave. The copy is then mounted (ext4
 * replays its journal, as after a cut) and checked: the command's effect is there and `git fsck` is clean.
 * The mount uses commit=600 so ext4's own 5 s journal commit does not flush for us, and a control write
 * (a file written with no fsync) shows the method tells flushed from unflushed data: its bytes must be
 * missing from the copy. Needs root and loop devices; without them the test says so visibly and does not run.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { git } from '../helpers/vault.js';

function canLoopMount(): string | null {
  if (process.getuid?.() !== 0) return 'not root';
  if (!existsSync('/dev/loop-control')) return 'no /dev/loop-control';
  try {
    execFileSync('which', ['mkfs.ext4', 'mount', 'umount']);
  } catch {
    return 'mkfs.ext4/mount missing';
  }
  return null;
}

const missing = canLoopMount();
if (missing !== null) process.stderr.write(`\n*** power-cut.test.ts DID NOT RUN: ${missing} (it needs root and loop devices) ***\n\n`);

const sh = (cmd: string, args: string[]): string => execFileSync(cmd, args, { encoding: 'utf8' });

describe.skipIf(missing !== null)('a power cut right after a command exits 0 (ext4 loop image, copied unsynced)', () => {
  let dir = '';
  let mnt = '';
  let vault = '';
  const env = { LANCE_CPU_THREADS: '2' };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'vk-powercut-'));
    mnt = path.join(dir, 'mnt');
    sh('truncate', ['-s', '160M', path.join(dir, 'disk.img')]);
    sh('mkfs.ext4', ['-q', path.join(dir, 'disk.img')]);
    sh('mkdir', ['-p', mnt, path.join(dir, 'cut')]);
    sh('mount', ['-o', 'loop,commit=600', path.join(dir, 'disk.img'), mnt]);
    vault = path.join(mnt, 'vault');
    const init = await runCli(['init', vault], { env });
    expect(init.code, init.stderr).toBe(0);
    sh('sync', []); // the vault as it was before the commands under test: on the disk
  }, 120_000);

  afterAll(() => {
    for (const m of [path.join(dir, 'cut'), mnt]) {
      try {
        sh('umount', [m]);
      } catch {
        /* not mounted */
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** Copies the image as a power cut would leave the disk, mounts the copy, runs `check` on it, unmounts. */
  async function afterCut(check: (cutVault: string) => Promise<void>): Promise<void> {
    const copy = path.join(dir, 'cut.img');
    sh('cp', [path.join(dir, 'disk.img'), copy]);
    sh('mount', ['-o', 'loop', copy, path.join(dir, 'cut')]);
    try {
      await check(path.join(dir, 'cut', 'vault'));
    } finally {
      sh('umount', [path.join(dir, 'cut')]);
      rmSync(copy, { force: true });
    }
  }

  async function fsckClean(root: string): Promise<void> {
    // safe.directory: the copy is root's, as the test is; git fsck exits non-zero on any problem.
    const out = await git(root, ['-c', 'safe.directory=*', 'fsck', '--no-dangling', '--no-progress']);
    expect(out.trim()).toBe('');
  }

  it('the method tells flushed from unflushed data: a write with no fsync is missing from the copy', async () => {
    writeFileSync(path.join(mnt, 'control-unsynced'), 'x'.repeat(4096));
    await afterCut(async (cut) => {
      const control = path.join(path.dirname(cut), 'control-unsynced');
      // ext4 may have journalled the new entry, but not the delayed-allocation data.
      expect(existsSync(control) ? readFileSync(control, 'utf8') : '').not.toBe('x'.repeat(4096));
    });
  });

  it('remember: the fact line and its commit survive, git fsck clean', async () => {
    const result = await runCli(['--vault', vault, 'remember', 'The blue kettle is in the attic', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    const { facts } = JSON.parse(result.stdout) as { facts: Array<{ id: string; path: string }> };
    await afterCut(async (cut) => {
      expect(readFileSync(path.join(cut, facts[0]!.path), 'utf8')).toContain(`^${facts[0]!.id}`);
      expect(await git(cut, ['-c', 'safe.directory=*', 'log', '-1', '--format=%s'])).toMatch(/^remember: 1 fact/);
      await fsckClean(cut);
    });
  });

  it('forget: the tombstone and its commit survive, git fsck clean', async () => {
    const result = await runCli(['--vault', vault, 'forget', '--match', 'blue kettle', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    const { tombstoned } = JSON.parse(result.stdout) as { tombstoned: Array<{ id: string }> };
    expect(tombstoned).toHaveLength(1);
    await afterCut(async (cut) => {
      expect(readFileSync(path.join(cut, '.vaultkeeper/tombstones.jsonl'), 'utf8')).toContain(`"id":"${tombstoned[0]!.id}"`);
      expect(await git(cut, ['-c', 'safe.directory=*', 'log', '-1', '--format=%s'])).toMatch(/^forget: 1 fact/);
      await fsckClean(cut);
    });
  });

  it('a dream: its commit, its pages and MEMORY.md survive, git fsck clean', async () => {
    for (const text of ['Maya works at the harbour office', 'Maya prefers green tea']) {
      // A past day: the dream consolidates only days that are over.
      const r = await runCli(['--vault', vault, 'remember', text, '--date', '2026-06-01'], { env });
      expect(r.code, r.stderr).toBe(0);
    }
    const result = await runCli(['--vault', vault, 'dream', '--force', '--json'], { env, timeoutMs: 120_000 });
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { status: string }).status).toBe('ok');
    const head = (await git(vault, ['rev-parse', 'HEAD'])).trim();
    const memory = readFileSync(path.join(vault, 'MEMORY.md'), 'utf8');
    // Every page the dream wrote (new folders too): each by temp file, fsync and rename, its folder flushed.
    const written = (await git(vault, ['diff', '--name-only', '--diff-filter=AM', 'HEAD~1', 'HEAD'])).split('\n').filter((p) => p.endsWith('.md'));
    expect(written.length, written.join(', ')).toBeGreaterThan(1);
    const pages = new Map(written.map((rel) => [rel, readFileSync(path.join(vault, rel), 'utf8')]));
    await afterCut(async (cut) => {
      expect((await git(cut, ['-c', 'safe.directory=*', 'rev-parse', 'HEAD'])).trim()).toBe(head);
      expect(readFileSync(path.join(cut, 'MEMORY.md'), 'utf8')).toBe(memory);
      for (const [rel, content] of pages) expect(existsSync(path.join(cut, rel)) ? readFileSync(path.join(cut, rel), 'utf8') : null, rel).toBe(content);
      await fsckClean(cut);
    });
  }, 180_000);
});
