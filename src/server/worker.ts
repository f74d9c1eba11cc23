/**
 * The workers: each queue's jobs (jobs.ts) run against the vault's working copy, through the Vault API. A job that
 * changes the vault pulls its remote first and pushes after (sync/sync.ts), so the remote stays the canonical copy
 * and a worker on another host starts from it. A dream runs with the tenant's capped executor (caps.ts).
 */
import type PgBoss from 'pg-boss';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import { withLock } from '../core/lock.js';
import type { Vault } from '../vault/vault.js';
import { cappedExecutor } from './caps.js';
import type { OpenVaults } from './copies.js';
import type { Db } from './db.js';
import { JOB_KINDS, queueName, type JobData, type JobKind, type Queue } from './jobs.js';
import { BUSY_CODE, LEASED_KINDS, withJobLease, type JobLease } from './lease.js';
import { vaultById, type VaultRow } from './registry.js';
import { startScheduler } from './schedule.js';
import type { ServerSettings } from './settings.js';

export type Log = (line: string) => void;

export interface WorkerDeps {
  db: Db;
  queue: Queue;
  vaults: OpenVaults;
  settings: ServerSettings;
  log: Log;
}

export interface Workers {
  stop(): Promise<void>;
}

/** Jobs of each queue this process runs at once. */
export const DEFAULT_CONCURRENCY = 2;

async function executorFor(vault: Vault, deps: WorkerDeps, row: VaultRow) {
  const llm = vault.ctx.config.llm;
  if (llm.base_url === null || llm.model === null) return undefined;
  const { createExecutor } = await import('../llm/executor.js');
  const inner = await createExecutor({ settings: llm, env: vault.ctx.env, root: vault.root, timeZone: vault.ctx.timeZone });
  return cappedExecutor(inner, deps.db, deps.settings, row.tenant);
}

/** The vault's remote, pulled and pushed; a sync that finds nothing to do is cheap. */
async function syncVault(vault: Vault): Promise<string> {
  const result = await vault.sync();
  return `${result.received} in, ${result.sent} out`;
}

/** Not held: a hung attempt whose lease PostgreSQL ended while it was stopped. */
const LEASE_LOST = 'the job lease was lost while it ran (the worker was silent past VAULTKEEPER_JOB_LEASE_TIMEOUT_S); another attempt may have run since';

const ALWAYS_HELD: JobLease = { held: async () => true };

/**
 * One job at a time on a working copy, whatever its kind, across the processes of this host (a lock in the copy;
 * refused at once, then re-queued). The job lease (lease.ts) is per vault across hosts and passes on when a holder
 * hangs, but the hung attempt still runs on its copy once it wakes: between its dream's commit and its lease check
 * and undo, another job of its own process that syncs the copy (a retried dream, a sync) pushed the stale dream
 * inside its merge (test/e2e/server-hang.test.ts, seen under load). A stopped holder is alive, so its lock stands.
 */
const COPY_LOCK = 'job';

async function runJob(kind: JobKind, job: PgBoss.Job<JobData>, deps: WorkerDeps, lease: JobLease): Promise<Record<string, unknown>> {
  const row = await vaultById(deps.db, job.data.vault);
  if (row === null) return { skipped: 'the vault no longer exists' };
  const vault = await deps.vaults.get(row);
  return withLock(vault.root, COPY_LOCK, () => runOnCopy(kind, job, deps, lease, vault, row), { waitMs: 0 });
}

async function runOnCopy(kind: JobKind, job: PgBoss.Job<JobData>, deps: WorkerDeps, lease: JobLease, vault: Vault, row: VaultRow): Promise<Record<string, unknown>> {
  switch (kind) {
    case 'dream': {
      await syncVault(vault);
      const executor = await executorFor(vault, deps, row);
      const result = await vault.dream({ force: job.data.force ?? false, ...(executor === undefined ? {} : { executor }) });
      // A hung attempt that woke up after its lease passed on must not publish a dream made beside the newer one:
      // its run is undone in this copy (dream/undo.ts, a revert) and nothing is pushed.
      if (!(await lease.held())) {
        const undone = result.run !== null && result.commit !== null ? (await vault.undo(result.run)).commit : null;
        deps.log(`job dream ${job.id}: ${LEASE_LOST}; ${undone === null ? 'nothing to undo' : `its run ${result.run} undone`}, nothing pushed`);
        return { lease: 'lost', status: result.status, run: result.run, undone };
      }
      if (result.status === 'failed') throw new VaultkeeperError('VK_DREAM_FAILED', `the dream failed: ${result.reason}`);
      const pushed = await syncVault(vault);
      return { status: result.status, run: result.run, reason: result.reason, consolidator: result.consolidator, fallback: result.fallback, commit: result.commit ?? null, sync: pushed };
    }
    case 'reindex': {
      const result = await vault.reindex();
      return { rows: result.rows, added: result.added, removed: result.removed };
    }
    case 'sync':
      return { sync: await syncVault(vault) };
    case 'digest': {
      const { writeDigests } = await import('../daemon/jobs/digest.js');
      const result = await writeDigests(vault, new Date().toISOString().slice(0, 10));
      // Digests are regenerated whole by the attempt that holds the lease; a hung one's stay in this copy unpushed.
      if (!(await lease.held())) return { lease: 'lost', written: result.written };
      return { written: result.written, sync: await syncVault(vault) };
    }
    case 'extract': {
      const { scanSessions } = await import('../extract/sessions.js');
      const { executorChat } = await import('../extract/llm.js');
      const executor = await executorFor(vault, deps, row);
      const result = await scanSessions(vault, executor === undefined ? { offline: true } : { chat: executorChat(executor) });
      return { facts: result.facts, sessions: result.sessions.length, sync: await syncVault(vault) };
    }
  }
}

/**
 * Refusals, not failures: another attempt holds the job's lease (on any host), or another job holds the working
 * copy's file lock on this host (a sync waiting out a dream of the same copy).
 */
const REFUSALS: ReadonlySet<string> = new Set([BUSY_CODE, 'VK_LOCKED']);

/** The longest a refused job waits before it asks for the lease again. */
const REQUEUE_MAX_DELAY_S = 300;

/**
 * A job refused because another attempt of its kind holds the vault (lease.ts) did not fail: it ends completed and a
 * fresh job of the same data is queued for later (backing off by `deferred`), so the refusal never spends the job's
 * retry limit and a job never ends `failed` because another attempt was doing the work. The stately queue keeps one
 * waiting per vault: when one already waits, that one stands for it.
 */
async function requeue(kind: JobKind, job: PgBoss.Job<JobData>, deps: WorkerDeps): Promise<Record<string, unknown>> {
  const deferred = (job.data.deferred ?? 0) + 1;
  const delay = Math.min(REQUEUE_MAX_DELAY_S, Math.max(1, deps.settings.jobRetryDelaySeconds) * 2 ** Math.min(deferred - 1, 8));
  const next = await deps.queue.send(kind, { ...job.data, deferred }, { startAfter: new Date(Date.now() + delay * 1000) });
  deps.log(`job ${kind} ${job.id} refused: another attempt holds the vault; ${next.queued ? `re-queued as ${next.id} in ${delay} s` : `job ${next.id} already waits`}`);
  return { busy: true, requeued: next.id };
}

export async function startWorkers(deps: WorkerDeps, options: { concurrency?: number; pollingSeconds?: number } = {}): Promise<Workers> {
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  const ids: string[] = [];
  for (const kind of JOB_KINDS) {
    for (let i = 0; i < concurrency; i++) {
      ids.push(
        await deps.queue.boss.work<JobData>(queueName(kind), { batchSize: 1, pollingIntervalSeconds: options.pollingSeconds ?? 1 }, async ([job]) => {
          if (job === undefined) return undefined;
          const started = Date.now();
          deps.log(`job ${kind} ${job.id} of vault ${job.data.vault} started`);
          try {
            const output = LEASED_KINDS.has(kind) ? await withJobLease(deps.settings, kind, job.data.vault, (lease) => runJob(kind, job, deps, lease)) : await runJob(kind, job, deps, ALWAYS_HELD);
            deps.log(`job ${kind} ${job.id} done in ${Date.now() - started} ms`);
            return output;
          } catch (error) {
            if (error instanceof VaultkeeperError && REFUSALS.has(error.code)) return requeue(kind, job, deps);
            // pg-boss keeps the message in the job row: one line, which no step fills with a secret.
            deps.log(`job ${kind} ${job.id} failed in ${Date.now() - started} ms: ${errorMessage(error).split('\n')[0]}`);
            throw new Error(errorMessage(error).split('\n')[0]);
          }
        }),
      );
    }
  }
  const scheduler = await startScheduler(deps.db, deps.queue, deps.settings, deps.log, options.pollingSeconds ?? 1);
  return {
    async stop() {
      await scheduler.stop();
      await Promise.all(ids.map((id) => deps.queue.boss.offWork({ id }).catch(() => undefined)));
    },
  };
}
