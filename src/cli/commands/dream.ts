import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { note, printJson, printLine } from '../output.js';

export async function run(opts: { force?: boolean; dryRun?: boolean; offline?: boolean; retrySkipped?: boolean; json?: boolean }, globals: GlobalOptions): Promise<void> {
  const vault = await openVault({ vault: globals.vault });
  const result = await vault.dream({
    force: opts.force ?? false,
    dryRun: opts.dryRun ?? false,
    offline: opts.offline ?? false,
    retrySkipped: opts.retrySkipped ?? false,
    // Progress for a person watching; stderr, so --json output stays one document.
    onEvent: (event) => {
      if (event.type === 'step') note(`dream: ${event.message}`);
      else if (event.type === 'tool') note(`  ${event.ok ? '·' : '!'} ${event.name} ${event.detail}`);
      else note(`  ${event.action} ${event.path}`);
    },
  });
  if (result.status === 'failed') process.exitCode = 1;
  if (opts.json) {
    printJson(result);
    return;
  }
  if (result.status === 'dry-run' && result.diff !== undefined) process.stdout.write(result.diff);
  const batch = result.batch === null ? '' : ` ${result.batch.from}..${result.batch.to}`;
  printLine(`dream ${result.status}${result.run ? ` (${result.run})` : ''}${batch}: ${result.reason}`);
  if (result.fallback !== null) printLine(`used the offline consolidator: ${result.fallback} (llm.fallback: offline)`);
  if (result.retried !== undefined) printLine(`no longer skipped: ${result.retried.join(', ')}`);
  if (result.status === 'ok' || result.status === 'dry-run') {
    const p = result.pages;
    printLine(`pages: ${p.created.length} created, ${p.updated.length} updated, ${p.archived.length} archived; facts ${result.facts}, placed ${result.placed}, uncited ${result.uncited}, conflicts ${result.conflicts}; watermark ${result.watermark.before ?? '-'} → ${result.watermark.after ?? '-'}`);
    for (const moved of p.archived) printLine(`archived: ${moved.from} → ${moved.to}`);
    for (const c of result.corrected) printLine(`corrected: ${c.path} ${c.subject} ${c.from} → ${c.to === '' ? '(none: disputed)' : c.to}`);
  }
  if (result.outside !== undefined) printLine(`not rewritten (links out of the vault, read only): ${result.outside.join(', ')}`);
  if (result.commit) printLine(`commit ${result.commit.slice(0, 8)} (undo with: vaultkeeper undo ${result.run})`);
}
