/**
 * One daemon process for several vaults (issue 27: many vaults, one daemon): each vault runs its own daemon
 * loop (daemon.ts) side by side in this process, so each keeps its own lock, PID file, git, index, schedule,
 * query socket, LLM executor, log and status.json, and `vaultkeeper status` reads each as it reads a lone
 * daemon's. A signal reaches every loop: SIGTERM stops them all, SIGHUP reloads each config, SIGUSR1 dreams in
 * each. A vault that cannot start (another daemon holds it, its config is broken) is reported and left out;
 * the others run.
 */
import { errorMessage } from '../core/errors.js';
import { runDaemon } from './daemon.js';

export interface DaemonVault {
  /** Its registered name (core/vault-registry.ts), shown before its echoed log lines. */
  name: string;
  root: string;
}

export interface ManyOptions {
  env?: NodeJS.ProcessEnv;
  /** Each vault's log lines, prefixed `[name]`, to this (foreground runs). */
  echo?: (line: string) => void;
  /** A vault that could not start or stopped on an error. */
  onFailure?: (vault: DaemonVault, message: string) => void;
}

export interface ManyResult {
  /** The vaults whose loop ran and stopped cleanly. */
  stopped: string[];
  /** The vaults that could not start or stopped on an error, with why. */
  failed: Array<{ name: string; error: string }>;
}

/** Runs every vault's daemon until SIGTERM/SIGINT; resolves once every loop has finished. */
export async function runDaemons(vaults: readonly DaemonVault[], options: ManyOptions = {}): Promise<ManyResult> {
  const result: ManyResult = { stopped: [], failed: [] };
  await Promise.all(
    vaults.map(async (vault) => {
      try {
        const echo = options.echo;
        await runDaemon({ root: vault.root, ...(options.env === undefined ? {} : { env: options.env }), ...(echo === undefined ? {} : { echo: (line) => echo(`[${vault.name}] ${line}`) }) });
        result.stopped.push(vault.name);
      } catch (error) {
        const message = errorMessage(error);
        result.failed.push({ name: vault.name, error: message });
        options.onFailure?.(vault, message);
      }
    }),
  );
  return result;
}
