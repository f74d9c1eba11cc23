import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine } from '../output.js';

export async function run(opts: { all?: boolean; json?: boolean }, globals: GlobalOptions): Promise<void> {
  const vault = await openVault({ vault: globals.vault });
  const conflicts = (await vault.conflicts()).filter((c) => opts.all || !c.resolved);
  if (opts.json) {
    printJson({ path: '0_Inbox/conflicts.md', conflicts });
    return;
  }
  if (conflicts.length === 0) printLine('no open conflicts');
  for (const c of conflicts) printLine(`${c.resolved ? '[x]' : '[ ]'} 0_Inbox/conflicts.md:${c.line}  ${c.subject}: ${c.text}`);
}
