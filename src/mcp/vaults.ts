/**
 * The vaults one MCP server serves, by name: the vault it was started on (the default) and the vaults named in
 * the registry (core/vault-registry.ts). Each is opened once, on first use, as its own Vault: its own config,
 * lock, git and index. A tool's optional `vault` picks one; memory_search's "all" spans every one.
 */
import { VaultkeeperError } from '../core/errors.js';
import type { Vault } from '../vault/vault.js';

export const ALL_VAULTS = 'all';

export interface VaultEntry {
  name: string;
  path: string;
}

export class ServedVaults {
  private readonly opened = new Map<string, Promise<Vault>>();

  /**
   * @param entries the served vaults, the default first
   * @param open opens a vault at a path (the caller attaches what a long-lived process needs, e.g. its idle fold)
   */
  constructor(
    readonly entries: readonly VaultEntry[],
    private readonly open: (path: string) => Promise<Vault>,
    first?: Vault,
  ) {
    if (entries.length === 0) throw new VaultkeeperError('VK_USAGE', 'no vault to serve', { exitCode: 2, hint: 'run it inside a vault, give --vault PATH, or name one with: vaultkeeper vaults add NAME PATH' });
    if (first !== undefined) this.opened.set(entries[0]!.name, Promise.resolve(first));
  }

  get names(): string[] {
    return this.entries.map((e) => e.name);
  }

  get defaultName(): string {
    return this.entries[0]!.name;
  }

  /** The vault named (default: the server's default), or a usage error listing the names. */
  get(name: string | undefined): Promise<Vault> {
    const entry = name === undefined ? this.entries[0]! : this.entries.find((e) => e.name === name);
    if (entry === undefined) {
      return Promise.reject(new VaultkeeperError('VK_USAGE', `no vault named '${name}' is served here`, { exitCode: 2, hint: `vault is one of: ${this.names.join(', ')}` }));
    }
    let vault = this.opened.get(entry.name);
    if (vault === undefined) {
      vault = this.open(entry.path);
      // A vault that failed to open is tried again on the next call rather than failing every call.
      vault.catch(() => this.opened.delete(entry.name));
      this.opened.set(entry.name, vault);
    }
    return vault;
  }

  /** The vaults opened so far (to close them). */
  async openedVaults(): Promise<Vault[]> {
    const settled = await Promise.allSettled(this.opened.values());
    return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  }
}

/**
 * The served list: the vault the server was started on (null when none was found), under its registered name or
 * "default", then every other registered vault.
 */
export function servedEntries(started: string | null, registered: readonly VaultEntry[]): VaultEntry[] {
  if (started === null) return [...registered];
  const own = registered.find((v) => v.path === started);
  const taken = new Set(registered.map((v) => v.name));
  let name = own?.name ?? 'default';
  for (let i = 2; own === undefined && taken.has(name); i++) name = `default-${i}`;
  return [{ name, path: started }, ...registered.filter((v) => v !== own)];
}

/** The search the served vaults run, from their config: full text unless an embedder is set (DESIGN: the default is full text). */
export async function searchMode(vaults: ServedVaults): Promise<string> {
  const embedders = new Set<string>();
  for (const name of vaults.names) embedders.add((await vaults.get(name)).ctx.config.index.embedder);
  if (embedders.size === 1 && embedders.has('none')) return 'full-text (BM25)';
  const semantic = [...embedders].filter((e) => e !== 'none').join(', ');
  return embedders.has('none') ? `full-text (BM25), plus semantic (${semantic}) where a vault has an embedder,` : `hybrid full-text and semantic (${semantic})`;
}
