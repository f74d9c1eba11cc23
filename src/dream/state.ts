/**
 * The dream's bookkeeping on disk (`.vaultkeeper/state.json`, not tracked): when it last tried, and how
 * often each batch has failed, so a failed batch is halved, a single bad day is skipped after `max_retries`, and none is retried forever.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { confinedPath } from '../vault/confine.js';
import { writeConfined } from '../vault/confined-write.js';
import { redactDeep } from '../core/redact.js';

export const STATE_FILE = '.vaultkeeper/state.json';

const DreamState = z.object({
  last_attempt_at: z.string().nullable().default(null),
  last_run: z.string().nullable().default(null),
  last_status: z.string().nullable().default(null),
  /** batch key ("from..to") → failed runs */
  failures: z.record(z.string(), z.number()).default({}),
  /** After a failed run of several days: the next batch starting at `from` takes only `days` days. */
  split: z.object({ from: z.string(), days: z.number().int().min(1) }).nullable().default(null),
});
export type DreamState = z.infer<typeof DreamState>;

const StateFile = z.looseObject({ dream: DreamState.prefault({}) });

export async function readDreamState(root: string): Promise<DreamState> {
  try {
    return StateFile.parse(JSON.parse(await readFile(path.join(root, STATE_FILE), 'utf8'))).dream;
  } catch {
    return DreamState.parse({});
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
