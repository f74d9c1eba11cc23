/**
 * Recurring dreams and digests of every vault, as start-after times on the queue (issue 28): each vault has one
 * waiting "tick" job per scheduled kind in the stately queue vk-schedule, keyed `<kind>:<vault>`, due at its next
 * run. A worker that takes a due tick queues the job itself (a dream or a digest, deduplicated per vault as any
 * other) and the vault's next tick, an interval after this one's due time, or an interval from now when that has
 * passed. So a run missed while no worker ran is taken at the next poll, once, not once per missed interval, and
 * nothing is kept outside Postgres. Every worker seeds the ticks of vaults that have none (a new vault, a new
 * schedule) at its start and every minute after.
 */
import type PgBoss from 'pg-boss';
import { errorMessage } from '../core/errors.js';
import type { Db } from './db.js';
import type { JobKind, Queue } from './jobs.js';
import { SCHEDULE_QUEUE } from './jobs.js';
import type { ServerSettings } from './settings.js';

export type ScheduledKind = Extract<JobKind, 'dream' | 'digest'>;

export interface TickData {
  vault: string;
  kind: ScheduledKind;
}

/** The intervals (seconds) of the kinds that run on a schedule. */
export function schedules(settings: ServerSettings): Array<{ kind: ScheduledKind; every: number }> {
  const out: Array<{ kind: ScheduledKind; every: number }> = [];
  if (settings.dreamEverySeconds !== null) out.push({ kind: 'dream', every: settings.dreamEverySeconds });
  if (settings.digestEverySeconds !== null) out.push({ kind: 'digest', every: settings.digestEverySeconds });
  return out;
}

export const tickKey = (kind: ScheduledKind, vault: string): string => `${kind}:${vault}`;

/** When the tick after one due at `due` is due: an interval later, or an interval from now when that has passed. */
export function nextDue(due: Date, every: number, now = new Date()): Date {
  const next = due.getTime() + every * 1000;
  return new Date(next > now.getTime() ? next : now.getTime() + every * 1000);
}

async function sendTick(queue: Queue, data: TickData, startAfter: Date): Promise<string | null> {
  return queue.boss.send(SCHEDULE_QUEUE, data, { singletonKey: tickKey(data.kind, data.vault), startAfter });
}

/** Queues the first tick of each vault that has none waiting or running; returns how many. */
export async function seedTicks(db: Db, queue: Queue, settings: ServerSettings, now = new Date()): Promise<number> {
  let seeded = 0;
  for (const { kind, every } of schedules(settings)) {
    const { rows } = await db.query<{ id: string }>(
      `SELECT v.id::text FROM vk_vaults v WHERE NOT EXISTS (
         SELECT 1 FROM pgboss.job j WHERE j.name = $1 AND j.singleton_key = $2 || v.id::text AND j.state IN ('created', 'retry', 'active'))`,
      [SCHEDULE_QUEUE, `${kind}:`],
    );
    for (const row of rows) if ((await sendTick(queue, { vault: row.id, kind }, new Date(now.getTime() + every * 1000))) !== null) seeded++;
  }
  return seeded;
}

export interface Scheduler {
  stop(): Promise<void>;
}

const SEED_EVERY_MS = 60_000;

/** Runs the ticks in this worker process and seeds missing ones; nothing when no schedule is set. */
export async function startScheduler(db: Db, queue: Queue, settings: ServerSettings, log: (line: string) => void, pollingSeconds = 1): Promise<Scheduler> {
  const every = new Map(schedules(settings).map((s) => [s.kind, s.every]));
  if (every.size === 0) return { stop: async () => undefined };
  const id = await queue.boss.work<TickData>(SCHEDULE_QUEUE, { batchSize: 1, pollingIntervalSeconds: pollingSeconds, includeMetadata: true }, async ([job]: PgBoss.JobWithMetadata<TickData>[]) => {
    if (job === undefined) return undefined;
    const interval = every.get(job.data.kind);
    // A kind no longer scheduled: its tick ends here.
    if (interval === undefined) return { stopped: true };
    const sent = await queue.send(job.data.kind, { vault: job.data.vault });
    const next = nextDue(new Date(job.startAfter), interval);
    await sendTick(queue, job.data, next);
    log(`schedule: ${job.data.kind} of vault ${job.data.vault} queued (job ${sent.id ?? 'none'}), next at ${next.toISOString()}`);
    return { job: sent.id, next: next.toISOString() };
  });
  const seed = (): void =>
    void seedTicks(db, queue, settings).then(
      (n) => (n > 0 ? log(`schedule: ${n} first runs queued`) : undefined),
      (error: unknown) => log(`schedule: seeding failed: ${errorMessage(error).split('\n')[0]}`),
    );
  seed();
  const timer = setInterval(seed, SEED_EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await queue.boss.offWork({ id }).catch(() => undefined);
    },
  };
}
