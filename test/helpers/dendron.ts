/** Where the public Dendron notes are (../shared/data, never copied into the repository), for test/data/. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function dendronDir(): string {
  const fromEnv = process.env.VAULTKEEPER_DENDRON_DATA;
  if (fromEnv !== undefined) return fromEnv;
  for (let dir = REPO; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', 'data', 'dendron-vault');
    if (existsSync(candidate)) return candidate;
  }
  throw new Error('no shared/data/dendron-vault above the repository: set VAULTKEEPER_DENDRON_DATA to the Dendron notes');
}
