/**
 * The vault's config as last validated, kept in `.vaultkeeper/cache/config.json` with the key it was
 * validated under (the file's text, the validator's build, the Node version). Every command reads the
 * config; parsing YAML and loading the validator (zod) cost more than the rest of a quick command's start,
 * so they load only when the config changed. Not used while an environment override applies: an override
 * may carry what must never be written into the vault (a URL with credentials), and it is cheap to skip.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_FILE, ENV_OVERRIDES } from './config-keys.js';
import type { Config } from './config.js';

export const CONFIG_CACHE_FILE = '.vaultkeeper/cache/config.json';

/** The validated config of the vault, from the cache when its key still holds, else parsed, validated and cached. */
export async function loadConfigCached(root: string, env: NodeJS.ProcessEnv = process.env): Promise<Config> {
  const overridden = Object.keys(ENV_OVERRIDES).some((name) => env[name] !== undefined && env[name] !== '');
  if (overridden) return (await import('./config.js')).loadConfig(root, env);
  let text = '';
  try {
    text = await readFile(path.join(root, CONFIG_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = await cacheKey(text);
  const cached = await readFile(path.join(root, CONFIG_CACHE_FILE), 'utf8').then(
    (json) => JSON.parse(json) as { key?: unknown; config?: Config },
    () => null,
  );
  if (cached !== null && cached.key === key && typeof cached.config === 'object' && cached.config !== null) return cached.config;
  const { parseConfigText } = await import('./config.js');
  const config = parseConfigText(text, CONFIG_FILE, env);
  // A cache that cannot be written (a read-only vault) only costs the next command the validation again.
  const { writeConfined } = await import('../vault/confined-write.js');
  await writeConfined(root, CONFIG_CACHE_FILE, JSON.stringify({ key, config })).catch(() => undefined);
  return config;
}

/**
 * Changes with the config's text and with the validator that accepted it (another build of config.js, another
 * Node). The validator is known by its bytes, not its mtime: npm gives every file of a package the same
 * mtime, so an upgrade could bring a config.js of the same size and time (reading it costs well under 1 ms).
 */
async function cacheKey(text: string): Promise<string> {
  // config.ts when the sources run directly (tests); in the CLI bundle, dist/bin/config.js beside its chunks.
  const validator = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './config.ts' : './config.js', import.meta.url));
  const code = await readFile(validator).catch(() => Buffer.from('unknown'));
  return createHash('sha256').update(`${process.version}\u0000${validator}\u0000`).update(code).update(`\u0000${text}`).digest('base64url');
}
