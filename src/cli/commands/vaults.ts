import { addVault, listVaults, registryPath, removeVault } from '../../core/vault-registry.js';
import { printJson, printLine } from '../output.js';

/** `vaultkeeper vaults add|list|remove`: names for the vaults one MCP server serves (docs/integrations.md). */
export async function add(name: string, folder: string | undefined, opts: { json?: boolean }): Promise<void> {
  const entry = await addVault(name, folder ?? '.');
  if (opts.json) return printJson(entry);
  printLine(`${entry.name}  ${entry.path}`);
}

export async function list(opts: { json?: boolean }): Promise<void> {
  const vaults = await listVaults();
  if (opts.json) return printJson({ registry: registryPath(), vaults });
  if (vaults.length === 0) printLine(`no vaults named yet (${registryPath()}); add one with: vaultkeeper vaults add NAME PATH`);
  for (const v of vaults) printLine(`${v.name}  ${v.path}`);
}

export async function remove(name: string, opts: { json?: boolean }): Promise<void> {
  const entry = await removeVault(name);
  if (opts.json) return printJson(entry);
  printLine(`removed ${entry.name} (${entry.path}); the vault itself is unchanged`);
}
