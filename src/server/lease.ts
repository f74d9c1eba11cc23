/**
 * One job of a kind per vault at a time, across every worker on every host. The queue's `stately` policy keeps one
 * job active per vault, but pg-boss (10.x, no heartbeat) takes a job that ran past its expiry for lost and retries
 * it, beside the attempt still running; the vault's file locks stand between them only when both workers share one
 * working copy (issue 28's load run saw two attempts of one dream overlap). A job therefore holds a PostgreSQL
 * session advisory lock on its kind and vault while it runs: the lock lives as long as the worker's connection, so
 * a worker killed mid-job (kill -9, a lost host) releases it at once, and a retry beside a running attempt is
 * refused and retried later with the queue's backoff.
 */
import { VaultkeeperError } from '../core/errors.js';

/** Kinds whose attempts of one vault must never overlap. */
export const LEASED_KINDS: ReadonlySet<string> = new Set(['dream', 'reindex', 'digest', 'sync']);

/**
 * Runs `work` holding the lease of `kind` on `vault`, on a connection of its own (not one of the pool's: a job
 * holding a pool client while it needs another could exhaust the pool). Throws VK_JOB_BUSY when another attempt
 * holds it.
 */
export async function withJobLease<T>(databaseUrl: string, kind: string, vault: string, work: () => Promise<T>): Promise<T> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  // A connection lost mid-job ends the lease; the job's own steps report their errors.
  client.on('error', () => undefined);
  await client.connect();
  try {
    const key = `vk-job:${kind}:${vault}`;
    const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS held', [key]);
    if (rows[0]?.held !== true) {
      throw new VaultkeeperError('VK_JOB_BUSY', `another ${kind} of this vault is still running (an attempt retried past its expiry); this one is retried later`);
    }
    return await work();
  } finally {
    // Closing the session releases its advisory locks.
    await client.end().catch(() => undefined);
  }
}
