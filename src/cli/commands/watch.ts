import { watchVault } from '../../indexer/watch.js';
import { errorMessage } from '../../core/errors.js';
import { openVault } from '../../vault/vault.js';
import type { ReindexResult } from '../../indexer/result.js';
import type { GlobalOptions } from '../options.js';
import { note } from '../output.js';

export async function run(opts: { debounce?: number }, globals: GlobalOptions): Promise<void> {
  const vault = await openVault({ vault: globals.vault });
  const onNote = (message: string): void => note(`vaultkeeper: ${message}`);
  const first = await vault.reindex({ onNote, verify: true });
  const watcher = watchVault(vault.root, (changed) => vault.reindex({ onNote, ...(changed === undefined ? {} : { changed }) }), {
    ...(opts.debounce === undefined ? {} : { debounceMs: opts.debounce }),
    onIndexed: (changed, result) => note(`indexed ${changed.length === 1 ? changed[0] : `${changed.length} changes`}${passFigures(result as ReindexResult)}`),
    onError: (error) => note(`vaultkeeper: indexing failed: ${errorMessage(error)}`),
  });
  await watcher.ready;
  // Said only once chokidar's first scan is done: changes from here on are seen.
  note(`watching ${vault.root} (${first.rows} rows indexed); Ctrl-C stops`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop).off('SIGTERM', stop);
      void watcher.close().then(resolve);
    };
    process.on('SIGINT', stop).on('SIGTERM', stop);
  });
}

/** What a pass did, for the note: rows written and removed, files statted, its time. */
function passFigures(result: ReindexResult): string {
  const statted = `, ${result.statted ?? 'all'} files statted`;
  return ` (${result.added} written, ${result.removed} removed${statted}, ${result.ms} ms)`;
}
