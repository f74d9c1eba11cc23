/**
 * The daemon's PID file, `.vaultkeeper/daemon.pid`, with an identity check: a pid alone is unsafe
 * after reuse, so the file also records the process's start time as the kernel reports it, and a
 * pid whose process started at another time is not our daemon.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { confinedPath } from '../vault/confine.js';

export const PID_FILE = '.vaultkeeper/daemon.pid';

const PidRecord = z.object({
  pid: z.number().int().positive(),
  /** The kernel's start time of the process (opaque; compared for equality). */
  started: z.string(),
  started_at: z.string(),
  vault: z.string(),
  log: z.string(),
});
export type PidRecord = z.infer<typeof PidRecord>;

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

export async function readPidFile(root: string): Promise<PidRecord | null> {
  try {
    const parsed = PidRecord.safeParse(JSON.parse(await readFile(path.join(root, PID_FILE), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The running daemon of this vault, or null (a stale or reused pid is not one). */
export async function runningDaemon(root: string): Promise<PidRecord | null> {
  const record = await readPidFile(root);
  if (record === null) return null;
  return processStartTime(record.pid) === record.started ? record : null;
}

export async function writePidFile(root: string, log: string): Promise<PidRecord> {
  const record: PidRecord = {
    pid: process.pid,
    started: processStartTime(process.pid) ?? 'unknown',
    started_at: new Date().toISOString(),
    vault: root,
    log,
  };
  const file = await confinedPath(root, PID_FILE);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(`${file}.tmp`, `${JSON.stringify(record)}\n`);
  await rename(`${file}.tmp`, file);
  return record;
}

/** Removes the PID file if it is ours (or stale); never another live daemon's. */
export async function removePidFile(root: string, pid: number = process.pid): Promise<void> {
  const record = await readPidFile(root);
  if (record === null) return;
  if (record.pid === pid || (await runningDaemon(root)) === null) await rm(path.join(root, PID_FILE), { force: true });
}
