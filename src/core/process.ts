/**
 * Process identity: a pid alone is unsafe after reuse, so a record of a process (the daemon's PID file,
 * a lock's owner) also keeps its start time as the kernel reports it; a pid whose process started at
 * another time is not the same process.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The start time of a process, or null when it does not exist. Linux: /proc; elsewhere: ps. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime) comes after the command name, which may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    try {
      const out = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      return out === '' ? null : out;
    } catch {
      return null;
    }
  }
}

/** True when the process that recorded (pid, started) is still alive. */
export function processAlive(pid: number, started: string): boolean {
  const now = processStartTime(pid);
  return now !== null && (started === 'unknown' || now === started);
}
