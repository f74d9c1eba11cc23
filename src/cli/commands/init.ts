import { initVault } from '../../vault/init.js';
import { printJson, printLine } from '../output.js';

export async function run(target: string, opts: { json?: boolean }): Promise<void> {
  const result = await initVault(target);
  if (opts.json) {
    printJson(result);
    return;
  }
  printLine(`created a vault in ${result.root}`);
  printLine('next: vaultkeeper remember "…"   (open the folder in Obsidian to browse it)');
}
