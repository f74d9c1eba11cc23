/**
 * The dream's bookkeeping on disk (`.vaultkeeper/state.json`, not tracked): when it last tried and last
 * succeeded, how often each batch has failed (so a failed batch is halved, a single bad day is skipped after
 * `max_retries`, and none is retried forever), when a failed or waiting run may be tried again (the
 * backoff below), and why each skipped day was given up.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { confinedPath } from '../vault/confine.js';
import { writeConfined } from '../vault/confined-write.js';
import { redactDeep } from '../core/redact.js';

export const STATE_FILE = '.vaultkeeper/state.json';

/** After a failed or waiting run the next try waits 5 min, doubled after each further one, at most 4 h. */
export const RETRY_BASE_MS = 5 * 60_000;
export const RETRY_MAX_MS = 4 * 3_600_000;

const DreamState = z.object({
  last_attempt_at: z.string().nullable().default(null),
  last_run: z.string().nullable().default(null),
  /** ok, failed, waiting (the LLM could not be used and llm.fallback is wait), skipped, undone. */
  last_status: z.string().nullable().default(null),
  /** When the last run that went through started: `min_hours` counts from it. */
  last_ok_at: z.string().nullable().default(null),
  /** After a failed or waiting run: when the gate lets the next try through (not `min_hours`). */
  retry_at: z.string().nullable().default(null),
  /** Failed or waiting runs in a row; the backoff doubles with each. */
  retry_count: z.number().int().min(0).default(0),
  /** batch key ("from..to") → failed runs */
  failures: z.record(z.string(), z.number()).default({}),
  /** After a failed run of several days: the next batch starting at `from` takes only `days` days. */
  split: z.object({ from: z.string(), days: z.number().int().min(1) }).nullable().default(null),
  /** Why each skipped day was given up (the journal keeps the date and the check; this keeps the message). */
  skip_reasons: z.record(z.string(), z.string()).default({}),
  /** A skipped day → failed retries of it, so a day that keeps failing goes behind the others. */
  skip_retries: z.record(z.string(), z.number().int().min(0)).default({}),
  /** After a failed retry of several skipped days: the next retry takes only this many. */
  skip_split: z.number().int().min(1).nullable().default(null),
  /** When the last retry of skipped days ran (the daemon retries them once a day). */
  last_skip_retry_at: z.string().nullable().default(null),
  /** The last failed try's batch and the check it failed: the next try of those days tells the model why (issue 26). */
  last_failure: z.object({ from: z.string(), to: z.string(), check: z.string(), message: z.string() }).nullable().default(null),
});
export type DreamState = z.infer<typeof DreamState>;

const StateFile = z.looseObject({ dream: DreamState.prefault({}) });

export function emptyDreamState(): DreamState {
  return DreamState.parse({});
}

export async function readDreamState(root: string): Promise<DreamState> {
  try {
    return StateFile.parse(JSON.parse(await readFile(path.join(root, STATE_FILE), 'utf8'))).dream;
  } catch {
    return emptyDreamState();
  }
}

export async function writeDreamState(root: string, dream: DreamState): Promise<void> {
  const file = await confinedPath(root, STATE_FILE);
  let other: Record<string, unknown> = {};
  try {
    other = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  } catch {
    // a missing or broken state file is replaced
  }
  await writeConfined(root, STATE_FILE, `${JSON.stringify(redactDeep({ ...other, dream }), null, 2)}\n`);
}

export function batchKey(dates: readonly string[]): string {
  return `${dates[0]}..${dates.at(-1)}`;
}

/** The backoff after the `count`-th failed or waiting run in a row. */
export function retryDelayMs(count: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, count - 1));
}

/** Records a failed or waiting run: the next try follows the backoff (or `notBefore`, when later, e.g. a daily cap's reset). */
export function backOff(state: DreamState, now: Date, notBefore: Date | null = null): void {
  state.retry_count += 1;
  const at = Math.max(now.getTime() + retryDelayMs(state.retry_count), notBefore?.getTime() ?? 0);
  state.retry_at = new Date(at).toISOString();
}

/** Records a run that went through: the backoff ends and `min_hours` counts from its start. */
export function succeeded(state: DreamState, startedAt: Date): void {
  state.last_status = 'ok';
  state.last_ok_at = startedAt.toISOString();
  state.retry_at = null;
  state.retry_count = 0;
}

/** When `min_hours` counts from: the last run that went through (a state file from before last_ok_at: its last attempt, if ok). */
export function minHoursFrom(state: DreamState): string | null {
  if (state.last_ok_at !== null) return state.last_ok_at;
  return state.last_status === 'ok' || state.last_status === null ? state.last_attempt_at : null;
}
