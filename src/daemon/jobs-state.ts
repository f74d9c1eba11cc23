/**
 * The scheduler's job state on disk, `.vaultkeeper/jobs.json` (local, ignored by git): when each job is
 * next due, what it is still owed (events, finished upstream jobs), and how its last run went. Kept on
 * disk so a job missed while the machine slept or the daemon was down runs at the next tick, and so
 * `status` can read it without a daemon. Written whole, atomically (temp file + rename); one daemon per
 * vault is its only writer.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../dream/tools/atomic.js';
import { confinedPath } from '../vault/confine.js';
import { redactDeep } from '../core/redact.js';

export const JOBS_FILE = '.vaultkeeper/jobs.json';

const iso = z.string().nullable().default(null);

export const JobStateSchema = z.object({
  /** When the job's time trigger (interval or daily) next makes it due; null without one. */
  next_due_at: iso,
  /** The time trigger `next_due_at` was worked out for; a changed trigger (config reload) reschedules. */
  trigger: iso,
  /** Triggers seen and not yet served by a successful run, e.g. "event:sigusr1", "after:dream". */
  pending: z.array(z.string()).default([]),
  /** After a failure: not run again before this time. */
  retry_at: iso,
  last_run_at: iso,
  last_finished_at: iso,
  last_result: z.enum(['ok', 'failed', 'aborted']).nullable().default(null),
  last_error: iso,
  last_summary: iso,
  /** The last time a daily window passed without a run (the daemon was down or the machine asleep). */
  last_missed_at: iso,
  consecutive_failures: z.number().int().nonnegative().default(0),
  /** True while the job runs; still true at start means the daemon died during the run. */
  running: z.boolean().default(false),
});
export type JobState = z.infer<typeof JobStateSchema>;

const JobsFileSchema = z.object({
  version: z.literal(1),
  updated_at: iso,
  jobs: z.record(z.string(), JobStateSchema),
});

export const newJobState = (): JobState => JobStateSchema.parse({});

/** The jobs' state; an absent file is empty, and an unreadable one is empty with the problem said. */
export async function readJobsState(root: string): Promise<{ jobs: Record<string, JobState>; problem: string | null }> {
  let text: string;
  try {
    text = await readFile(path.join(root, JOBS_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { jobs: {}, problem: null };
    throw error;
  }
  try {
    const parsed = JobsFileSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { jobs: parsed.data.jobs, problem: null };
    return { jobs: {}, problem: `${JOBS_FILE} is not valid (${parsed.error.issues[0]?.message ?? 'invalid'}); every job starts afresh` };
  } catch {
    return { jobs: {}, problem: `${JOBS_FILE} is not JSON; every job starts afresh` };
  }
}

export async function writeJobsState(root: string, jobs: Record<string, JobState>, now: Date): Promise<void> {
  const file = { version: 1, updated_at: now.toISOString(), jobs: redactDeep(jobs) };
  await writeFileAtomic(await confinedPath(root, JOBS_FILE), `${JSON.stringify(file, null, 2)}\n`);
}
