/**
 * What `vaultkeeper status` reports: the watermark, what is pending, the index, and (once the daemon
 * runs) its jobs and LLM usage. It only reads files; it never loads LanceDB.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { localStamp } from '../core/clock.js';
import { pendingDates } from '../dream/gate.js';
import { readJournal, type Journal } from '../dream/journal.js';
import { readDreamState, type DreamState } from '../dream/state.js';
import { readManifestSummary, rowCounts } from '../indexer/manifest.js';
import { indexedLiveFacts } from '../indexer/fresh.js';
import { readTombstones } from '../tombstones/tombstones.js';
import { readCaptureState, type CaptureState } from '../extract/capture.js';
import os from 'node:os';
import { runningDaemon } from '../daemon/pidfile.js';
import { readJobsState, type JobState } from '../daemon/jobs-state.js';
import { forecastDream, jobSchedules, nextDreamCheck, type DreamForecast, type JobSchedule } from './forecast.js';
import type { VaultContext } from './context.js';
import { DASHBOARD_PAGE } from './layout.js';

export interface VaultStatus {
  vault: string;
  /** The vault's IANA time zone: its log dates and the times `status` prints are in it. */
  time_zone: string;
  watermark: string | null;
  pending_days: number;
  pending: string[];
  facts_pending: number;
  skipped: string[];
  /** Each skipped day with why it was given up and when, oldest first; `dream --retry-skipped` (and the daemon daily) retries them. */
  skipped_days: SkippedDay[];
  /** The last attempt, and what the next check will decide (forecast.ts). */
  dream: { last_attempt_at: string | null; last_run: string | null; last_status: string | null } & DreamForecast;
  /** Each daemon job's last and next run, from jobs.json (kept while the daemon is down). */
  schedule: JobSchedule[];
  /** The generated dashboard page, when it exists (vault-relative). */
  dashboard: string | null;
  index: { rows: number; facts: number; pages: number; core: number; embedder: string | null; dirty: boolean } | null;
  daemon: { running: boolean; pid: number | null };
  jobs: Record<string, unknown>;
  llm: Record<string, unknown>;
  /** Jobs whose last run failed, with the error (from the daemon's job state). */
  last_errors: Array<{ job: string; error: string; at: string | null; consecutive_failures: number }>;
  /** Which agents' transcripts the session watcher reads (only those a person named), and the line that says so. */
  capture: CaptureState & { line: string };
}

export interface SkippedDay {
  date: string;
  /** The last failure before it was given up (or the failed check, or the tries, for an older skip). */
  reason: string;
  /** When it was given up (ISO), when the journal says. */
  at: string | null;
  run: string | null;
  /** Failed retries of it since. */
  retries: number;
}

export async function vaultStatus(ctx: VaultContext, now: Date = new Date()): Promise<VaultStatus> {
  const journal = await readJournal(ctx.root);
  const tombstones = await readTombstones(ctx.root);
  // Counts only: the manifest without its row hashes (an older version's is not read: the next pass rebuilds it).
  const manifest = await readManifestSummary(ctx.root);
  // A pending log the index holds as it is now is counted from the index, not parsed again.
  const liveFacts = indexedLiveFacts(ctx.root, manifest, tombstones, journal);
  const pending = await pendingDates(ctx.root, journal, localStamp(now, ctx.timeZone).date, tombstones, liveFacts);
  const state = await readDreamState(ctx.root);
  let index: VaultStatus['index'] = null;
  if (manifest !== null) {
    const { facts, pages, core } = rowCounts(manifest);
    index = { rows: facts + pages + core, facts, pages, core, embedder: manifest.embedder, dirty: manifest.dirty };
  }
  // The daemon writes status.json after each tick; its PID file says whether it still runs (identity-checked).
  const daemonStatus = await readFile(path.join(ctx.root, '.vaultkeeper/status.json'), 'utf8')
    .then((text) => JSON.parse(text) as { pid?: number; jobs?: Record<string, unknown>; llm?: Record<string, unknown> })
    .catch(() => null);
  const running = await runningDaemon(ctx.root);
  const pid = running?.pid ?? null;
  const jobsState = await readJobsState(ctx.root).catch(() => ({ jobs: {} as Record<string, JobState>, problem: null }));
  // Without a daemon nothing checks the gate on its own: say what `vaultkeeper dream` would decide now.
  const nextCheck = pid === null ? null : nextDreamCheck(jobsState.jobs.dream, now);
  const checkAt = nextCheck ?? now;
  const checkToday = localStamp(checkAt, ctx.timeZone).date;
  const pendingAtCheck = checkToday === localStamp(now, ctx.timeZone).date ? pending : await pendingDates(ctx.root, journal, checkToday, tombstones, liveFacts);
  const forecast = forecastDream(pendingAtCheck, state, ctx.config.dream, checkAt, nextCheck);
  const dashboard = await stat(path.join(ctx.root, DASHBOARD_PAGE)).then(() => DASHBOARD_PAGE, () => null);
  const capture = await readCaptureState(ctx.root, ctx.config.extract.sessions, ctx.env.HOME !== undefined && ctx.env.HOME !== '' ? ctx.env.HOME : os.homedir());
  return {
    vault: ctx.root,
    time_zone: ctx.timeZone,
    watermark: journal.watermark,
    pending_days: pending.dates.length,
    pending: pending.dates,
    facts_pending: pending.facts,
    skipped: [...journal.skipped].sort(),
    skipped_days: skippedDays(journal, state),
    dream: { last_attempt_at: state.last_attempt_at, last_run: state.last_run, last_status: state.last_status, ...forecast },
    schedule: jobSchedules(jobsState.jobs),
    dashboard,
    index,
    daemon: { running: pid !== null, pid },
    jobs: daemonStatus?.jobs ?? {},
    llm: daemonStatus?.llm ?? {},
    last_errors: Object.entries((daemonStatus?.jobs ?? {}) as Record<string, { last_result?: string; last_error?: string | null; last_finished_at?: string | null; consecutive_failures?: number }>)
      .filter(([, job]) => job.last_result === 'failed')
      .map(([job, state]) => ({ job, error: state.last_error ?? '', at: state.last_finished_at ?? null, consecutive_failures: state.consecutive_failures ?? 0 })),
    capture,
  };
}

function skippedDays(journal: Journal, state: DreamState): SkippedDay[] {
  return [...journal.skips.values()]
    .sort((a, b) => a.date.localeCompare(b.date))
    .map((skip) => {
      const tries = skip.tries === null ? 'failed runs' : `${skip.tries} failed runs`;
      const reason = state.skip_reasons[skip.date] ?? (skip.check !== null ? `failed the ${skip.check} check (${tries})` : `gave up after ${tries}`);
      return { date: skip.date, reason, at: skip.at, run: skip.run, retries: state.skip_retries[skip.date] ?? 0 };
    });
}
