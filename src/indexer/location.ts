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

/**
 * The index location as the manifest records it: relative to the vault when the index is inside it (the default,
 * `.vaultkeeper/index`), so a vault moved or copied whole keeps its index instead of rebuilding it (90 s at a
 * million facts); any other location as it resolves.
 */
export function recordedUri(root: string, uri: string): string {
  if (isRemote(uri)) return uri;
  const rel = path.relative(root, uri);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? uri : rel.split(path.sep).join('/');
}

/** True when a manifest's recorded location is `uri`'s: as recordedUri writes it, or as absolute as manifests held it before. */
export function sameLocation(recorded: string, root: string, uri: string): boolean {
  return recorded === recordedUri(root, uri) || recorded === uri;
}
