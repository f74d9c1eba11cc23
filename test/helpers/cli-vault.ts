/** A vault made and indexed through the built CLI, for the index tests that crash or bypass a pass. */
import path from 'node:path';
import { runJson } from './cli.js';
import { writeTree } from './tmp.js';

/**
 * A vault in `dir` with two facts on two days, indexed by `reindex` after both `remember`s (whose own passes wrote
 * the table first), so its manifest says every index was probed (`verified`). No embedder: full text only.
 */
export async function twoFactVault(dir: string, env: Record<string, string>): Promise<string> {
  const root = path.join(dir, 'vault');
  await runJson(['init', root], { env });
  await writeTree(root, { '.vaultkeeper/config.yaml': 'timezone: UTC\nindex:\n  embedder: none\n' });
  await runJson(['--vault', root, 'remember', 'Plays the cello on Sundays', '--date', '2026-06-01'], { env });
  await runJson(['--vault', root, 'remember', 'Visits Porto every spring', '--date', '2026-06-02'], { env });
  await runJson(['--vault', root, 'reindex'], { env });
  return root;
}
