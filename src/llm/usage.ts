/**
 * LLM usage counters, per local day and per job, in `.vaultkeeper/llm-usage.json` (local state, ignored
 * by git), so the daily caps hold across daemon restarts and across processes (the daemon and a `dream`
 * run from the shell spend from the same day). Each update re-reads the file under a lock and replaces
 * it atomically (temp file + rename), so a crash never leaves half a file and two writers never lose a call.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { withLock } from '../core/lock.js';
import { writeFileAtomic } from '../dream/tools/atomic.js';
import { confinedPath } from '../vault/confine.js';

export const USAGE_FILE = '.vaultkeeper/llm-usage.json';
/** Days of history kept in the file; older days are dropped when it is written. */
const KEEP_DAYS = 92;

const CountsSchema = z.object({
  calls: z.number().int().nonnegative().default(0),
  prompt_tokens: z.number().nonnegative().default(0),
  completion_tokens: z.number().nonnegative().default(0),
  total_tokens: z.number().nonnegative().default(0),
  /** Calls whose reply carried no usage: their tokens are estimated from the characters sent and received. */
  estimated_calls: z.number().int().nonnegative().default(0),
  /** In the currency of llm.prices; 0 for calls made while no prices were configured. */
  cost: z.number().nonnegative().default(0),
});
export type Counts = z.infer<typeof CountsSchema>;

const UsageFileSchema = z.object({
  version: z.literal(1),
  /** Local date (YYYY-MM-DD, the vault's time zone) → job → counts. */
  days: z.record(z.string(), z.object({ jobs: z.record(z.string(), CountsSchema) })),
});
export type UsageFile = z.infer<typeof UsageFileSchema>;

/** What one call spent. */
export interface Spend {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  estimated: boolean;
  cost: number;
}

export const emptyCounts = (): Counts => ({ calls: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, estimated_calls: 0, cost: 0 });
export const emptyUsage = (): UsageFile => ({ version: 1, days: {} });

export function addCounts(into: Counts, from: Counts): Counts {
  return {
    calls: into.calls + from.calls,
    prompt_tokens: into.prompt_tokens + from.prompt_tokens,
    completion_tokens: into.completion_tokens + from.completion_tokens,
    total_tokens: into.total_tokens + from.total_tokens,
    estimated_calls: into.estimated_calls + from.estimated_calls,
    cost: into.cost + from.cost,
  };
}

/** One day's counts: the total and each job's. */
export function dayUsage(file: UsageFile, day: string): { total: Counts; jobs: Record<string, Counts> } {
  const jobs = { ...(file.days[day]?.jobs ?? {}) };
  return { total: Object.values(jobs).reduce(addCounts, emptyCounts()), jobs };
}

/** The usage file; an absent or unreadable one reads as empty (it is local state, rebuilt as calls are made). */
export async function readUsage(root: string): Promise<UsageFile> {
  let text: string;
  try {
    text = await readFile(path.join(root, USAGE_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyUsage();
    throw error;
  }
  try {
    const parsed = UsageFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : emptyUsage();
  } catch {
    return emptyUsage();
  }
}

/** Adds one call's spend to `job` on `day`, and returns the file as written. */
export async function recordUsage(root: string, day: string, job: string, spend: Spend): Promise<UsageFile> {
  return withLock(root, 'llm-usage', async () => {
    const file = await readUsage(root);
    const jobs = (file.days[day] ??= { jobs: {} }).jobs;
    jobs[job] = addCounts(jobs[job] ?? emptyCounts(), {
      calls: 1,
      prompt_tokens: spend.prompt_tokens,
      completion_tokens: spend.completion_tokens,
      total_tokens: spend.total_tokens,
      estimated_calls: spend.estimated ? 1 : 0,
      cost: spend.cost,
    });
    const kept = Object.keys(file.days).sort().slice(-KEEP_DAYS);
    const next: UsageFile = { version: 1, days: Object.fromEntries(kept.map((d) => [d, file.days[d]!])) };
    await writeFileAtomic(await confinedPath(root, USAGE_FILE), `${JSON.stringify(next, null, 2)}\n`);
    return next;
  });
}
