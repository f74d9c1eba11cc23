/** `doctor --fix`'s first step: the git repository, then the tombstone file, each repaired or said how to. */
import { loadConfig } from '../core/config.js';
import { repairGit } from './git-checks.js';
import { repairTombstones } from './tombstone-fix.js';

export interface StoreRepair {
  actions: string[];
  /** What could not be repaired, each with what to run. */
  remaining: string[];
}

export async function repairStores(root: string): Promise<StoreRepair> {
  const config = await loadConfig(root);
  const git = await repairGit(root, config);
  if (git.remaining.length > 0) return { actions: git.actions, remaining: git.remaining };
  const tombstones = await repairTombstones(root, config);
  return {
    actions: [...git.actions, ...tombstones.restored.map((r) => `restored the tombstone of ${r.id} (.vaultkeeper/tombstones.jsonl:${r.line}) from its damaged line`)],
    remaining: tombstones.remaining,
  };
}
