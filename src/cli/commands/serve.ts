/** `vaultkeeper serve`: answers quick queries (search, status) from a warm process in the foreground until Ctrl-C. */
import { locateVault } from '../../vault/locate.js';
import type { GlobalOptions } from '../options.js';
import { note } from '../output.js';

export async function run(globals: GlobalOptions): Promise<void> {
  const root = locateVault({ vault: globals.vault });
  const { runServe } = await import('../../daemon/serve.js');
  process.exitCode = await runServe({
    root,
    onReady: (socket) => note(`vaultkeeper: answering search and status on ${socket}; Ctrl-C stops`),
    onNote: (message) => note(`vaultkeeper: ${message}`),
  });
}
