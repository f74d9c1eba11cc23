import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { plural, printJson, printLine } from '../output.js';

export async function run(opts: { remote?: string; json?: boolean }, globals: GlobalOptions): Promise<void> {
  const vault = await openVault({ vault: globals.vault });
  const result = await vault.sync({ remote: opts.remote });
  if (opts.json) {
    printJson(result);
    return;
  }
  if (result.force_pushed !== null) printLine(result.force_pushed);
  if (result.dreams_here !== null) printLine(`this machine (${result.dreams_here}) dreams for the vault from now on (dream.where); the others receive pages`);
  printLine(`synced with ${result.remote} (${result.branch}): ${plural(result.received, 'commit')} in, ${plural(result.sent, 'commit')} out${result.merge === null ? '' : `, merged in ${result.merge.slice(0, 8)}`}`);
  if (result.forgotten_pages.length > 0) printLine(`removed lines of facts forgotten on another machine from ${result.forgotten_pages.join(', ')}`);
}

export async function clone(remote: string, target: string, opts: { json?: boolean }): Promise<void> {
  const { cloneVault } = await import('../../sync/clone.js');
  const root = await cloneVault(remote, target);
  const vault = await openVault({ vault: root });
  const index = await vault.reindex();
  await vault.close();
  if (opts.json) {
    printJson({ path: root, remote, index: { rows: index.rows, facts: index.facts, pages: index.pages } });
    return;
  }
  printLine(`cloned ${remote} into ${root}; indexed ${plural(index.rows, 'row')}`);
  printLine('keep the machines in step with `vaultkeeper sync` (the daemon syncs by itself when it runs)');
}

export async function mergeFile(kind: string, base: string, ours: string, theirs: string): Promise<void> {
  const { mergeFile: merge } = await import('../../sync/merge-driver.js');
  await merge(kind, base, ours, theirs);
}
