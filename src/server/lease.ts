/**
 * One job of a kind per vault at a time, across every worker on every host. The queue's `stately` policy keeps one
 * job active per vault, but pg-boss (10.x, no heartbeat) takes a job that ran past its expiry for lost and retries
 * it, beside the attempt still running; the vault's file locks stand between them only when both workers share one
 * working copy (issue 28's load run saw two attempts of one dream overlap). A job therefore holds a PostgreSQL
 * session advisory lock on its kind and vault while it runs, on a connection of its own:
 * - a worker killed mid-job (kill -9, a lost host) releases it with its connection, at once;
 * - a worker that hangs (SIGSTOP, a frozen VM) keeps its connection open, so the lease also needs a heartbeat: the
 *   holder touches its session every quarter of VAULTKEEPER_JOB_LEASE_TIMEOUT_S, and the session runs with
 *   `idle_session_timeout` at that timeout, so PostgreSQL itself ends the session of a holder silent that long and
 *   the lock passes to the next attempt. The hung attempt, once it runs again, finds its session gone: `held()` says
 *   so, and the job must not publish what it made (worker.ts undoes its dream and does not push).
 * A retry refused because another attempt holds the lease is re-queued by the worker, not failed (worker.ts).
 */
import { VaultkeeperError } from '../core/errors.js';

/** Kinds whose attempts of one vault must never overlap. */
export const LEASED_KINDS: ReadonlySet<string> = new Set(['dream', 'reindex', 'digest', 'sync']);

export const BUSY_CODE = 'VK_JOB_BUSY';

export interface JobLease {
  /** Asks PostgreSQL (a round trip) whether this attempt still holds the lease; false once its session was ended. */
  held(): Promise<boolean>;
}

export interface LeaseSettings {
  databaseUrl: string;
  /** A holder silent this long loses the lease (its session is ended by PostgreSQL). */
  jobLeaseTimeoutSeconds: number;
}

/**
 * Runs `work` holding the lease of `kind` on `vault`, on a connection of its own (not one of the pool's: a job
 * holding a pool client while it needs another could exhaust the pool). Throws VK_JOB_BUSY when another attempt
 * holds it.
 */
export async function withJobLease<T>(settings: LeaseSettings, kind: string, vault: string, work: (lease: JobLease) => Promise<T>): Promise<T> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: settings.databaseUrl });
  let lost = false;
  // A connection lost mid-job ends the lease; the job's own steps report their errors.
  client.on('error', () => {
    lost = true;
  });
  client.on('end', () => {
    lost = true;
  });
  await client.connect();
  let beat: NodeJS.Timeout | null = null;
  try {
    const timeoutMs = Math.round(settings.jobLeaseTimeoutSeconds * 1000);
    await client.query(`SELECT set_config('idle_session_timeout', $1, false)`, [String(timeoutMs)]);
    const key = `vk-job:${kind}:${vault}`;
    const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS held', [key]);
    if (rows[0]?.held !== true) {
      throw new VaultkeeperError(BUSY_CODE, `another ${kind} of this vault is still running (an attempt retried past its expiry); this one is re-queued`);
    }
    // The heartbeat: a live holder is never idle as long as the timeout. Unref'd: it never keeps a process alive.
    beat = setInterval(() => {
      if (!lost) client.query('SELECT 1').catch(() => (lost = true));
    }, Math.max(50, Math.floor(timeoutMs / 4)));
    beat.unref();
    const lease: JobLease = {
      async held() {
        if (lost) return false;
        try {
          await client.query('SELECT 1');
          return !lost;
        } catch {
          lost = true;
          return false;
        }
      },
    };
    return await work(lease);
  } finally {
    if (beat !== null) clearInterval(beat);
    // Closing the session releases its advisory locks.
    await client.end().catch(() => undefined);
  }
}
