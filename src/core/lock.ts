/**
 * The vault's cross-process write lock. Every program write to tracked files (logs, tombstones, pages)
 * and every commit happens under it, so concurrent CLI calls, the daemon and MCP never interleave
 * lines or race on git's index.
 */
import { lstat, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { VaultkeeperError } from './errors.js';
import { ownerState, selfIdentity, type OwnerState, type ProcessIdentity } from './owner.js';
import { confinedPath } from '../vault/confine.js';

const LOCK_DIR = '.vaultkeeper/locks';
/**
 * A lock with no owner record (its holder died between taking it and recording itself, or could not write
 * the record) is stale when its mtime, refreshed by the holder every 5 s, has not moved for this long. The
 * only rule that looks at time: a lock with a record is taken over only when its owner is dead (owner.ts).
 */
const MTIME_STALE_MS = 15_000;
/**
 * proper-lockfile's own staleness is switched off (it would take a live holder's lock after `stale` ms
 * without a refresh: a stopped process, a laptop asleep, a blocked event loop): its `stale` must be a
 * number, so it is one no lock reaches.
 */
const NEVER_STALE_MS = 2 ** 52;

/** Proof that the holder owns the vault's write lock; writers of tracked files require it. */
export interface WriteLock {
  readonly root: string;
}

export interface LockOptions {
  /** How long one other holder may keep the lock before we give up, in ms (the wait restarts each time it changes hands). */
  waitMs?: number;
}

/**
 * Takes the named lock, waiting up to `waitMs` for a live holder. A lock whose holder died (kill -9,
 * a crash: its recorded pid and start time name no living process) is taken over at once; a live holder's
 * lock never is, however long it goes without refreshing its mtime. Returns the release.
 */
export async function acquireLock(root: string, name: string, options: LockOptions = {}): Promise<() => Promise<void>> {
  const dir = await confinedPath(root, LOCK_DIR, 'folder');
  await mkdir(dir, { recursive: true });
  const target = path.join(dir, name);
  // The lock is a folder; a file there is no holder's, and would otherwise be waited out as a stale lock.
  if (await lstat(`${target}.lock`).then((info) => !info.isDirectory(), () => false)) throw strayLockFile(name);
  const waitMs = options.waitMs ?? 120_000;
  let deadline = Date.now() + waitMs;
  let holder: number | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      // proper-lockfile's own staleness (an mtime not refreshed for a while) would hand the lock of a live
      // holder that a loaded machine starved for seconds to a second writer; staleness is judged here instead,
      // by the owner record (takeOverDead), and by the mtime only where no record names a holder.
      const held = { releasing: false, lost: false };
      const release = await lockfile.lock(target, {
        realpath: false,
        stale: NEVER_STALE_MS,
        update: 5_000,
        lockfilePath: `${target}.lock`,
        // proper-lockfile stats its folder every `update` ms and, finding it gone, calls this (by default a
        // throw from a timer, which kills the process). Its check misses a release made while that stat is in
        // flight, so our own release could kill us (a dream under load did, CI 2026-11-24): that is ignored.
        // A folder truly lost while held (removed by hand) is remembered, so the release leaves alone what
        // may now be another holder's lock and record.
        onCompromised: () => {
          if (!held.releasing) held.lost = true;
        },
      });
      return await recordOwner(target, async () => {
        held.releasing = true;
        if (!held.lost) await release();
      }, () => held.lost);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') throw strayLockFile(name);
      if (code !== 'ELOCKED') throw error;
      if (await takeOverDead(target)) continue;
      // A queue that moves is not a busy vault: with twenty writers, a waiter can lose the race for
      // minutes while every holder is quick. Each holder's lock directory is new (its birth time says so,
      // where the file system records one), so the wait restarts when the lock changes hands.
      const born = await stat(`${target}.lock`).then((s) => s.birthtimeMs, () => 0);
      if (born !== 0 && born !== holder) {
        holder = born;
        deadline = Date.now() + waitMs;
      }
      if (Date.now() > deadline) throw await busy(target, name);
      // Jittered backoff so twenty waiting processes do not retry in lock step.
      const delay = Math.min(200, 5 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

export async function withLock<T>(root: string, name: string, fn: (lock: WriteLock) => Promise<T>, options: LockOptions = {}): Promise<T> {
  const release = await acquireLock(root, name, options);
  try {
    return await fn({ root });
  } finally {
    await release().catch(() => undefined);
  }
}

/** Who holds a lock: beside the lock directory (proper-lockfile removes the directory with rmdir). */
interface Owner extends ProcessIdentity {
  dir: number;
  born?: string;
}

/**
 * A lock directory's identity: its inode and its birth time in ns. The inode alone is not enough: a file
 * system hands the inode of a lock just released to the next lock made, so a waiter that read a finished
 * holder's record would see it "match" the next holder's fresh lock and remove it.
 */
interface DirIdentity {
  dir: number;
  born: string;
}

async function lockIdentity(lockDir: string): Promise<DirIdentity & { mtimeMs: number }> {
  const info = await stat(lockDir, { bigint: true });
  return { dir: Number(info.ino), born: String(info.birthtimeNs), mtimeMs: Number(info.mtimeMs) };
}

/** Same directory: same inode, and the same birth time where both sides know it ('0': not recorded by this file system). */
function sameDir(a: DirIdentity, b: { dir: number; born?: string | undefined }): boolean {
  return a.dir === b.dir && (b.born === undefined || b.born === '0' || a.born === '0' || a.born === b.born);
}

/**
 * An owner record, or undefined for a torn or foreign file (then the lock's mtime decides). Checked by hand:
 * every `remember` takes a lock, and zod's modules cost it ~50 ms to load (docs/benchmarks.md).
 */
function parseOwner(text: string): Owner | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { pid, started, dir, born, boot, pidns } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(pid) || typeof started !== 'string' || typeof dir !== 'number' || !Number.isFinite(dir)) return undefined;
  if ([born, boot, pidns].some((v) => v !== undefined && typeof v !== 'string')) return undefined;
  const optional = { born, boot, pidns } as Record<string, string | undefined>;
  const owner: Owner = { pid: pid as number, started, dir };
  for (const key of ['born', 'boot', 'pidns'] as const) if (optional[key] !== undefined) owner[key] = optional[key];
  return owner;
}

async function recordOwner(target: string, release: () => Promise<void>, lost: () => boolean): Promise<() => Promise<void>> {
  const ownerFile = `${target}.owner`;
  let mine: DirIdentity | null = null;
  try {
    const { dir, born } = await lockIdentity(`${target}.lock`);
    mine = { dir, born };
    const temp = `${ownerFile}.${process.pid}.tmp`;
    // wx: never written through a link left at the temp name (the locks folder itself is confined).
    await rm(temp, { force: true });
    await writeFile(temp, JSON.stringify({ ...selfIdentity(), dir, born }), { flag: 'wx' });
    await rename(temp, ownerFile);
  } catch {
    // Without an owner record the lock is still held; a crash then costs the 15 s staleness wait.
  }
  return async () => {
    if (lost()) {
      if (mine !== null) await releaseLost(target, mine);
      return;
    }
    await rm(ownerFile, { force: true });
    await release();
  };
}

/**
 * The release of a lock proper-lockfile gave up on (its mtime refresh found the folder gone or its mtime not its
 * own). While the folder there is still the one this holder made, no one else has it — a live holder's lock is never
 * taken over — so it is removed as a release would: left in place, it would stand for a live process until that
 * process exits (a worker serving many jobs held its vault that way in issue 28's load run). A folder made since by
 * another holder, or none, is left alone. Renamed aside first and checked, as a takeover does.
 */
async function releaseLost(target: string, mine: DirIdentity): Promise<void> {
  const lockDir = `${target}.lock`;
  const aside = `${lockDir}.released-${process.pid}`;
  try {
    const seen = await lockIdentity(lockDir);
    if (!sameDir(seen, mine)) return;
    await rm(aside, { recursive: true, force: true });
    await rename(lockDir, aside);
    const taken = await lockIdentity(aside);
    if (!sameDir(taken, mine)) {
      await rename(aside, lockDir).catch(() => undefined);
      return;
    }
    const owner = await readFile(`${target}.owner`, 'utf8').then(parseOwner, () => undefined);
    if (owner !== undefined && sameDir(mine, owner) && owner.pid === process.pid) await rm(`${target}.owner`, { force: true });
    await rm(aside, { recursive: true, force: true });
  } catch {
    // Gone already, or not ours: nothing to release.
  }
}

/**
 * Removes the lock when its recorded owner is dead, or when no record of this lock directory exists and
 * its mtime has not moved for MTIME_STALE_MS (a holder refreshes it every 5 s); true when it did. One
 * waiter at a time takes a lock over (the `.takeover` folder): with two, one could rename aside the lock
 * the other had just made, and its holder's next mtime refresh would find no lock (lock.test.ts). The lock
 * is renamed aside and checked to be the very directory judged dead before it is removed.
 *
 * The judgement is confirmed after it is made: the holder may have released its lock and exited while this
 * waiter read its record (a finished CLI call is as dead as a killed one), and the next holder taken the
 * lock. Only once the record and the lock directory are seen unchanged after the holder was judged dead is
 * the directory moved: a dead holder releases nothing, so it is then still the one judged. Moving a live
 * holder's lock aside, even to give it back, leaves a moment with no lock, and a third process that takes
 * it then writes beside the live holder (the 20-writer test saw a fact reported at another's line).
 * `judge` is ownerState; a test passes its own to let a holder finish during the judgement.
 */
export async function takeOverDead(target: string, judge: (owner: ProcessIdentity) => OwnerState | Promise<OwnerState> = ownerState): Promise<boolean> {
  const lockDir = `${target}.lock`;
  const mutex = `${target}.takeover`;
  try {
    await mkdir(mutex);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') await clearStaleTakeover(mutex);
    return false;
  }
  try {
    // The clock is read before the stat: however long this process then waits for a core, the lock's age
    // is not overstated (a waiter starved between the two once judged a live holder's lock 15 s stale).
    const now = Date.now();
    const seen = await lockIdentity(lockDir);
    const record = await readFile(`${target}.owner`, 'utf8').catch(() => undefined);
    const owner = record === undefined ? undefined : parseOwner(record);
    // The record must be of this very lock directory, not of an earlier holder's.
    if (owner !== undefined && sameDir(seen, owner)) {
      // 'unknown' (a namespace not visible from here) counts as alive: never taken on a guess.
      if ((await judge(owner)) !== 'dead') return false;
    } else if (now - seen.mtimeMs < MTIME_STALE_MS) {
      return false;
    }
    // Still the lock and the record judged (see above): the same directory, mtime and record text.
    const recordNow = await readFile(`${target}.owner`, 'utf8').catch(() => undefined);
    const seenNow = await lockIdentity(lockDir);
    if (recordNow !== record || seenNow.dir !== seen.dir || seenNow.born !== seen.born || seenNow.mtimeMs !== seen.mtimeMs) return false;
    const aside = `${lockDir}.taken-${process.pid}`;
    await rm(aside, { recursive: true, force: true });
    await rename(lockDir, aside);
    const taken = await lockIdentity(aside);
    if (taken.dir !== seen.dir || taken.born !== seen.born) {
      // The judged lock was released and a new one made since: give it back.
      await rename(aside, lockDir).catch(() => undefined);
      return false;
    }
    await rm(aside, { recursive: true, force: true });
    if (owner !== undefined) {
      const current = await readFile(`${target}.owner`, 'utf8').then(parseOwner, () => undefined);
      if (current !== undefined && current.pid === owner.pid && current.dir === owner.dir && current.born === owner.born) await rm(`${target}.owner`, { force: true });
    }
    return true;
  } catch {
    return false;
  } finally {
    await rm(mutex, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** A takeover takes milliseconds: a `.takeover` folder older than this was left by a waiter killed mid-way. */
const TAKEOVER_STALE_MS = 30_000;

async function clearStaleTakeover(mutex: string): Promise<void> {
  const info = await stat(mutex).catch(() => null);
  if (info !== null && Date.now() - info.mtimeMs > TAKEOVER_STALE_MS) await rm(mutex, { recursive: true, force: true }).catch(() => undefined);
}

/** The waiter's error: who holds the lock, and when it is safe to clear it by hand. */
async function busy(target: string, name: string): Promise<VaultkeeperError> {
  const owner = await readFile(`${target}.owner`, 'utf8').then(parseOwner, () => undefined);
  const me = selfIdentity();
  if (owner !== undefined && owner.pidns !== undefined && me.pidns !== undefined && owner.pidns !== me.pidns && ownerState(owner) === 'unknown') {
    return new VaultkeeperError('VK_LOCKED', `the vault is busy: process ${owner.pid} of another pid namespace (${owner.pidns}: a container, or the host seen from one) holds the ${name} lock`, {
      hint: `wait for it and try again; if no vaultkeeper runs there any more, remove ${LOCK_DIR}/${name}.lock and ${LOCK_DIR}/${name}.owner`,
    });
  }
  const who = owner === undefined ? 'another vaultkeeper process' : `vaultkeeper process ${owner.pid}`;
  return new VaultkeeperError('VK_LOCKED', `the vault is busy: ${who} holds the ${name} lock`, { hint: 'wait for it to finish and try again' });
}

export function withWriteLock<T>(root: string, fn: (lock: WriteLock) => Promise<T>, options?: LockOptions): Promise<T> {
  return withLock(root, 'write', fn, options);
}

function strayLockFile(name: string): VaultkeeperError {
  return new VaultkeeperError('VK_LOCK_FILE', `${LOCK_DIR}/${name}.lock is a file, not vaultkeeper's lock (a folder)`, {
    hint: `no vaultkeeper writes with such a file: remove ${LOCK_DIR}/${name}.lock, then run the command again`,
  });
}
