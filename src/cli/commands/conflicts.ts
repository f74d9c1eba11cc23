import type { OpenConflict } from '../../dream/conflicts.js';
import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine } from '../output.js';

const HOW: Record<NonNullable<OpenConflict['resolved_by']>, string> = {
  inbox: 'ticked in the inbox',
  tick: 'ticked on its page',
  current: 'a value written under Current',
  history: 'settled into History',
  removed: 'its line deleted from the page',
};

export async function run(opts: { all?: boolean; json?: boolean }, globals: GlobalOptions): Promise<void> {
  const vault = await openVault({ vault: globals.vault });
  const conflicts = (await vault.conflicts()).filter((c) => opts.all || !c.resolved);
  if (opts.json) {
    printJson({ path: '0_Inbox/conflicts.md', conflicts });
    return;
  }
  if (conflicts.length === 0) printLine('no open conflicts');
  for (const c of conflicts) {
    const how = c.resolved_by === null || c.resolved_by === 'inbox' ? '' : `  (resolved: ${HOW[c.resolved_by]}${c.page === null ? '' : `, ${c.page}`})`;
    printLine(`${c.resolved ? '[x]' : '[ ]'} ${c.file}:${c.line}  ${c.subject}: ${c.text}${how}`);
  }
}
