/**
 * Each hosted vault's working copy, at DATA/vaults/<tenant>/<vault>: a plain vault (the same files a person's
 * machine keeps) whose `origin` is its canonical copy under VAULTKEEPER_REMOTES, where a person can clone it and
 * open it in Obsidian. A copy missing here (a new volume, another host) is cloned from the remote; a remote
 * missing is created (a bare repository, when the remotes are a folder) and pushed.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseDocument } from 'yaml';
import { CONFIG_FILE } from '../core/config-keys.js';
import { withWriteLock } from '../core/lock.js';
import { commitPaths } from '../git/audit.js';
import { isVaultRoot } from '../vault/locate.js';
import { openVault, type Vault } from '../vault/vault.js';
import { writeConfined } from '../vault/confined-write.js';
import { loadConfig } from '../core/config.js';
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
  const uri = indexUriOf(settings, key);
  if (uri !== null) await setIndexUri(root, uri);
  const vault = await openVault({ vault: root });
  try {
    await vault.sync({ remote });
  } finally {
    await vault.close();
  }
  return root;
}

/** Puts the vault's index on object storage: `index.uri` in its config (a URL, no credential), one commit. */
async function setIndexUri(root: string, uri: string): Promise<void> {
  const file = path.join(root, CONFIG_FILE);
  const doc = parseDocument(await readFile(file, 'utf8'));
  doc.setIn(['index', 'uri'], uri);
  const config = await loadConfig(root);
  await withWriteLock(root, async (lock) => {
    await writeConfined(root, CONFIG_FILE, doc.toString());
    await commitPaths(lock, config, { op: 'config', subject: 'config: the index lives on object storage (server)', body: `index.uri: ${uri}`, paths: [CONFIG_FILE] });
  });
}

/** The opened vaults of one process, one Vault per working copy (its config read once, its index handle kept). */
export class OpenVaults {
  private readonly opened = new Map<string, Promise<Vault>>();

  constructor(private readonly settings: ServerSettings) {}

  get(key: VaultKey): Promise<Vault> {
    const id = `${key.tenant}/${key.name}`;
    let vault = this.opened.get(id);
    if (vault === undefined) {
      vault = ensureCopy(this.settings, key).then((root) => openVault({ vault: root }));
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
