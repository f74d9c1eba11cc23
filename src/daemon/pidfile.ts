/**
 * The daemon's PID file, `.vaultkeeper/daemon.pid`, with an identity check: a pid alone is unsafe
 * after reuse, so the file also records the process's start time as the kernel reports it, and a
 * pid whose process started at another time is not our daemon.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { processStartTime } from '../core/process.js';

export { processStartTime };
import { confinedPath } from '../vault/confine.js';
import { writeConfined } from '../vault/confined-write.js';

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
  await writeConfined(root, PID_FILE, `${JSON.stringify(record)}\n`);
  return record;
}

/** Removes the PID file if it is ours (or stale); never another live daemon's. */
export async function removePidFile(root: string, pid: number = process.pid): Promise<void> {
  const record = await readPidFile(root);
  if (record === null) return;
  if (record.pid === pid || (await runningDaemon(root)) === null) await rm(await confinedPath(root, PID_FILE), { force: true });
}
