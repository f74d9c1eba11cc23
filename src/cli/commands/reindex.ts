import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { note, plural, printJson, printLine } from '../output.js';
import { progressBar } from '../progress.js';

export async function run(opts: { clear?: boolean; json?: boolean }, globals: GlobalOptions): Promise<void> {
  const vault = await openVault({ vault: globals.vault });
  const bar = progressBar();
  const result = await vault.reindex({
    clear: opts.clear ?? false,
    verify: true,
    onProgress: (p) => bar.update(p.phase, p.done, p.total),
    onNote: (message) => {
      bar.done();
      note(`vaultkeeper: ${message}`);
    },
  });
  bar.done();
  if (opts.json) {
    printJson(result);
    return;
  }
  const f = result.files;
  printLine(
    `index: ${plural(result.rows, 'row')} (${result.facts} facts, ${result.pages} page sections, ${result.core} core) — ` +
      `${result.added} written, ${result.removed} removed, ${result.embedded} embedded in ${result.ms} ms`,
  );
  printLine(`files: ${f.indexed} new, ${f.updated} updated, ${f.unchanged} unchanged, ${f.removed} removed, ${f.skipped} skipped`);
}
