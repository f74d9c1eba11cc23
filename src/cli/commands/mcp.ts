import { format } from 'node:util';
import { VaultkeeperError, errorMessage } from '../../core/errors.js';
import { openVault, type Vault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { note } from '../output.js';

export interface McpOptions {
  http?: boolean;
  port?: number;
  host?: string;
  allowOrigin?: string[];
}

/**
 * Serves the vault over MCP: on stdio (stdout carries the protocol alone: everything else goes to
 * stderr), or with --http over Streamable HTTP until SIGINT/SIGTERM.
 */
export async function run(globals: GlobalOptions, opts: McpOptions = {}): Promise<void> {
  // A dependency that logs with console.log would corrupt the protocol stream.
  const toStderr = (...args: unknown[]): void => note(format(...args));
  Object.assign(globalThis.console, { log: toStderr, info: toStderr, debug: toStderr });
  const log = (line: string): void => note(`vaultkeeper mcp: ${line}`);
  const vault = await openVault({ vault: globals.vault });
  // A search's update leaves its few rows outside the full-text index; this process lives long: fold them in once
  // quiet, and those written before it started too (vault/idle-fold.ts).
  const { IdleFold } = await import('../../vault/idle-fold.js');
  const fold = new IdleFold(() => vault, (error) => log(`folding new rows into the full-text index failed: ${errorMessage(error)}`));
  vault.onReindexed = () => fold.poke();
  fold.poke();
  try {
    await serve(vault, log, opts);
  } finally {
    await fold.close();
  }
}

async function serve(vault: Vault, log: (line: string) => void, opts: McpOptions): Promise<void> {
  if (!opts.http) {
    if (opts.port !== undefined || opts.host !== undefined || opts.allowOrigin !== undefined) {
      throw new VaultkeeperError('VK_USAGE', '--port, --host and --allow-origin go with --http', { exitCode: 2, hint: 'e.g. vaultkeeper mcp --http --port 8765' });
    }
    const { createServer, serveStdio } = await import('../../mcp/server.js');
    log(`serving ${vault.root} over stdio`);
    await serveStdio(createServer(vault, log), log);
    return;
  }
  const { isLoopback, serveHttp } = await import('../../mcp/http.js');
  const host = opts.host ?? '127.0.0.1';
  if (!isLoopback(host)) log(`warning: listening on ${host}, beyond this machine; there is no authentication: anyone who can reach it can read and write the memory`);
  const serving = await serveHttp(vault, log, { host, ...(opts.port === undefined ? {} : { port: opts.port }), ...(opts.allowOrigin === undefined ? {} : { allowedOrigins: opts.allowOrigin }) }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new VaultkeeperError('VK_USAGE', `port ${opts.port ?? 8765} is in use`, { hint: 'choose another with --port N (0 picks a free one)' });
    throw error;
  });
  log(`serving ${vault.root} over Streamable HTTP at ${serving.url}`);
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      log(`stopping: ${signal}`);
      void serving.close().then(resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
