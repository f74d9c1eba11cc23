/**
 * What will happen next, for `status`: when the dream is next checked, whether it will run then and what
 * holds it (the gate's own decision, gate.ts), and each daemon job's last and next run (jobs.json).
 * Pure: the caller reads the files and passes them in.
 */
import type { Config } from '../core/config.js';
import type { JobState } from '../daemon/jobs-state.js';
import { decide, type Pending } from '../dream/gate.js';
import type { DreamState } from '../dream/state.js';

export interface DreamForecast {
  /** When the daemon next checks the gate; null when no daemon runs (only `vaultkeeper dream` checks it). */
  next_check_at: string | null;
  /** Whether a run would start at that check (or now, without a daemon). */
  will_run: boolean;
  /** What the check would decide: run (backlog, due, or retry after a failed or waiting run), gated, or noop (nothing pending). */
  decision: 'backlog' | 'due' | 'retry' | 'gated' | 'noop';
  /** The gate holding it, when gated: the backoff after a failed or waiting run, min_hours or min_facts. */
  gate: 'backoff' | 'min_hours' | 'min_facts' | null;
  /** One line: the gate's reason, or why it runs. */
  reason: string;
  /** What opens the gate, in words; null when it will run. */
  opens: string | null;
  /** When the gate opens by time (the backoff or min_hours), else null. */
  opens_at: string | null;
}

export interface JobSchedule {
  job: string;
  last_run_at: string | null;
  last_result: 'ok' | 'failed' | 'aborted' | null;
  last_summary: string | null;
  /** When it next runs: its time trigger, pushed back by a failure's backoff; null when owed (the next tick) or when only an event triggers it. */
  next_run_at: string | null;
  /** Why it runs then: 'schedule', 'retry' (after a failure), 'owed' (an event or upstream job is waiting), or 'event' (no time trigger). */
  next_reason: 'schedule' | 'retry' | 'owed' | 'event';
}

/** The dream job's next check from its state; a time already past means the next tick (within a minute). */
export function nextDreamCheck(job: JobState | undefined, now: Date): Date | null {
  if (job === undefined) return null;
  const times = [job.next_due_at, job.retry_at].filter((t): t is string => t !== null).map(Date.parse);
  if (times.length === 0) return null;
  return new Date(Math.max(now.getTime(), ...times));
}

export function forecastDream(pending: Pending, state: DreamState, config: Config['dream'], at: Date, nextCheck: Date | null): DreamForecast {
  const decision = decide(pending, state, config, at, false);
  const next_check_at = nextCheck?.toISOString() ?? null;
  if (decision.open) {
    const why = decision.why === 'backlog' || decision.why === 'retry' ? decision.why : 'due';
    const reason =
      why === 'backlog'
        ? `a backlog of ${pending.dates.length} pending days (more than max_days ${config.max_days}): a catch-up batch of ${decision.batch.length} runs`
        : why === 'retry'
          ? `the last run ${state.last_status === 'waiting' ? 'waited for the LLM' : 'failed'} and its backoff has passed: a batch of ${decision.batch.length} is tried again`
          : `${pending.facts} pending facts over ${pending.dates.length} days: a batch of ${decision.batch.length} runs`;
    return { next_check_at, will_run: true, decision: why, gate: null, reason, opens: null, opens_at: null };
  }
  if (decision.status === 'noop') {
    return { next_check_at, will_run: false, decision: 'noop', gate: null, reason: decision.reason, opens: 'a log day with facts that is before today (today\'s log waits until tomorrow)', opens_at: null };
  }
  const opens =
    decision.gate === 'backoff'
      ? `time: the backoff after the last failed or waiting run ends at ${decision.opensAt}`
      : decision.gate === 'min_hours'
        ? `time: ${config.min_hours} h after the last run (at ${decision.opensAt}), or a backlog of more than ${config.max_days} pending days`
        : `${config.min_facts - pending.facts} more pending facts, or a backlog of more than ${config.max_days} pending days`;
  return { next_check_at, will_run: false, decision: 'gated', gate: decision.gate, reason: decision.reason, opens, opens_at: decision.opensAt };
}

export function jobSchedules(jobs: Readonly<Record<string, JobState>>): JobSchedule[] {
  return Object.entries(jobs)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([job, s]) => {
      const retry = s.retry_at !== null && (s.next_due_at === null || s.retry_at > s.next_due_at);
      let next_reason: JobSchedule['next_reason'] = retry ? 'retry' : s.next_due_at !== null ? 'schedule' : 'event';
      let next_run_at = retry ? s.retry_at : s.next_due_at;
      if (s.pending.length > 0 && !retry) {
        next_reason = 'owed'; // an event or an upstream job is waiting: the next tick runs it
        next_run_at = null;
      }
      return { job, last_run_at: s.last_run_at, last_result: s.last_result, last_summary: s.last_summary, next_run_at, next_reason };
    });
}
