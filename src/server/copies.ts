/**
 * Each hosted vault's working copy, at DATA/vaults/<tenant>/<vault>: a plain vault (the same files a person's
 * machine keeps) whose `origin` is its canonical copy under VAULTKEEPER_REMOTES, where a person can clone it and
 * open it in Obsidian. A copy missing here (a new volume, another host) is cloned from the remote; a remote
 * missing is created (a bare repository, when the remotes are a folder) and pushed.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { isVaultRoot } from '../vault/locate.js';
import { openVault, type Vault } from '../vault/vault.js';
import { remotesAreLocal, type ServerSettings } from './settings.js';

const run = promisify(execFile);

export interface VaultKey {
  tenant: string;
  name: string;
}

export const copyPath = (settings: ServerSettings, key: VaultKey): string => path.join(settings.data, 'vaults', key.tenant, key.name);

export const remoteOf = (settings: ServerSettings, key: VaultKey): string =>
  remotesAreLocal(settings) ? path.join(settings.remotes, key.tenant, `${key.name}.git`) : `${settings.remotes}/${key.tenant}/${key.name}.git`;

export const indexUriOf = (settings: ServerSettings, key: VaultKey): string | null =>
  settings.indexUriBase === null ? null : `${settings.indexUriBase}/${key.tenant}/${key.name}`;

async function remoteHasCommits(remote: string): Promise<boolean> {
  try {
    const { stdout } = await run('git', ['ls-remote', '--heads', remote], { env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    return stdout.trim() !== '';
  } catch {
    return false;
  }
}

/** Makes the working copy (and, for folder remotes, the bare remote) exist; returns the copy's path. */
export async function ensureCopy(settings: ServerSettings, key: VaultKey): Promise<string> {
  const root = copyPath(settings, key);
  if (isVaultRoot(root)) return root;
  const remote = remoteOf(settings, key);
  if (remotesAreLocal(settings) && !existsSync(path.join(remote, 'HEAD'))) {
    await mkdir(remote, { recursive: true });
    await run('git', ['init', '--bare', '--quiet', '--initial-branch=main', remote]);
  }
  await mkdir(path.dirname(root), { recursive: true });
  if (await remoteHasCommits(remote)) {
    const { cloneVault } = await import('../sync/clone.js');
    await cloneVault(remote, root);
    return root;
  }
  const { initVault } = await import('../vault/init.js');
  await initVault(root);
  const vault = await openCopy(settings, key, root);
  try {
    await vault.sync({ remote });
  } finally {
    await vault.close();
  }
  return root;
}

/**
 * The environment a vault is opened with: its index on object storage when VAULTKEEPER_INDEX_URI_BASE is set, through
 * the `VAULTKEEPER_INDEX_URI` override of `index.uri` (core/config-keys.ts), so nothing of the deployment lands in
 * the vault; the AWS_* variables pass through.
 */
export function vaultEnv(settings: ServerSettings, key: VaultKey, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const uri = indexUriOf(settings, key);
  return uri === null ? env : { ...env, VAULTKEEPER_INDEX_URI: uri };
}

export const openCopy = (settings: ServerSettings, key: VaultKey, root: string): Promise<Vault> => openVault({ vault: root, env: vaultEnv(settings, key) });

/** The opened vaults of one process, one Vault per working copy (its config read once, its index handle kept). */
export class OpenVaults {
  private readonly opened = new Map<string, Promise<Vault>>();

  constructor(private readonly settings: ServerSettings) {}

  get(key: VaultKey): Promise<Vault> {
    const id = `${key.tenant}/${key.name}`;
    let vault = this.opened.get(id);
    if (vault === undefined) {
      vault = ensureCopy(this.settings, key).then((root) => openCopy(this.settings, key, root));
      vault.catch(() => this.opened.delete(id));
      this.opened.set(id, vault);
    }
    return vault;
  }

  async closeAll(): Promise<void> {
    const settled = await Promise.allSettled(this.opened.values());
    await Promise.all(settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.close().catch(() => undefined)] : [])));
    this.opened.clear();
  }
}
