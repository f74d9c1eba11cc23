/**
 * The registry of vaults one MCP server may serve: names for vault folders, kept outside every vault
 * ($XDG_CONFIG_HOME/vaultkeeper/vaults.json, else ~/.config/vaultkeeper/vaults.json) so that no vault's git
 * holds another's path. Written by temp file + rename: a crash leaves the old list or the new one.
 */
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { VaultkeeperError } from './errors.js';

export interface RegisteredVault {
  name: string;
  /** Absolute path of the vault's root. */
  path: string;
}

const NAME_RE = /^[a-z0-9][a-z0-9_-]{0,39}$/;
const RegistryFile = z.object({ vaults: z.array(z.object({ name: z.string().regex(NAME_RE), path: z.string().min(1) })) });

type Env = Readonly<Record<string, string | undefined>>;

/** vaultkeeper's folder of per-user settings, outside every vault. */
export function userConfigDir(env: Env = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : os.homedir();
  return path.join(xdg !== undefined && xdg !== '' ? xdg : path.join(home, '.config'), 'vaultkeeper');
}

export function registryPath(env: Env = process.env): string {
  return path.join(userConfigDir(env), 'vaults.json');
}

export async function listVaults(env: Env = process.env): Promise<RegisteredVault[]> {
  const file = registryPath(env);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  let parsed: z.infer<typeof RegistryFile>;
  try {
    parsed = RegistryFile.parse(JSON.parse(text));
  } catch {
    throw new VaultkeeperError('VK_CONFIG', `the vault registry ${file} is damaged`, { hint: 'fix its JSON ({"vaults": [{"name": "work", "path": "/abs/path"}]}) or remove it and add the vaults again' });
  }
  return parsed.vaults;
}

async function save(vaults: readonly RegisteredVault[], env: Env): Promise<void> {
  const file = registryPath(env);
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify({ vaults }, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, file);
}

/** Names a vault folder; the folder must be a vault (hold .vaultkeeper/). Returns the entry written. */
export async function addVault(name: string, folder: string, env: Env = process.env): Promise<RegisteredVault> {
  if (!NAME_RE.test(name)) throw new VaultkeeperError('VK_USAGE', `'${name}' is not a vault name`, { exitCode: 2, hint: 'use lower-case letters, digits, - and _, e.g. work' });
  const abs = path.resolve(folder);
  const isVault = await stat(path.join(abs, '.vaultkeeper')).then((info) => info.isDirectory(), () => false);
  if (!isVault) throw new VaultkeeperError('VK_USAGE', `${abs} is not a vault`, { exitCode: 2, hint: `create one with: vaultkeeper init ${abs}` });
  const vaults = await listVaults(env);
  const same = vaults.find((v) => v.name === name);
  if (same !== undefined && same.path !== abs) throw new VaultkeeperError('VK_USAGE', `the name '${name}' is taken by ${same.path}`, { exitCode: 2, hint: `remove it first: vaultkeeper vaults remove ${name}` });
  const entry = { name, path: abs };
  if (same === undefined) await save([...vaults, entry], env);
  return entry;
}

/** Forgets a name (the vault itself is left as it is). Returns the entry removed. */
export async function removeVault(name: string, env: Env = process.env): Promise<RegisteredVault> {
  const vaults = await listVaults(env);
  const entry = vaults.find((v) => v.name === name);
  if (entry === undefined) throw new VaultkeeperError('VK_NOT_FOUND', `no vault named '${name}'`, { hint: 'vaultkeeper vaults list shows the names' });
  await save(vaults.filter((v) => v !== entry), env);
  return entry;
}
