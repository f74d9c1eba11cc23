/** Finding the vault: `--vault PATH`, else `VAULTKEEPER_VAULT`, else the nearest enclosing vault. */
import { statSync } from 'node:fs';
import path from 'node:path';
import { VaultkeeperError } from '../core/errors.js';

export const STATE_DIR = '.vaultkeeper';

export function isVaultRoot(dir: string): boolean {
  try {
    return statSync(path.join(dir, STATE_DIR)).isDirectory();
  } catch {
    return false;
  }
}

export interface LocateOptions {
  vault?: string | undefined;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export function locateVault(options: LocateOptions = {}): string {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const explicit = options.vault ?? (env.VAULTKEEPER_VAULT === '' ? undefined : env.VAULTKEEPER_VAULT);
  if (explicit !== undefined) {
    const root = path.resolve(cwd, explicit);
    if (!isVaultRoot(root)) {
      const from = options.vault !== undefined ? '--vault' : 'VAULTKEEPER_VAULT';
      throw new VaultkeeperError('VK_NO_VAULT', `not a vaultkeeper vault: ${root} (from ${from})`, {
        hint: `create one with \`vaultkeeper init ${explicit}\``,
      });
    }
    return root;
  }
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (isVaultRoot(dir)) return dir;
    if (path.dirname(dir) === dir) break;
  }
  throw new VaultkeeperError('VK_NO_VAULT', 'no vault here: neither this folder nor any above it holds .vaultkeeper/', {
    hint: 'pass --vault PATH, set VAULTKEEPER_VAULT, or create one with `vaultkeeper init PATH`',
  });
}
