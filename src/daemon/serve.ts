/**
 * `vaultkeeper serve`: the daemon's quick-query half alone, in the foreground. A watcher keeps the index
 * current and the query socket answers `search` and `status`, with none of the daemon's scheduled jobs
 * (dreams, extraction, digests). It holds the daemon's lock, so a daemon and a server never share the socket.
 */
import path from 'node:path';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import { acquireLock } from '../core/lock.js';
import { mkdirConfined } from '../vault/confined-write.js';
import { openVault } from '../vault/vault.js';
import { runningDaemon } from './pidfile.js';
import { startWarm } from './warm.js';

export interface ServeOptions {
  root: string;
  env?: NodeJS.ProcessEnv;
  /** Called once queries are answered from an index brought up to date, with the socket's path. */
  onReady?: (socket: string) => void;
  /** Indexing failures and the like, for a person watching. */
  onNote?: (message: string) => void;
}

/** Serves until SIGINT or SIGTERM; resolves with the exit code once the socket is removed. */
export async function runServe(options: ServeOptions): Promise<number> {
  const { root } = options;
  const daemon = await runningDaemon(root);
  if (daemon !== null) {
    throw new VaultkeeperError('VK_DAEMON_RUNNING', `a daemon already runs for this vault (pid ${daemon.pid}) and answers quick queries`, {
      hint: 'use it as it is, or stop it with `vaultkeeper daemon stop` first',
    });
  }
  await mkdirConfined(root, '.vaultkeeper/locks');
  let release: () => Promise<void>;
  try {
    release = await acquireLock(root, 'daemon', { waitMs: 0 });
  } catch {
    throw new VaultkeeperError('VK_DAEMON_RUNNING', 'a daemon or another `vaultkeeper serve` is running for this vault', { hint: 'see `vaultkeeper status`' });
  }
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  // In before the socket exists: a Ctrl-C at any moment still removes it.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, onSignal);
  const note = options.onNote ?? (() => undefined);
  let vault: Awaited<ReturnType<typeof openVault>> | null = null;
  try {
    const opened = await openVault({ vault: root, ...(options.env === undefined ? {} : { env: options.env }) });
    vault = opened;
    const warm = await startWarm(() => opened, { onIndexError: (error) => note(`indexing failed: ${errorMessage(error)}`) });
    try {
      if (warm.queries === null) {
        throw new VaultkeeperError('VK_SOCKET', `the query socket could not be opened: ${warm.socketProblem ?? 'unknown'}`, {
          hint: `check that ${path.join(root, '.vaultkeeper/run')} is a folder this user owns`,
        });
      }
      await Promise.race([warm.caughtUp, new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true }))]);
      if (!stop.signal.aborted) {
        options.onReady?.(warm.queries.path);
        await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
      }
    } finally {
      await warm.close();
    }
    return 0;
  } finally {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.off(signal, onSignal);
    await vault?.close().catch(() => undefined);
    await release().catch(() => undefined);
  }
}
