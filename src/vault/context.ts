/** What every operation on a vault needs: where it is and its configuration, read once per entrypoint. */
import { loadConfig, type Config } from '../core/config.js';
import { resolveTimeZone } from '../core/clock.js';
import { locateVault, type LocateOptions } from './locate.js';

export interface VaultContext {
  readonly root: string;
  readonly config: Config;
  /** The resolved IANA time zone (config `timezone`, "system" resolved). */
  readonly timeZone: string;
  readonly env: NodeJS.ProcessEnv;
}

export async function loadContext(options: LocateOptions = {}): Promise<VaultContext> {
  const env = options.env ?? process.env;
  const root = locateVault(options);
  const config = await loadConfig(root, env);
  return { root, config, timeZone: resolveTimeZone(config.timezone), env };
}

export function contextFor(root: string, config: Config, env: NodeJS.ProcessEnv = process.env): VaultContext {
  return { root, config, timeZone: resolveTimeZone(config.timezone), env };
}
