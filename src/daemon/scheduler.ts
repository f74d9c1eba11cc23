/**
 * The daemon's scheduler core. It holds no timers: the daemon calls `tick(now)` (on a timer, and on
 * events), and the tick runs, one at a time, every job that is due, then returns what ran and how it went.
 *
 * Triggers (a job may have several, at most one of them a time trigger):
 * - `{ every: ms }`: due `ms` after its last run. A job missed while the machine slept or the daemon was
 *   down runs at the next tick, once (not once per missed interval). A new job is due at once.
 * - `{ daily: 'HH:MM', window?: minutes }`: due at HH:MM in the vault's time zone. Without a window, a
 *   missed day runs at the next tick, once, however late. With one, the job may only start within
 *   `window` minutes of HH:MM: a tick inside the window (even after the daemon was down) runs it; a window
 *   that passed entirely is skipped (reported as `missed`) and the job waits for the next day's window.
 *   A new job waits for its next HH:MM (or runs at once when a window is open now).
 * - `{ after: 'job' }`: due when that job has succeeded; runs in the same tick when it can.
 * - `{ event: 'name' }`: due when the tick is told of the event (e.g. 'file-changed', 'sigusr1').
 * What a job is owed is kept on disk (`jobs.json`), so an event or a finished upstream job is not lost
 * when the job is held, fails or the daemon stops first.
 *
 * A failing job is retried after an exponential backoff (capped) and never stops the others. An idle-only
 * job is held while the vault was written in the last `idleMinutes`. A job still marked running at start
 * (the daemon died during it) counts as failed. A run that ends because the tick's signal fired (SIGTERM)
 * is `aborted`: not a failure, and still due at the next start.
 */
import { performance } from 'node:perf_hooks';
import { localStamp } from '../core/clock.js';
import { errorMessage, VaultkeeperError } from '../core/errors.js';
import { addDays, isLocalTime, zonedInstant } from '../llm/local-day.js';
import { newJobState, readJobsState, writeJobsState, type JobState } from './jobs-state.js';

export type Trigger = { every: number } | { daily: string; window?: number } | { after: string } | { event: string };

export interface JobContext {
  /** The tick's time. */
  now: Date;
  /** Why it runs: 'every', 'daily', 'after:<job>', 'event:<name>'. */
  reasons: string[];
  /** Fires when the daemon stops: finish quickly or abort. */
  signal: AbortSignal;
  /** The job's state before this run. */
  state: Readonly<JobState>;
}

export interface JobOutcome {
  /** One line for status and the log. */
  summary?: string;
  /** Run again at this time instead of the trigger's next (e.g. when an LLM cap resets). */
  nextDueAt?: Date;
}

export interface Job {
  name: string;
  trigger: Trigger | readonly Trigger[];
  /** Held while the vault was written in the last `idleMinutes` (e.g. LLM jobs, while a person types). */
  idleOnly?: boolean;
  run(ctx: JobContext): Promise<JobOutcome | void>;
}

export interface SchedulerOptions {
  root: string;
  jobs: readonly Job[];
  /** IANA zone of the daily triggers. */
  timeZone: string;
  /** When the vault was last written (by a person or an agent), or null; for idle-only jobs. */
  lastWriteAt?: () => Date | null | Promise<Date | null>;
  /** Default 10. */
  idleMinutes?: number;
  /** Wait after the first failure, doubled on each further one up to `maxMs`. Default 1 min, capped at 1 h. */
  backoff?: { baseMs?: number; maxMs?: number };
  /** Events that are a person asking now (e.g. 'sigusr1'): the jobs they trigger are not held by idleOnly. */
  urgentEvents?: readonly string[];
}

interface Base {
  job: string;
  reasons: string[];
}

export type TickEntry =
  | (Base & { status: 'ok'; started_at: string; ms: number; outcome: JobOutcome | undefined })
  | (Base & { status: 'failed'; started_at: string; ms: number; error: string; retry_at: string })
  | (Base & { status: 'aborted'; started_at: string; ms: number; error: string })
  /** Due, but idle-only and the vault was written recently. */
  | (Base & { status: 'held'; until: string })
  /** A daily window passed without a run; the job waits for the next one. */
  | (Base & { status: 'missed'; window_start: string; next_due_at: string });

export interface TickOptions {
  /** Events since the last tick, e.g. ['file-changed', 'sigusr1']. */
  events?: readonly string[];
  /** The daemon's stop signal: the running job sees it, and no further job starts. */
  signal?: AbortSignal;
}

export interface Scheduler {
  /** Runs what is due at `now`, one job at a time. A tick called while one is running returns []. */
  tick(now: Date, options?: TickOptions): Promise<TickEntry[]>;
  /**
   * When the next tick has work, for the daemon's timer: the earliest due time past backoffs and idle
   * holds (a time already past: tick at once); null when only an event can make a job due.
   */
  nextWakeAt(): Date | null;
  /** Every job's state, as on disk. */
  states(): Record<string, JobState>;
  /** Why jobs.json was not read (it was unreadable), else null. */
  readonly loadProblem: string | null;
}

type TimeTrigger = { every: number } | { daily: string; window?: number };

const MINUTE = 60_000;
const DEFAULT_IDLE_MINUTES = 10;
const DEFAULT_BACKOFF = { baseMs: MINUTE, maxMs: 60 * MINUTE };
const INTERRUPTED = 'interrupted: the daemon stopped while the job ran';

export async function createScheduler(options: SchedulerOptions): Promise<Scheduler> {
  const { root, jobs, timeZone } = options;
  validate(jobs);
  const idleMs = (options.idleMinutes ?? DEFAULT_IDLE_MINUTES) * MINUTE;
  const backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
  const loaded = await readJobsState(root);
  const states = new Map<string, JobState>(jobs.map((job) => [job.name, { ...newJobState(), ...loaded.jobs[job.name] }]));
  const interrupted = new Set(jobs.filter((job) => states.get(job.name)!.running).map((job) => job.name));
  /** Idle-only jobs held at the last tick, and until when (in memory: the next tick asks again anyway). */
  const heldUntil = new Map<string, number>();
  const urgent = new Set((options.urgentEvents ?? []).map((event) => `event:${event}`));
  let ticking = false;

  const state = (name: string): JobState => states.get(name)!;
  const save = (now: Date): Promise<void> => writeJobsState(root, Object.fromEntries(states), now);
  const retryDelay = (failures: number): number => Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, failures - 1));

  const fail = (name: string, now: Date, message: string): Date => {
    const s = state(name);
    const failures = s.consecutive_failures + 1;
    const retryAt = new Date(now.getTime() + retryDelay(failures));
    states.set(name, { ...s, running: false, last_result: 'failed', last_error: message, consecutive_failures: failures, retry_at: retryAt.toISOString() });
    return retryAt;
  };

  /** Brings each job's time schedule up to date: a new job or a changed trigger is (re)scheduled. */
  const reschedule = (now: Date): void => {
    for (const job of jobs) {
      const s = state(job.name);
      const time = timeTrigger(job);
      const signature = time === null ? null : JSON.stringify(time);
      if (s.trigger === signature && (time === null || s.next_due_at !== null)) continue;
      const lastRun = s.last_run_at === null ? null : Date.parse(s.last_run_at);
      states.set(job.name, { ...s, trigger: signature, next_due_at: time === null ? null : iso(firstDue(time, lastRun, now.getTime(), timeZone)) });
    }
  };

  /**
   * Why the job is due now (empty: not due). A daily window that passed without a run is moved on to the
   * next one here, and returned as `missed`.
   */
  const dueReasons = (job: Job, now: Date): { reasons: string[]; missed?: TickEntry } => {
    const s = state(job.name);
    const reasons = [...s.pending];
    const time = timeTrigger(job);
    if (time === null || s.next_due_at === null || Date.parse(s.next_due_at) > now.getTime()) return { reasons };
    if ('every' in time || time.window === undefined) return { reasons: ['every' in time ? 'every' : 'daily', ...reasons] };
    // The occurrence whose window is open now, or else the next one: an older one was missed.
    const current = currentOrNext(time.daily, time.window * MINUTE, now.getTime(), timeZone);
    if (current !== Date.parse(s.next_due_at)) states.set(job.name, { ...s, next_due_at: iso(current) });
    if (current <= now.getTime()) return { reasons: ['daily', ...reasons] };
    states.set(job.name, { ...state(job.name), last_missed_at: s.next_due_at });
    return { reasons, missed: { job: job.name, reasons: ['daily'], status: 'missed', window_start: s.next_due_at, next_due_at: iso(current) } };
  };

  const run = async (job: Job, reasons: string[], now: Date, signal: AbortSignal): Promise<TickEntry> => {
    const before = state(job.name);
    states.set(job.name, { ...before, running: true, last_run_at: now.toISOString() });
    await save(now);
    const started = performance.now();
    let outcome: JobOutcome | undefined;
    let failure: unknown;
    let failed = false;
    try {
      outcome = (await job.run({ now, reasons, signal, state: { ...before } })) ?? undefined;
    } catch (error) {
      failed = true;
      failure = error;
    }
    const ms = Math.round(performance.now() - started);
    const finished = new Date(now.getTime() + ms);
    const common = { job: job.name, reasons, started_at: now.toISOString(), ms };
    const s = { ...state(job.name), running: false, last_finished_at: finished.toISOString() };
    states.set(job.name, s);
    if (failed && signal.aborted) {
      const message = describe(failure);
      states.set(job.name, { ...s, last_result: 'aborted', last_error: message });
      return { ...common, status: 'aborted', error: message };
    }
    if (failed) {
      const message = describe(failure);
      const retryAt = fail(job.name, now, message);
      return { ...common, status: 'failed', error: message, retry_at: retryAt.toISOString() };
    }
    const time = timeTrigger(job);
    const timeDue = reasons.includes('every') || reasons.includes('daily');
    const next =
      outcome?.nextDueAt !== undefined
        ? outcome.nextDueAt.toISOString()
        : time !== null && timeDue
          ? iso(nextAfterRun(time, now.getTime(), timeZone))
          : s.next_due_at;
    states.set(job.name, {
      ...s,
      next_due_at: next,
      pending: s.pending.filter((p) => !reasons.includes(p)),
      retry_at: null,
      last_result: 'ok',
      last_error: null,
      last_summary: outcome?.summary ?? null,
      consecutive_failures: 0,
    });
    for (const other of jobs) {
      if (!triggers(other).some((t) => 'after' in t && t.after === job.name)) continue;
      owe(other.name, `after:${job.name}`);
    }
    return { ...common, status: 'ok', outcome };
  };

  const owe = (name: string, reason: string): void => {
    const s = state(name);
    if (!s.pending.includes(reason)) states.set(name, { ...s, pending: [...s.pending, reason] });
  };

  return {
    loadProblem: loaded.problem,
    states: () => Object.fromEntries([...states].map(([name, s]) => [name, { ...s, pending: [...s.pending] }])),

    nextWakeAt() {
      let earliest: number | null = null;
      for (const job of jobs) {
        const s = state(job.name);
        // A job owed an event or an upstream run is due at once (0), unless it backs off or is held.
        const due = s.pending.length > 0 ? 0 : s.next_due_at === null ? null : Date.parse(s.next_due_at);
        if (due === null) continue;
        const at = Math.max(due, s.retry_at === null ? 0 : Date.parse(s.retry_at), heldUntil.get(job.name) ?? 0);
        earliest = earliest === null ? at : Math.min(earliest, at);
      }
      return earliest === null ? null : new Date(earliest);
    },

    async tick(now, tickOptions = {}) {
      if (ticking) return [];
      ticking = true;
      try {
        const signal = tickOptions.signal ?? new AbortController().signal;
        for (const name of interrupted) fail(name, now, INTERRUPTED);
        interrupted.clear();
        for (const event of tickOptions.events ?? []) {
          for (const job of jobs) if (triggers(job).some((t) => 'event' in t && t.event === event)) owe(job.name, `event:${event}`);
        }
        reschedule(now);

        const entries: TickEntry[] = [];
        const seen = new Set<string>();
        heldUntil.clear();
        let lastWrite: Date | null | undefined;
        for (;;) {
          if (signal.aborted) break;
          let next: { job: Job; reasons: string[] } | undefined;
          for (const job of jobs) {
            if (seen.has(job.name)) continue;
            const { reasons, missed } = dueReasons(job, now);
            if (missed !== undefined) entries.push(missed);
            if (reasons.length === 0) continue;
            const retryAt = state(job.name).retry_at;
            if (retryAt !== null && Date.parse(retryAt) > now.getTime()) continue;
            // An urgent event is someone asking now (SIGUSR1): it is not held for a quiet vault.
            if (job.idleOnly === true && !reasons.some((r) => urgent.has(r))) {
              lastWrite = lastWrite === undefined ? ((await options.lastWriteAt?.()) ?? null) : lastWrite;
              if (lastWrite !== null && now.getTime() - lastWrite.getTime() < idleMs) {
                const until = lastWrite.getTime() + idleMs;
                seen.add(job.name);
                heldUntil.set(job.name, until);
                entries.push({ job: job.name, reasons, status: 'held', until: iso(until) });
                continue;
              }
            }
            next = { job, reasons };
            break;
          }
          if (next === undefined) break;
          seen.add(next.job.name);
          entries.push(await run(next.job, next.reasons, now, signal));
          await save(now);
        }
        await save(now);
        return entries;
      } finally {
        ticking = false;
      }
    },
  };
}

function triggers(job: Job): readonly Trigger[] {
  return Array.isArray(job.trigger) ? (job.trigger as readonly Trigger[]) : [job.trigger as Trigger];
}

function timeTrigger(job: Job): TimeTrigger | null {
  return (triggers(job).find((t) => 'every' in t || 'daily' in t) as TimeTrigger | undefined) ?? null;
}

/** When a job is first due: an interval job at once (or an interval after its last run); a daily one at its next time. */
function firstDue(time: TimeTrigger, lastRun: number | null, now: number, timeZone: string): number {
  if ('every' in time) return lastRun === null ? now : lastRun + time.every;
  if (lastRun !== null) return nextStart(time.daily, lastRun, timeZone);
  return time.window === undefined ? nextStart(time.daily, now, timeZone) : currentOrNext(time.daily, time.window * MINUTE, now, timeZone);
}

/** The next due time after a run at `now` that served the time trigger. Missed intervals collapse into this one run. */
function nextAfterRun(time: TimeTrigger, now: number, timeZone: string): number {
  return 'every' in time ? now + time.every : nextStart(time.daily, now, timeZone);
}

/** The first HH:MM in the zone strictly after `t`. */
function nextStart(time: string, t: number, timeZone: string): number {
  const today = localStamp(new Date(t), timeZone).date;
  for (let days = 0; ; days++) {
    const start = zonedInstant(addDays(today, days), time, timeZone).getTime();
    if (start > t) return start;
  }
}

/** The start of the window open at `t`, else of the next one. */
function currentOrNext(time: string, windowMs: number, t: number, timeZone: string): number {
  const yesterday = addDays(localStamp(new Date(t), timeZone).date, -1);
  for (let days = 0; ; days++) {
    const start = zonedInstant(addDays(yesterday, days), time, timeZone).getTime();
    if (start + windowMs > t) return start;
  }
}

function iso(t: number): string {
  return new Date(t).toISOString();
}

function describe(error: unknown): string {
  return error instanceof VaultkeeperError ? `${error.code}: ${error.message}` : errorMessage(error);
}

function validate(jobs: readonly Job[]): void {
  const names = new Set<string>();
  const bad = (job: string, message: string): VaultkeeperError => new VaultkeeperError('VK_SCHEDULER', `job ${job}: ${message}`);
  for (const job of jobs) {
    if (job.name === '' || names.has(job.name)) throw bad(JSON.stringify(job.name), 'each job needs a name of its own');
    names.add(job.name);
  }
  for (const job of jobs) {
    const list = triggers(job);
    if (list.length === 0) throw bad(job.name, 'it has no trigger');
    if (list.filter((t) => 'every' in t || 'daily' in t).length > 1) throw bad(job.name, 'at most one time trigger (every or daily)');
    for (const t of list) {
      if ('every' in t && !(Number.isFinite(t.every) && t.every > 0)) throw bad(job.name, `every must be a positive number of ms, not ${t.every}`);
      if ('daily' in t && !isLocalTime(t.daily)) throw bad(job.name, `daily must be a 24-hour HH:MM, not ${JSON.stringify(t.daily)}`);
      if ('daily' in t && t.window !== undefined && !(Number.isInteger(t.window) && t.window >= 1 && t.window < 24 * 60)) {
        throw bad(job.name, `window must be whole minutes from 1 to 1439, not ${t.window}`);
      }
      if ('after' in t && (!names.has(t.after) || t.after === job.name)) throw bad(job.name, `after names no other job: ${JSON.stringify(t.after)}`);
    }
  }
}
