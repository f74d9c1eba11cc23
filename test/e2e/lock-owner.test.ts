/**
 * Locks that know their owner (issue 30): a holder is a real process (the built lock module, dist/core/lock.js)
 * and a waiter is this test. A holder stopped with SIGSTOP whose lock's mtime is older than any staleness
 * (proper-lockfile's own `stale` took it after 600 s) keeps its lock; a holder in another pid namespace
 * (`unshare --pid --fork --mount-proc`) is not taken for dead while it lives and is once it is gone; a zombie
 * holder is dead. The pid-namespace test needs root and unshare and says visibly when it did not run.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acquireLock, takeOverDead } from '../../src/core/lock.js';
import { ownerState, type OwnerState } from '../../src/core/owner.js';
import { useTempDir } from '../helpers/tmp.js';

const LOCK_MODULE = pathToFileURL(path.resolve('dist/core/lock.js')).href;
const LOCKS = '.vaultkeeper/locks';

/** A holder script: takes the lock, says `held`, then on stdin `release` releases (printing `released`) or `exit` dies holding it. */
async function holderScript(dir: string): Promise<string> {
  const file = path.join(dir, 'holder.mjs');
  await writeFile(
    file,
    `import { acquireLock } from ${JSON.stringify(LOCK_MODULE)};
const release = await acquireLock(process.argv[2], 'write', { waitMs: 5000 });
process.stdout.write('held\\n');
process.stdin.setEncoding('utf8').on('data', async (d) => {
  if (d.includes('exit')) process.exit(0);
  if (d.includes('release')) { await release(); process.stdout.write('released\\n'); process.exit(0); }
});
`,
  );
  return file;
}

function waitFor(child: ChildProcess, word: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes(word)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`holder exited ${code} before '${word}': ${out}`)));
  });
}

function canUnshare(): string | null {
  if (process.getuid?.() !== 0) return 'not root';
  try {
    execFileSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'unshare --pid --fork --mount-proc failed';
  }
}
const noUnshare = canUnshare();
if (noUnshare !== null) process.stderr.write(`\n*** lock-owner.test.ts: the pid-namespace test DID NOT RUN: ${noUnshare} ***\n\n`);

describe('locks that know their owner', () => {
  const tempDir = useTempDir();

  it('a holder stopped past every staleness time keeps its lock, and still holds it when it resumes', async () => {
    const root = await tempDir();
    const holder = spawn(process.execPath, [await holderScript(root), root]);
    try {
      await waitFor(holder, 'held');
      const lockDir = path.join(root, LOCKS, 'write.lock');
      const { mtime } = await stat(lockDir);
      holder.kill('SIGSTOP');
      // As if it had been stopped for 700 s (a laptop asleep): past proper-lockfile's 600 s `stale`.
      const then = new Date(Date.now() - 700_000);
      await utimes(lockDir, then, then);
      await expect(acquireLock(root, 'write', { waitMs: 500 })).rejects.toMatchObject({ code: 'VK_LOCKED' });
      await utimes(lockDir, mtime, mtime); // its own refresh then finds the mtime it set
      holder.kill('SIGCONT');
      const released = waitFor(holder, 'released');
      holder.stdin!.write('release\n');
      await released;
      const again = await acquireLock(root, 'write', { waitMs: 2000 });
      await again();
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('a zombie holder (exited, not reaped by its parent) is dead: its lock is taken over', async () => {
    const root = await tempDir();
    // sh starts the holder in the background and becomes `sleep`, which never reaps it: once it exits it is a zombie.
    const parent = spawn('sh', ['-c', `"${process.execPath}" "${await holderScript(root)}" "${root}" & exec sleep 30`], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await waitFor(parent, 'held');
      parent.stdin!.write('exit\n');
      const owner = JSON.parse(await readFile(path.join(root, LOCKS, 'write.owner'), 'utf8')) as { pid: number };
      for (let i = 0; i < 100; i++) {
        const state = (await readFile(`/proc/${owner.pid}/stat`, 'utf8').catch(() => '')).split(') ')[1]?.[0];
        if (state === 'Z') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await readFile(`/proc/${owner.pid}/stat`, 'utf8')).split(') ')[1]?.[0]).toBe('Z');
      const release = await acquireLock(root, 'write', { waitMs: 2000 });
      await release();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('a waiter that judged a holder dead just as it released and exited leaves the next holder\'s lock where it is', async () => {
    // A finished CLI call is as dead as a killed one. The waiter read holder A's record; A then released and
    // exited, and B took the lock, all before the waiter's judgement returned: the lock it would move is B's.
    // Moving it aside, even to give it back, leaves a moment with no lock in which a third writer starts
    // beside B (the 20-writer concurrency test once saw a fact reported at another's line).
    const root = await tempDir();
    const target = path.join(root, LOCKS, 'write');
    const holder = spawn(process.execPath, [await holderScript(root), root]);
    let releaseB: (() => Promise<void>) | undefined;
    let judged: OwnerState | undefined;
    let lockOfB: { ino: bigint; ctimeNs: bigint; birthtimeNs: bigint } | undefined;
    try {
      await waitFor(holder, 'held');
      const took = await takeOverDead(target, async (owner) => {
        const exited = new Promise((resolve) => holder.on('exit', resolve));
        holder.stdin!.write('release\n');
        await exited;
        releaseB = await acquireLock(root, 'write', { waitMs: 5000 });
        lockOfB = await stat(`${target}.lock`, { bigint: true });
        judged = ownerState(owner);
        return judged;
      });
      expect(judged).toBe('dead');
      expect(took).toBe(false);
      // Not renamed aside and back (a rename changes a folder's ctime), and B's record still names it.
      const now = await stat(`${target}.lock`, { bigint: true });
      expect({ ino: now.ino, ctimeNs: now.ctimeNs, birthtimeNs: now.birthtimeNs }).toEqual({ ino: lockOfB!.ino, ctimeNs: lockOfB!.ctimeNs, birthtimeNs: lockOfB!.birthtimeNs });
      expect(JSON.parse(await readFile(`${target}.owner`, 'utf8'))).toMatchObject({ pid: process.pid });
      await expect(acquireLock(root, 'write', { waitMs: 300 })).rejects.toMatchObject({ code: 'VK_LOCKED' });
    } finally {
      holder.kill('SIGKILL');
      await releaseB?.();
    }
  });

  it.skipIf(noUnshare !== null)('a holder in another pid namespace is alive while it runs, and dead once its namespace is gone', async () => {
    const root = await tempDir();
    const holder = spawn('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, await holderScript(root), root]);
    try {
      await waitFor(holder, 'held');
      const owner = JSON.parse(await readFile(path.join(root, LOCKS, 'write.owner'), 'utf8')) as { pid: number; pidns: string };
      // Its pid counts in its own namespace (1 there), which is not ours.
      expect(owner.pid).toBeLessThan(10);
      expect(owner.pidns).not.toBe(await import('node:fs').then((fs) => fs.readlinkSync('/proc/self/ns/pid')));
      await expect(acquireLock(root, 'write', { waitMs: 500 })).rejects.toMatchObject({ code: 'VK_LOCKED' });
      holder.kill('SIGKILL');
      await new Promise((r) => holder.on('exit', r));
      const release = await acquireLock(root, 'write', { waitMs: 5000 });
      await release();
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it.skipIf(noUnshare !== null)('a waiter inside a pid namespace never takes the lock of a holder it cannot see, and says so', async () => {
    const root = await tempDir();
    const release = await acquireLock(root, 'write');
    try {
      const waiter = path.join(root, 'waiter.mjs');
      await writeFile(
        waiter,
        `import { acquireLock } from ${JSON.stringify(LOCK_MODULE)};
try { await acquireLock(process.argv[2], 'write', { waitMs: 500 }); process.stdout.write('TOOK'); } catch (e) { process.stdout.write(e.code + ': ' + e.message); }
`,
      );
      const out = execFileSync('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, waiter, root], { encoding: 'utf8' });
      expect(out).toMatch(/^VK_LOCKED: .*another pid namespace/);
    } finally {
      await release();
    }
  });
});
