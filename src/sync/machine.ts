/** Which machine this is, for `dream.where`: only the named machine dreams a synced vault (issue 28). */
import os from 'node:os';
import type { Config } from '../core/config.js';

/** VAULTKEEPER_MACHINE names the machine where the host name is not stable (containers, CI); else the host name. */
export function machineName(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.VAULTKEEPER_MACHINE?.trim();
  return named !== undefined && named !== '' ? named : os.hostname();
}

/** Why this machine does not dream the vault (another one is named in `dream.where`), or null when it does. */
export function dreamsElsewhere(config: Config, env: NodeJS.ProcessEnv = process.env): string | null {
  const where = config.dream.where.trim();
  if (where === '') return null;
  const here = machineName(env);
  if (where === here) return null;
  return `this vault dreams on ${where} (dream.where), not on ${here}; pages arrive with \`vaultkeeper sync\``;
}
