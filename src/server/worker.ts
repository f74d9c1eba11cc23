/**
 * The workers: each queue's jobs (jobs.ts) run against the vault's working copy, through the Vault API. A job that
 * changes the vault pulls its remote first and pushes after (sync/sync.ts), so the remote stays the canonical copy
 * and a worker on another host starts from it. A dream runs with the tenant's capped executor (caps.ts).
 */
import type PgBoss from 'pg-boss';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import type { Vault } from '../vault/vault.js';
import { cappedExecutor } from './caps.js';
import type { OpenVaults } from './copies.js';
import type { Db } from './db.js';
import { JOB_KINDS, queueName, type JobData, type JobKind, type Queue } from './jobs.js';
import { LEASED_KINDS, withJobLease } from './lease.js';
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

async function runJob(kind: JobKind, job: PgBoss.Job<JobData>, deps: WorkerDeps): Promise<Record<string, unknown>> {
  const row = await vaultById(deps.db, job.data.vault);
  if (row === null) return { skipped: 'the vault no longer exists' };
  const vault = await deps.vaults.get(row);
  switch (kind) {
    case 'dream': {
      await syncVault(vault);
      const executor = await executorFor(vault, deps, row);
      const result = await vault.dream({ force: job.data.force ?? false, ...(executor === undefined ? {} : { executor }) });
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
            const output = LEASED_KINDS.has(kind) ? await withJobLease(deps.settings.databaseUrl, kind, job.data.vault, () => runJob(kind, job, deps)) : await runJob(kind, job, deps);
            deps.log(`job ${kind} ${job.id} done in ${Date.now() - started} ms`);
            return output;
          } catch (error) {
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
