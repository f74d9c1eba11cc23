import { VaultkeeperError } from '../../core/errors.js';
import { openVault, type Vault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { runWithLeanMalloc } from '../lean-malloc.js';
import { note, plural, printJson, printLine } from '../output.js';
import { progressBar } from '../progress.js';

export async function run(opts: { clear?: boolean; json?: boolean; foldIn?: boolean }, globals: GlobalOptions): Promise<void> {
  if (opts.clear) {
    // A rebuild runs in a child whose malloc keeps less of what LanceDB frees (lean-malloc.ts).
    const code = await runWithLeanMalloc();
    if (code !== null) {
      process.exitCode = code;
      return;
    }
  }
  const vault = await openVault({ vault: globals.vault });
  if (opts.foldIn) {
    await foldIn(vault);
    return;
  }
  const bar = progressBar();
  const result = await vault.reindex({
    clear: opts.clear ?? false,
    verify: true,
    // A person's own `reindex` is the time to fold what the quick passes left (indexer/reindex.ts: FOLD_LATER_ROWS).
    idle: true,
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

/** The idle fold of a long-lived process (vault/idle-fold.ts), done here: another indexer at work is no failure. */
async function foldIn(vault: Vault): Promise<void> {
  try {
    await vault.reindex({ foldIn: true, lockWaitMs: 0 });
  } catch (error) {
    if (!(error instanceof VaultkeeperError && error.code === 'VK_LOCKED')) throw error;
  }
}
