import { UsageError } from '../../core/errors.js';
import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { plural, printJson, printLine } from '../output.js';

export async function run(id: string | undefined, opts: { match?: string; reason?: string; json?: boolean }, globals: GlobalOptions): Promise<void> {
  if (id !== undefined && opts.match !== undefined) throw new UsageError('give a fact id or --match TEXT, not both');
  if (id === undefined && opts.match === undefined) throw new UsageError('forget needs a fact id or --match TEXT', 'e.g. vaultkeeper forget f-7k2m9q0a1b --reason "wrong"');
  const vault = await openVault({ vault: globals.vault });
  const result = await vault.forget(id !== undefined ? { id } : { match: opts.match! }, { reason: opts.reason });
  if (opts.json) {
    printJson({
      tombstoned: result.tombstoned.map((f) => ({ id: f.id, text: f.text, path: f.path, line: f.line })),
      already: result.already.map((f) => ({ id: f.id, text: f.text, path: f.path, line: f.line })),
      pages: result.pages,
      page_lines: result.pages.reduce((n, p) => n + p.lines, 0),
      memory: result.memory,
      commit: result.commit,
    });
    return;
  }
  if (result.tombstoned.length > 0) printLine(`forgot ${plural(result.tombstoned.length, 'fact')}:`);
  for (const f of result.tombstoned) printLine(`  ${f.id}  ${f.path}:${f.line}  ${f.text}`);
  if (result.already.length > 0) printLine(`already forgotten: ${result.already.map((f) => f.id).join(', ')}`);
  if (result.pages.length > 0) printLine(`removed ${plural(result.pages.reduce((n, p) => n + p.lines, 0), 'page line')} from ${result.pages.map((p) => p.path).join(', ')}`);
  if (result.memory.changed) printLine(`removed ${plural(result.memory.removed, 'fact')} from MEMORY.md`);
}
