/**
 * The write lock's staleness rules, on real lock folders: a live holder's lock is never taken over, however
 * old its mtime (a starved holder on a loaded machine); a dead holder's is taken over at once; a lock with no
 * owner record waits for its mtime to go 15 s stale.
 */
import { spawn } from 'node:child_process';
import { mkdir, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/core/lock.js';
import { processStartTime } from '../../src/core/process.js';
import { useTempDir } from '../helpers/tmp.js';

const LOCKS = '.vaultkeeper/locks';

async function age(file: string, seconds: number): Promise<void> {
  const then = new Date(Date.now() - seconds * 1000);
  await utimes(file, then, then);
}

/** A real process that has exited: its pid and start time name no living process. */
async function deadProcess(): Promise<{ pid: number; started: string }> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 5000)']);
  const pid = child.pid!;
  const started = processStartTime(pid) ?? 'unknown';
  await new Promise((resolve) => {
    child.on('exit', resolve);
    child.kill('SIGKILL');
  });
  return { pid, started };
}

/** A lock folder whose owner record names a dead process, as a holder killed with -9 leaves it. */
async function deadHolderLock(root: string): Promise<void> {
  const { pid, started } = await deadProcess();
  const dir = path.join(root, LOCKS, 'write.lock');
  await mkdir(dir, { recursive: true });
  const { ino, birthtimeNs } = await stat(dir, { bigint: true });
  await writeFile(path.join(root, LOCKS, 'write.owner'), JSON.stringify({ pid, started, dir: Number(ino), born: String(birthtimeNs) }));
}

describe('the write lock', () => {
  const tempDir = useTempDir();

  it('never takes over a live holder, even with an mtime long stale', async () => {
    const root = await tempDir();
    const release = await acquireLock(root, 'write');
    await age(path.join(root, LOCKS, 'write.lock'), 120);
    await expect(acquireLock(root, 'write', { waitMs: 300 })).rejects.toMatchObject({ code: 'VK_LOCKED' });
    await release();
    const again = await acquireLock(root, 'write', { waitMs: 0 });
    await again();
  });

  it('releases a lock whose mtime refresh found it touched by someone else (proper-lockfile gives it up): the next writer gets it at once', async () => {
    const root = await tempDir();
    const release = await acquireLock(root, 'write');
    // An mtime not its own makes proper-lockfile's next refresh (every 5 s) call the lock compromised.
    await age(path.join(root, LOCKS, 'write.lock'), 120);
    await new Promise((resolve) => setTimeout(resolve, 6_500));
    await release();
    await expect(stat(path.join(root, LOCKS, 'write.lock'))).rejects.toMatchObject({ code: 'ENOENT' });
    const again = await acquireLock(root, 'write', { waitMs: 300 });
    await again();
  }, 20_000);

  it('takes over a dead holder at once', async () => {
    const root = await tempDir();
    await deadHolderLock(root);
    const release = await acquireLock(root, 'write', { waitMs: 0 });
    await release();
  });

  it('never takes a new lock for a dead holder\'s record that names its reused inode', async () => {
    // A file system hands a released lock's inode to the next lock made: a waiter that read the finished
    // holder's record must not remove the next holder's lock. The birth time tells the two apart.
    const root = await tempDir();
    const { pid, started } = await deadProcess();
    const release = await acquireLock(root, 'write');
    const ino = (await stat(path.join(root, LOCKS, 'write.lock'))).ino;
    await writeFile(path.join(root, LOCKS, 'write.owner'), JSON.stringify({ pid, started, dir: ino, born: '1' }));
    await expect(acquireLock(root, 'write', { waitMs: 300 })).rejects.toMatchObject({ code: 'VK_LOCKED' });
    await release();
  });

  it('waits out a lock with no owner record until its mtime is 15 s old, then takes it', async () => {
    const root = await tempDir();
    const dir = path.join(root, LOCKS, 'write.lock');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(root, LOCKS, 'write.owner'), 'torn{');
    await expect(acquireLock(root, 'write', { waitMs: 300 })).rejects.toMatchObject({ code: 'VK_LOCKED' });
    await age(dir, 16);
    const release = await acquireLock(root, 'write', { waitMs: 0 });
    await release();
  });

  it('reads a record of another shape as no record: a lock it names by a wrong-typed field is waited out, not taken over', async () => {
    const root = await tempDir();
    const { pid, started } = await deadProcess();
    const dir = path.join(root, LOCKS, 'write.lock');
    await mkdir(dir, { recursive: true });
    const { ino, birthtimeNs } = await stat(dir, { bigint: true });
    const valid = { pid, started, dir: Number(ino), born: String(birthtimeNs) };
    // Each names the dead holder but one field has another type: taken as an owner record, the lock would go at once.
    for (const record of [{ ...valid, pid: String(pid) }, { ...valid, pid: pid + 0.5 }, { ...valid, started: 7 }, { ...valid, dir: String(ino) }, { ...valid, born: 1 }, [valid], null]) {
      await writeFile(path.join(root, LOCKS, 'write.owner'), JSON.stringify(record));
      await expect(acquireLock(root, 'write', { waitMs: 300 }), JSON.stringify(record)).rejects.toMatchObject({ code: 'VK_LOCKED' });
    }
    await writeFile(path.join(root, LOCKS, 'write.owner'), JSON.stringify(valid));
    const release = await acquireLock(root, 'write', { waitMs: 0 });
    await release();
  });

  it('lets one waiter at a time take a dead lock over: a takeover in progress is waited for, one left by a killed waiter is cleared after 30 s', async () => {
    const root = await tempDir();
    await deadHolderLock(root);
    const takeover = path.join(root, LOCKS, 'write.takeover');
    await mkdir(takeover);
    await expect(acquireLock(root, 'write', { waitMs: 300 })).rejects.toMatchObject({ code: 'VK_LOCKED' });
    await age(takeover, 31);
    const release = await acquireLock(root, 'write', { waitMs: 2_000 });
    await expect(stat(takeover)).rejects.toMatchObject({ code: 'ENOENT' });
    await release();
  });

  it('never has two holders when many waiters find a dead lock at once', async () => {
    const root = await tempDir();
    for (let round = 0; round < 5; round++) {
      await deadHolderLock(root);
      let holders = 0;
      let most = 0;
      await Promise.all(
        Array.from({ length: 12 }, async () => {
          const release = await acquireLock(root, 'write', { waitMs: 20_000 });
          most = Math.max(most, ++holders);
          await new Promise((resolve) => setTimeout(resolve, 2));
          holders--;
          await release();
        }),
      );
      expect(most, `round ${round}`).toBe(1);
    }
  }, 60_000);
});
