/**
 * `vaultkeeper server` and `vaultkeeper worker`: the API (app.ts) on @hono/node-server, with workers in the same
 * process unless --no-workers, or workers alone. Both migrate the database first (migrations.ts, and pg-boss its
 * own schema), and stop on SIGINT/SIGTERM: the HTTP server stops taking requests, workers finish their jobs.
 */
import type { AddressInfo } from 'node:net';
import { createApp, type Log } from './app.js';
import { OpenVaults } from './copies.js';
import { openDb, type Db } from './db.js';
import { openQueue, type Queue } from './jobs.js';
import { migrate } from './migrations.js';
import type { ServerSettings } from './settings.js';
import { startWorkers, type Workers } from './worker.js';

export const DEFAULT_SERVER_PORT = 8787;

export interface Running {
  url: string | null;
  stop(): Promise<void>;
}

export interface ServeOptions {
  port?: number;
  host?: string;
  api: boolean;
  workers: boolean;
  concurrency?: number;
}

/** Every host dreams as one machine (dream.where): the canonical copy is the remote, not a host. */
export const SERVER_MACHINE = 'vaultkeeper-server';

export async function startServer(settings: ServerSettings, options: ServeOptions, log: Log): Promise<Running> {
  process.env.VAULTKEEPER_MACHINE ??= SERVER_MACHINE;
  const db: Db = await openDb(settings.databaseUrl);
  await migrate(db);
  const queue: Queue = await openQueue(settings);
  const vaults = new OpenVaults(settings);
  let workers: Workers | null = null;
  if (options.workers) workers = await startWorkers({ db, queue, vaults, settings, log }, options.concurrency === undefined ? {} : { concurrency: options.concurrency });
  let url: string | null = null;
  let close: (() => Promise<void>) | null = null;
  if (options.api) {
    const { serve } = await import('@hono/node-server');
    const app = createApp({ db, queue, vaults, log });
    const host = options.host ?? '127.0.0.1';
    const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, port: options.port ?? DEFAULT_SERVER_PORT, hostname: host }, () => resolve(s));
      s.once('error', reject);
    });
    const port = (server.address() as AddressInfo).port;
    url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    close = () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) (server as { closeAllConnections(): void }).closeAllConnections();
      });
  }
  return {
    url,
    async stop() {
      await close?.();
      await workers?.stop();
      await queue.stop().catch(() => undefined);
      await vaults.closeAll();
      await db.end();
    },
  };
}
