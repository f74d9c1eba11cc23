/**
 * Who holds a lock, told apart across reboots and pid namespaces (issue 30): a pid means nothing without the
 * namespace it was counted in, and a lock folder outlives a reboot. A record names the boot (the kernel's
 * boot id), the pid namespace (its inode), the pid there and the process's start time. A holder is dead
 * when its boot is over, or when the process that pid names in its namespace is gone, is another process
 * (another start time) or is a zombie. A holder in a namespace this process cannot see into is alive: no
 * rule here can prove it dead, so it is never taken (the waiter's error says how to clear it by hand).
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { processStartTime } from './process.js';

export interface ProcessIdentity {
  pid: number;
  started: string;
  /** /proc/sys/kernel/random/boot_id; absent off Linux. */
  boot?: string;
  /** The inode of /proc/self/ns/pid (e.g. 'pid:[4026531836]'); absent off Linux. */
  pidns?: string;
}

function readBoot(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

function readPidNs(pid: number | 'self'): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

/** The initial pid namespace's inode, a constant of the kernel (PROC_PID_INIT_INO). */
const INIT_PID_NS = 'pid:[4026531836]';

let self: ProcessIdentity | undefined;

/** This process's identity, for an owner record. */
export function selfIdentity(): ProcessIdentity {
  if (self?.pid === process.pid) return self;
  const boot = readBoot();
  const pidns = readPidNs('self');
  self = { pid: process.pid, started: processStartTime(process.pid) ?? 'unknown', ...(boot === undefined ? {} : { boot }), ...(pidns === undefined ? {} : { pidns }) };
  return self;
}

/** The state letter and start time of /proc/PID/stat (fields 3 and 22), or null when there is no such process. */
function procStat(pid: number): { state: string; started: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', started: fields[19] ?? '' };
  } catch {
    return null;
  }
}

export type OwnerState = 'alive' | 'dead' | 'unknown';

/**
 * Whether the recorded process lives. 'unknown' only for a holder in a pid namespace this process does not
 * see (a container's CLI seen from inside another container): callers treat it as alive.
 */
export function ownerState(owner: ProcessIdentity): OwnerState {
  const me = selfIdentity();
  // Another boot's holder died with that boot (the start time counts from boot, so it could match by chance).
  if (owner.boot !== undefined && me.boot !== undefined && owner.boot !== me.boot) return 'dead';
  if (owner.pidns === undefined || me.pidns === undefined || owner.pidns === me.pidns) return judge(owner.pid, owner.started);
  // Another namespace: look for it from here (a namespace below ours, e.g. a container seen from the host).
  const hostPid = findInNamespace(owner.pidns, owner.pid);
  // From the initial namespace every process is visible: a namespace with none left is over, and its holder too.
  if (hostPid === 'not-visible') return me.pidns === INIT_PID_NS ? 'dead' : 'unknown';
  return hostPid === null ? 'dead' : judge(hostPid, owner.started);
}

function judge(pid: number, started: string): OwnerState {
  const stat = procStat(pid);
  if (stat === null) {
    // No /proc (macOS): ps, as before.
    const now = processStartTime(pid);
    return now !== null && (started === 'unknown' || now === started) ? 'alive' : 'dead';
  }
  // A zombie has exited; only its parent has not read its status. X: dead, being reaped.
  if (stat.state === 'Z' || stat.state === 'X') return 'dead';
  return started === 'unknown' || stat.started === started ? 'alive' : 'dead';
}

/**
 * The pid, in this namespace, of the process numbered `pid` in namespace `ns`; null when that namespace is
 * visible from here and holds no such process; 'not-visible' when no process here is in that namespace
 * (it is above ours or beside it, or it ended, which cannot be told apart from here).
 */
function findInNamespace(ns: string, pid: number): number | null | 'not-visible' {
  let seen = false;
  let names: string[];
  try {
    names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 'not-visible';
  }
  for (const name of names) {
    const candidate = Number(name);
    if (readPidNs(candidate) !== ns) continue;
    seen = true;
    // NSpid: the pid in each namespace, ours first, the process's own last.
    let status: string;
    try {
      status = readFileSync(`/proc/${candidate}/status`, 'utf8');
    } catch {
      continue;
    }
    const inner = /^NSpid:\s+(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/).at(-1);
    if (inner !== undefined && Number(inner) === pid) return candidate;
  }
  return seen ? null : 'not-visible';
}
