/** `vaultkeeper clone REMOTE PATH`: a second machine joins a synced vault (issue 28). The caller builds its index. */
import { access, rm } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE } from '../core/config-keys.js';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import { gitRunner } from '../git/run.js';
import { installMergeDriver } from './sync.js';

export async function cloneVault(remote: string, target: string): Promise<string> {
  const root = path.resolve(target);
  const existed = await access(root).then(() => true, () => false);
  try {
    await gitRunner(path.dirname(root)).raw(['clone', '--quiet', remote, root]);
  } catch (error) {
    throw new VaultkeeperError('VK_SYNC_REMOTE', `cannot clone ${remote}: ${errorMessage(error).split('\n')[0]}`, {
      hint: existed ? 'the target must be a new or empty folder' : 'check the remote (a bare git repository or any git URL)',
    });
  }
  if (!(await access(path.join(root, CONFIG_FILE)).then(() => true, () => false))) {
    // Only what this command made is removed: a folder that was there before keeps whatever git left in it.
    if (!existed) await rm(root, { recursive: true, force: true });
    throw new VaultkeeperError('VK_SYNC_NOT_VAULT', `${remote} holds no vaultkeeper vault (no ${CONFIG_FILE})`, {
      hint: 'push a vault to it first: vaultkeeper sync --remote URL, on the machine that has the vault',
    });
  }
  await installMergeDriver(gitRunner(root));
  return root;
}
