/** A real temp vault, made by the real init, for tests of the library. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { initVault } from '../../src/vault/init.js';
import { openVault, type Vault } from '../../src/vault/vault.js';
import { writeTree } from './tmp.js';

export interface TestVaultOptions {
  /** Extra config.yaml content (replaces the template's). */
  config?: string;
  files?: Record<string, string | Uint8Array>;
  env?: NodeJS.ProcessEnv;
}

export async function makeVault(dir: string, options: TestVaultOptions = {}): Promise<Vault> {
  const root = path.join(dir, 'vault');
  await initVault(root);
  if (options.config !== undefined) await writeFile(path.join(root, '.vaultkeeper/config.yaml'), options.config);
  if (options.files !== undefined) await writeTree(root, options.files);
  return openVault({ vault: root, env: { ...process.env, VAULTKEEPER_EMBEDDER: undefined, ...options.env } });
}
