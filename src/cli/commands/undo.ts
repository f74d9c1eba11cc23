import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine } from '../output.js';

export async function run(runId: string, opts: { json?: boolean }, globals: GlobalOptions): Promise<void> {
  const vault = await openVault({ vault: globals.vault });
  const result = await vault.undo(runId);
  if (opts.json) {
    printJson(result);
    return;
  }
  printLine(`reverted ${result.run} (commit ${result.reverted.slice(0, 8)}) in ${result.commit.slice(0, 8)}; its days are pending again`);
}
