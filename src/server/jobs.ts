/**
 * The job queue on Postgres (pg-boss, schema pgboss): dream, reindex, extract, digest and sync, each a queue.
 * A job row holds the vault's id and a few flags, never a token, a key or a fact. Dreams, reindexes, syncs and
 * digests are `stately` queues keyed by vault: at most one queued and one active per vault, so two dreams of one vault never
 * run at once and the indexer stays the only writer of a vault's index. A job whose worker dies stays active until
 * it expires (VAULTKEEPER_JOB_EXPIRE_S), then is retried with exponential backoff; a job due later is a start-after
 * time, so a run missed while no worker ran is taken at the next poll.
 */
import type PgBoss from 'pg-boss';
import type { ServerSettings } from './settings.js';

export const JOB_KINDS = ['dream', 'reindex', 'extract', 'digest', 'sync'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const queueName = (kind: JobKind): string => `vk-${kind}`;

/** Kinds with at most one job waiting and one running per vault (keyed by the vault). */
const PER_VAULT: ReadonlySet<string> = new Set(['dream', 'reindex', 'sync', 'digest', 'schedule']);

/** The ticks of recurring dreams and digests (schedule.ts): one waiting per vault and kind. */
export const SCHEDULE_QUEUE = 'vk-schedule';

export interface JobData {
  /** vk_vaults.id */
  vault: string;
  force?: boolean;
  /** How many times a job of this vault and kind was refused by the lease and queued again (worker.ts `requeue`). */
  deferred?: number;
}

export interface Queue {
  boss: PgBoss;
  /** Queues a job; returns its id, or the id of the job of that vault already waiting (deduplicated). */
  send(kind: JobKind, data: JobData, options?: { startAfter?: Date | number }): Promise<{ id: string | null; queued: boolean }>;
  stop(): Promise<void>;
}

export interface QueueOptions {
  /** Whether this process expires lost jobs and archives old ones (any one process suffices; every one may). */
  supervise?: boolean;
}

export async function openQueue(settings: ServerSettings, options: QueueOptions = {}): Promise<Queue> {
  const { default: PgBossClass } = await import('pg-boss');
  const boss = new PgBossClass({
    connectionString: settings.databaseUrl,
    max: 4,
    supervise: options.supervise ?? true,
    schedule: false,
    // Lost jobs are found at most this late after they expire.
    maintenanceIntervalSeconds: Math.max(1, Math.min(60, Math.floor(settings.jobExpireSeconds / 2))),
  });
  // Errors of the maintenance loop (a lost connection) are retried by pg-boss; they must not crash the process.
  boss.on('error', () => undefined);
  await boss.start();
  for (const kind of [...JOB_KINDS, 'schedule' as const]) {
    const queue: PgBoss.Queue = {
      name: kind === 'schedule' ? SCHEDULE_QUEUE : queueName(kind),
      policy: PER_VAULT.has(kind) ? 'stately' : 'standard',
      retryLimit: settings.jobRetryLimit,
      retryDelay: settings.jobRetryDelaySeconds,
      retryBackoff: true,
      expireInSeconds: settings.jobExpireSeconds,
    };
    if ((await boss.getQueue(queue.name)) === null) await boss.createQueue(queue.name, queue);
    else await boss.updateQueue(queue.name, queue);
  }
  return {
    boss,
    async send(kind, data, sendOptions = {}) {
      const name = queueName(kind);
      const singletonKey = PER_VAULT.has(kind) ? data.vault : undefined;
      const id = await boss.send(name, data, {
        ...(singletonKey === undefined ? {} : { singletonKey }),
        ...(sendOptions.startAfter === undefined ? {} : { startAfter: sendOptions.startAfter instanceof Date ? sendOptions.startAfter : sendOptions.startAfter }),
      });
      if (id !== null) return { id, queued: true };
      // Deduplicated: name the one already waiting.
      const { rows } = await boss.getDb().executeSql(
        `SELECT id FROM pgboss.job WHERE name = $1 AND singleton_key = $2 AND state IN ('created', 'retry') ORDER BY created_on LIMIT 1`,
        [name, singletonKey ?? ''],
      );
      return { id: (rows[0] as { id: string } | undefined)?.id ?? null, queued: false };
    },
    stop: () => boss.stop({ graceful: true, wait: true, timeout: 10_000 }),
  };
}
