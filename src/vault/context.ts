/** What every operation on a vault needs: where it is and its configuration, read once per entrypoint. */
import type { Config } from '../core/config.js';
import { loadConfigCached } from '../core/config-cache.js';
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
  return contextFor(root, await loadConfigCached(root, env), env);
}

export function contextFor(root: string, config: Config, env: NodeJS.ProcessEnv = process.env): VaultContext {
  // Resolved when first read: the system's zone costs Intl's start-up, which a search never needs.
  let zone: string | undefined;
  return {
    root,
    config,
    get timeZone() {
      zone ??= resolveTimeZone(config.timezone);
      return zone;
    },
    env,
  };
}
