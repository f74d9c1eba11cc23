import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine } from '../output.js';

export async function run(target: string | undefined, opts: { limit?: number; json?: boolean }, globals: GlobalOptions): Promise<void> {
  const vault = await openVault({ vault: globals.vault });
  const commits = await vault.history({ ...(target === undefined ? {} : { path: target }), ...(opts.limit === undefined ? {} : { limit: opts.limit }) });
  if (opts.json) {
    printJson({ commits: commits.map((c) => ({ sha: c.sha, date: c.date, author: c.author, op: c.op, message: c.message })) });
    return;
  }
  if (commits.length === 0) printLine(target === undefined ? 'no commits yet' : `no commits touch ${target}`);
  for (const c of commits) {
    const subject = c.message.split('\n')[0];
    printLine(`${c.sha.slice(0, 8)}  ${c.date.slice(0, 16).replace('T', ' ')}  ${c.op === null ? `(by ${c.author}) ` : ''}${subject}`);
  }
}
