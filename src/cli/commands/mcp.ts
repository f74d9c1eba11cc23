import { format } from 'node:util';
import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { note } from '../output.js';

/** Serves the vault over MCP on stdio. stdout carries the protocol alone: everything else goes to stderr. */
export async function run(globals: GlobalOptions): Promise<void> {
  // A dependency that logs with console.log would corrupt the protocol stream.
  const toStderr = (...args: unknown[]): void => note(format(...args));
  Object.assign(globalThis.console, { log: toStderr, info: toStderr, debug: toStderr });
  const log = (line: string): void => note(`vaultkeeper mcp: ${line}`);
  const vault = await openVault({ vault: globals.vault });
  const { createServer, serveStdio } = await import('../../mcp/server.js');
  log(`serving ${vault.root} over stdio`);
  await serveStdio(createServer(vault, log), log);
}
