/**
 * `vaultkeeper server` (the hosted API and its workers), `vaultkeeper worker` (workers alone) and the admin commands
 * that manage tenants, vaults and tokens in the server's database (src/server/). Settings come from the environment
 * (server/settings.ts), so nothing of a deployment is typed on a command line or lands in a vault.
 */
import { writeSync } from 'node:fs';
import { VaultkeeperError } from '../../core/errors.js';
import type { Db } from '../../server/db.js';
import type { ServerSettings } from '../../server/settings.js';
import { note, printJson, printLine } from '../output.js';

export interface ServerOptions {
  port?: number;
  host?: string;
  workers?: boolean;
  concurrency?: number;
}

async function withDb<T>(work: (db: Db, settings: ServerSettings) => Promise<T>): Promise<T> {
  const { serverSettings } = await import('../../server/settings.js');
  const { openDb } = await import('../../server/db.js');
  const { migrate } = await import('../../server/migrations.js');
  const settings = serverSettings();
  const db = await openDb(settings.databaseUrl, 2);
  try {
    await migrate(db);
    return await work(db, settings);
  } finally {
    await db.end();
  }
}

async function runUntilSignal(api: boolean, opts: ServerOptions): Promise<void> {
  const { serverSettings } = await import('../../server/settings.js');
  const { startServer } = await import('../../server/serve.js');
  const settings = serverSettings();
  const name = api ? 'server' : 'worker';
  const log = (line: string): void => note(`vaultkeeper ${name}: ${line}`);
  const workers = api ? opts.workers !== false : true;
  const running = await startServer(
    settings,
    { api, workers, ...(opts.port === undefined ? {} : { port: opts.port }), ...(opts.host === undefined ? {} : { host: opts.host }), ...(opts.concurrency === undefined ? {} : { concurrency: opts.concurrency }) },
    log,
  ).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new VaultkeeperError('VK_USAGE', `port ${opts.port} is in use`, { hint: 'choose another with --port N (0 picks a free one)' });
    throw error;
  });
  log(`${running.url === null ? 'running' : `listening on ${running.url}`}${workers ? ', with workers' : ', without workers (run `vaultkeeper worker`)'}; working copies in ${settings.data}`);
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      log(`stopping: ${signal}`);
      void running.stop().then(resolve, resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

export const serve = (opts: ServerOptions): Promise<void> => runUntilSignal(true, opts);
export const work = (opts: ServerOptions): Promise<void> => runUntilSignal(false, opts);

export async function vaultCreate(name: string, opts: { tenant: string; json?: boolean }): Promise<void> {
  await withDb(async (db, settings) => {
    const { createVaultRow } = await import('../../server/registry.js');
    const { ensureCopy, remoteOf } = await import('../../server/copies.js');
    const { SERVER_MACHINE } = await import('../../server/serve.js');
    process.env.VAULTKEEPER_MACHINE ??= SERVER_MACHINE;
    const { row, created } = await createVaultRow(db, opts.tenant, name);
    const key = { tenant: row.tenant, name: row.name };
    const path = await ensureCopy(settings, key);
    const remote = remoteOf(settings, key);
    if (opts.json) return printJson({ tenant: row.tenant, vault: row.name, created, path, remote });
    printLine(`${created ? 'created' : 'already there:'} vault ${row.name} of tenant ${row.tenant}; its canonical copy: ${remote} (a person can clone it and open it in Obsidian)`);
  });
}

export async function vaultList(opts: { tenant?: string; json?: boolean }): Promise<void> {
  await withDb(async (db) => {
    const { listVaults } = await import('../../server/registry.js');
    const rows = await listVaults(db, opts.tenant);
    if (opts.json) return printJson(rows.map((r) => ({ tenant: r.tenant, vault: r.name })));
    if (rows.length === 0) return printLine('no vaults');
    for (const r of rows) printLine(`${r.tenant}/${r.name}`);
  });
}

export async function tokenCreate(opts: { tenant: string; vault?: string; scope: string; json?: boolean }): Promise<void> {
  await withDb(async (db) => {
    const { parseScopes } = await import('../../server/tokens.js');
    const { createToken } = await import('../../server/registry.js');
    const scopes = parseScopes(opts.scope);
    const { id, token } = await createToken(db, opts.tenant, opts.vault ?? null, scopes);
    // Written past the CLI's output redaction: printing the token once is this command's purpose; only its hash is kept.
    if (opts.json) {
      writeSync(1, `${JSON.stringify({ id, tenant: opts.tenant, vault: opts.vault ?? null, scopes, token })}\n`);
      return;
    }
    printLine(`token ${id} for tenant ${opts.tenant}, ${opts.vault === undefined ? 'every vault' : `vault ${opts.vault}`}, scopes ${scopes.join(',')}; shown once (only its hash is kept), revoke with: vaultkeeper server token revoke ${id}`);
    writeSync(1, `${token}\n`);
  });
}

export async function tokenRevoke(idOrToken: string, opts: { json?: boolean }): Promise<void> {
  await withDb(async (db) => {
    const { revokeToken } = await import('../../server/registry.js');
    const id = await revokeToken(db, idOrToken);
    if (id === null) throw new VaultkeeperError('VK_NOT_FOUND', 'no live token with that id', { hint: 'token ids are the second part of vk_<id>_…; a revoked token stays revoked' });
    if (opts.json) return printJson({ revoked: id });
    printLine(`revoked token ${id}: it opens nothing from now on`);
  });
}

export async function tenantCaps(tenant: string, opts: { tokensPerDay?: string; costPerDay?: string; json?: boolean }): Promise<void> {
  const value = (raw: string | undefined, flag: string): number | null | undefined => {
    if (raw === undefined) return undefined;
    if (raw === 'none') return null;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new VaultkeeperError('VK_USAGE', `${flag} is a number of at least 0, or none`, { exitCode: 2 });
    return n;
  };
  await withDb(async (db, settings) => {
    const { setTenantCaps, tenantCaps: capsOf, tenantUsage } = await import('../../server/caps.js');
    const tokensPerDay = value(opts.tokensPerDay, '--tokens-per-day');
    const costPerDay = value(opts.costPerDay, '--cost-per-day');
    if (tokensPerDay !== undefined || costPerDay !== undefined) {
      if (!(await setTenantCaps(db, tenant, { ...(tokensPerDay === undefined ? {} : { tokensPerDay }), ...(costPerDay === undefined ? {} : { costPerDay }) }))) {
        throw new VaultkeeperError('VK_NOT_FOUND', `no tenant named '${tenant}'`, { hint: `vaultkeeper server vault create NAME --tenant ${tenant}` });
      }
    }
    const caps = await capsOf(db, settings, tenant);
    const usage = await tenantUsage(db, tenant);
    if (opts.json) return printJson({ tenant, caps: { tokens_per_day: caps.tokensPerDay, cost_per_day: caps.costPerDay }, today: usage });
    printLine(`tenant ${tenant}: ${usage.total_tokens} tokens, cost ${usage.cost} in ${usage.calls} LLM calls today (${usage.day} UTC); caps: ${caps.tokensPerDay ?? 'no'} tokens, ${caps.costPerDay ?? 'no'} cost a day`);
  });
}
