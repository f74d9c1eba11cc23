/**
 * Confinement for every program write (DESIGN §9: no program write leaves the vault's real path). One
 * module, used by the dream agent's tools and by every other writer:
 *
 * - the program's own files (fact logs, tombstones, state under .vaultkeeper/, the root files the runner
 *   writes, run logs, scratch trees) go through `confinedPath`: the path as written must be the real
 *   path, so a link anywhere below the vault root (a symlinked log, logs/ folder, .vaultkeeper/ or state
 *   file) is refused with a one-line error that names the link and the fix;
 * - wiki pages go through `pageWriteTarget`: a page that is a link inside the vault is written where the
 *   link points, and a page that resolves outside the vault is read but never rewritten.
 *
 * The containment test is pure and compares against `root + sep`, in the filesystem MCP server's pattern.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { VaultkeeperError } from '../core/errors.js';

/** True when `candidate` is `root` or lies under it. Pure: compares resolved paths against `root + sep`. */
export function isWithin(root: string, candidate: string): boolean {
  if (root.includes('\0') || candidate.includes('\0')) return false;
  const base = path.resolve(root);
  const target = path.resolve(candidate);
  if (target === base) return true;
  return target.startsWith(base.endsWith(path.sep) ? base : base + path.sep);
}

/**
 * The rules every vault-relative path follows, whoever reads or writes it (the dream's tools, MCP's
 * memory_read, the program's writers): no NUL, nothing absolute or home-relative, `/` separators, no `..`.
 * Null when it passes.
 */
export function relativePathProblem(rel: string, example: string): { reason: 'invalid_path' | 'outside_vault'; hint: string } | null {
  if (rel.includes('\0')) return { reason: 'invalid_path', hint: `a path cannot hold a NUL byte; ${example}` };
  if (rel.startsWith('/') || rel.startsWith('~') || /^[A-Za-z]:/.test(rel) || rel.startsWith('\\\\')) {
    return { reason: 'outside_vault', hint: `paths are relative to the vault, ${example}` };
  }
  if (rel.includes('\\')) return { reason: 'invalid_path', hint: `use / between folders, not \\; ${example}` };
  if (rel.split('/').includes('..')) return { reason: 'outside_vault', hint: `'..' is not allowed: paths are relative to the vault, ${example}` };
  return null;
}

/** A program write refused because the path is a link, or a file where a folder belongs (or the reverse). */
export class ConfinementError extends VaultkeeperError {
  constructor(code: 'VK_SYMLINK' | 'VK_NOT_A_FOLDER' | 'VK_NOT_A_FILE' | 'VK_OUTSIDE_VAULT', message: string, hint: string) {
    super(code, message, { hint });
    this.name = 'ConfinementError';
  }
}

interface Entry {
  isSymbolicLink(): boolean;
  isDirectory(): boolean;
}

/** Checks one existing path segment; `last` is the file itself. Throws when the write may not go there. */
function checkEntry(rel: string, prefix: string, info: Entry, last: boolean, kind: 'file' | 'folder'): void {
  if (info.isSymbolicLink()) {
    throw new ConfinementError(
      'VK_SYMLINK',
      prefix === rel ? `${rel} is a symbolic link; vaultkeeper does not write through links` : `${prefix} is a symbolic link; vaultkeeper does not write ${rel} through it`,
      `replace the link with a real ${last && kind === 'file' ? 'file' : 'folder'} inside the vault (e.g. copy the target over it), then run the command again`,
    );
  }
  if (!last && !info.isDirectory()) {
    throw new ConfinementError('VK_NOT_A_FOLDER', `${prefix} is a file where vaultkeeper keeps a folder (for ${rel})`, `move ${prefix} away, then run the command again`);
  }
  if (last && kind === 'file' && info.isDirectory()) {
    throw new ConfinementError('VK_NOT_A_FILE', `${prefix} is a folder where vaultkeeper writes a file`, `move the folder ${prefix} away, then run the command again`);
  }
  if (last && kind === 'folder' && !info.isDirectory()) {
    throw new ConfinementError('VK_NOT_A_FOLDER', `${prefix} is a file where vaultkeeper keeps a folder`, `move ${prefix} away, then run the command again`);
  }
}

function segmentsOf(rel: string): string[] {
  const problem = relativePathProblem(rel, 'e.g. logs/2026-06-09.md');
  if (problem !== null || rel === '') throw new ConfinementError('VK_OUTSIDE_VAULT', `'${rel}' is not a path inside the vault`, problem?.hint ?? 'name a file inside the vault');
  return rel.split('/').filter((s) => s !== '' && s !== '.');
}

/**
 * The absolute path at which the program may write its own file `rel` (vault-relative, `/` separators):
 * the vault's real path joined with `rel`, after checking that no existing segment below the root is a
 * link, no folder on the way is a file and the file itself is not a folder. Missing folders are fine
 * (the caller creates them, as real folders). The vault root itself may be a link.
 */
export async function confinedPath(root: string, rel: string, kind: 'file' | 'folder' = 'file'): Promise<string> {
  const segments = segmentsOf(rel);
  const realRoot = await realpath(root);
  let current = realRoot;
  for (const [index, segment] of segments.entries()) {
    current = path.join(current, segment);
    let info: Entry;
    try {
      info = await lstat(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') break;
      throw error;
    }
    checkEntry(rel, segments.slice(0, index + 1).join('/'), info, index === segments.length - 1, kind);
  }
  return path.join(realRoot, ...segments);
}

/** `confinedPath` for the few synchronous writers (the daemon's log, whose lines must survive a crash). */
export function confinedPathSync(root: string, rel: string, kind: 'file' | 'folder' = 'file'): string {
  const segments = segmentsOf(rel);
  const realRoot = realpathSync(root);
  let current = realRoot;
  for (const [index, segment] of segments.entries()) {
    current = path.join(current, segment);
    let info: Entry;
    try {
      info = lstatSync(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') break;
      throw error;
    }
    checkEntry(rel, segments.slice(0, index + 1).join('/'), info, index === segments.length - 1, kind);
  }
  return path.join(realRoot, ...segments);
}

export type PageTarget = { ok: true; abs: string; rel: string; exists: boolean } | { ok: false; reason: 'outside_vault' | 'broken_link' | 'invalid_path' | 'forbidden'; hint: string };

/**
 * The real path of `abs`: its own when it exists, else its nearest existing parent's plus the missing
 * names. A link that resolves nowhere is refused rather than replaced.
 */
export async function resolveReal(
  realRoot: string,
  abs: string,
  example = 'e.g. 2_Areas/coffee.md',
): Promise<{ real: string; exists: boolean } | { ok: false; reason: 'broken_link' | 'invalid_path'; hint: string }> {
  const toRel = (p: string): string => path.relative(realRoot, p).split(path.sep).join('/');
  try {
    await lstat(abs);
    try {
      return { real: await realpath(abs), exists: true };
    } catch {
      return { ok: false, reason: 'broken_link', hint: `${toRel(abs)} is a link that points nowhere; write a different page, ${example}` };
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return { ok: false, reason: 'invalid_path', hint: `a folder in '${toRel(abs)}' is a file; call list_pages to see the folders` };
    if (code !== 'ENOENT') throw error;
  }
  const missing = [path.basename(abs)];
  let parent = path.dirname(abs);
  for (;;) {
    try {
      await lstat(parent);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') return { ok: false, reason: 'invalid_path', hint: `a folder in '${toRel(abs)}' is a file; call list_pages to see the folders` };
      if (code !== 'ENOENT' || parent === realRoot) throw error;
      missing.unshift(path.basename(parent));
      parent = path.dirname(parent);
      continue;
    }
    let realParent: string;
    try {
      realParent = await realpath(parent);
    } catch {
      return { ok: false, reason: 'broken_link', hint: `the folder ${toRel(parent)} is a link that points nowhere; write the page elsewhere, ${example}` };
    }
    return { real: path.join(realParent, ...missing), exists: false };
  }
}

/**
 * Where the program may write the page `rel` of the vault (or scratch tree) at `root`: its real path
 * when that lies inside the root, so a page linked in from elsewhere (an Obsidian habit) is read but never
 * rewritten. Lexical rules (which paths are pages) are the caller's.
 */
export async function pageWriteTarget(root: string, rel: string): Promise<PageTarget> {
  const problem = relativePathProblem(rel, 'e.g. 2_Areas/coffee.md');
  if (problem !== null) return { ok: false, ...problem };
  const realRoot = await realpath(root);
  const abs = path.join(realRoot, ...rel.split('/'));
  if (!isWithin(realRoot, abs)) return { ok: false, reason: 'outside_vault', hint: `${rel} is outside the vault` };
  const resolved = await resolveReal(realRoot, abs);
  if ('ok' in resolved) return resolved;
  if (!isWithin(realRoot, resolved.real) || resolved.real === realRoot) {
    return { ok: false, reason: 'outside_vault', hint: `${rel} is a link that leads outside the vault; it is read but never rewritten` };
  }
  const realRel = path.relative(realRoot, resolved.real).split(path.sep).join('/');
  const segments = realRel.split('/');
  if (segments[0] === 'logs' || segments.some((s) => s.startsWith('.'))) {
    return { ok: false, reason: 'forbidden', hint: `${rel} is a link to ${realRel}, which is not a wiki page; it is read but never rewritten` };
  }
  return { ok: true, abs: resolved.real, rel: realRel, exists: resolved.exists };
}
