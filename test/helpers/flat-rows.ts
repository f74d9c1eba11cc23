/** Rows of a vault's index outside its full-text index (searched flat until a compaction folds them in). */
import path from 'node:path';
import { IndexStore } from '../../src/indexer/store.js';

export async function unindexedRows(root: string): Promise<number> {
  const store = await IndexStore.open(path.join(root, '.vaultkeeper/index'), null);
  return store.unindexedRows().finally(() => store.close());
}

/** Waits up to `ms` for a process to fold the vault's flat rows in; the count left (0 once folded). */
export async function foldedWithin(root: string, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  let unindexed = await unindexedRows(root);
  while (unindexed > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    unindexed = await unindexedRows(root);
  }
  return unindexed;
}
