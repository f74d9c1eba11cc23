/**
 * The hosted server's settings, from the environment only (issue 28): nothing about a deployment lands in a vault.
 * DATABASE_URL (Postgres: tenants, vaults, tokens, usage, the job queue), VAULTKEEPER_SERVER_DATA (the working
 * copies), VAULTKEEPER_REMOTES (a folder of bare repositories, or a URL base: each vault's canonical copy),
 * VAULTKEEPER_INDEX_URI_BASE (e.g. s3://bucket/prefix; the usual AWS_* variables give endpoint and credentials).
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { VaultkeeperError } from '../core/errors.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface ServerSettings {
  databaseUrl: string;
  /** Working copies, one folder per tenant and vault. */
  data: string;
  /** A folder of bare repositories, or a URL base (ends without a slash). */
  remotes: string;
  /** Each vault's index at `<base>/<tenant>/<vault>`; null: the index stays in the working copy. */
  indexUriBase: string | null;
  /** Per-tenant daily caps of the LLM executor (defaults; a tenant's own row may set others); null: none. */
  tenantTokensPerDay: number | null;
  tenantCostPerDay: number | null;
  /** LLM calls per minute shared by every worker; null: no global budget. */
  llmCallsPerMinute: number | null;
  /** A job still active this long after it started is taken as lost (its worker died) and retried. */
  jobExpireSeconds: number;
  /** How long a job waits before its first retry; later retries back off exponentially. */
  jobRetryDelaySeconds: number;
  jobRetryLimit: number;
  /** A job's lease (lease.ts) ends when its worker is silent this long (hung, stopped): its job may then run elsewhere. */
  jobLeaseTimeoutSeconds: number;
  /** Every vault's dream and digest recur this often (schedule.ts); null: only when asked. */
  dreamEverySeconds: number | null;
  digestEverySeconds: number | null;
}


function number(env: Env, name: string, fallback: number | null, min: number): number | null {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new VaultkeeperError('VK_USAGE', `${name} must be a number of at least ${min}, not '${raw}'`, { exitCode: 2 });
  return n;
}

export function serverSettings(env: Env = process.env): ServerSettings {
  const databaseUrl = env.DATABASE_URL?.trim() ?? '';
  if (databaseUrl === '') {
    throw new VaultkeeperError('VK_USAGE', 'DATABASE_URL is not set: the server keeps tenants, tokens and jobs in PostgreSQL', {
      exitCode: 2,
      hint: 'export DATABASE_URL=postgres://vaultkeeper@127.0.0.1:5432/vaultkeeper (docs/hosting.md)',
    });
  }
  const data = path.resolve(env.VAULTKEEPER_SERVER_DATA?.trim() || path.join(homedir(), '.local', 'share', 'vaultkeeper', 'server'));
  const remotesRaw = env.VAULTKEEPER_REMOTES?.trim() || path.join(data, 'remotes');
  const remotes = /^[a-z][a-z0-9+.-]*:\/\//i.test(remotesRaw) || /^[^/]+@[^/]+:/.test(remotesRaw) ? remotesRaw.replace(/\/+$/, '') : path.resolve(remotesRaw);
  const base = env.VAULTKEEPER_INDEX_URI_BASE?.trim().replace(/\/+$/, '') ?? '';
  return {
    databaseUrl,
    data,
    remotes,
    indexUriBase: base === '' ? null : base,
    tenantTokensPerDay: number(env, 'VAULTKEEPER_TENANT_TOKENS_PER_DAY', null, 0),
    tenantCostPerDay: number(env, 'VAULTKEEPER_TENANT_COST_PER_DAY', null, 0),
    llmCallsPerMinute: number(env, 'VAULTKEEPER_LLM_CALLS_PER_MINUTE', null, 1),
    jobExpireSeconds: number(env, 'VAULTKEEPER_JOB_EXPIRE_S', 900, 1)!,
    jobRetryDelaySeconds: number(env, 'VAULTKEEPER_JOB_RETRY_DELAY_S', 30, 0)!,
    jobRetryLimit: number(env, 'VAULTKEEPER_JOB_RETRY_LIMIT', 3, 0)!,
    jobLeaseTimeoutSeconds: number(env, 'VAULTKEEPER_JOB_LEASE_TIMEOUT_S', 120, 1)!,
    dreamEverySeconds: number(env, 'VAULTKEEPER_DREAM_EVERY_S', null, 1),
    digestEverySeconds: number(env, 'VAULTKEEPER_DIGEST_EVERY_S', null, 1),
  };
}

/** A folder remote is local: the server creates its bare repositories itself. */
export const remotesAreLocal = (settings: ServerSettings): boolean => path.isAbsolute(settings.remotes);
