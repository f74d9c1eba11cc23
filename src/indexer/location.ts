/** Where the index lives: `index.uri`, a path relative to the vault or any URI LanceDB accepts. */
import path from 'node:path';
import type { VaultContext } from '../vault/context.js';

export function indexUri(ctx: VaultContext): string {
  const uri = ctx.config.index.uri;
  return isRemote(uri) ? uri : path.resolve(ctx.root, uri);
}

export function isRemote(uri: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(uri);
}
