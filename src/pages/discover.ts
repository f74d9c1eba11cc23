/**
 * Which files of a vault are wiki pages (DESIGN §2): every `.md` file outside logs/ and hidden
 * folders, other than the root files the program writes. Names may hold spaces.
 */
import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** Root files that are not pages: the program writes them (schema.md is the vault's conventions). */
export const ROOT_FILES: readonly string[] = ['schema.md', 'index.md', 'log.md', 'MEMORY.md'];
const LOGS_DIR = 'logs';
/** Skipped anywhere: a folder of packages is never notes, and walking it costs. */
const SKIPPED_DIR = 'node_modules';

/** True when `rel`, a vault-relative POSIX path, names a wiki page. */
export function isWikiPagePath(rel: string): boolean {
  if (!rel.endsWith('.md') || rel.includes('\\') || rel.includes('\0')) return false;
  const segments = rel.split('/');
  if (segments.some((segment) => segment === '' || segment === '..' || segment.startsWith('.') || segment === SKIPPED_DIR)) return false;
  if (segments.length === 1) return !ROOT_FILES.includes(rel);
  return segments[0] !== LOGS_DIR;
}

/**
 * The vault's wiki pages as relative POSIX paths, sorted. Symbolic links are followed only while
 * they stay inside the vault, and each real folder is walked once, so a link cannot loop or escape.
 */
export async function listWikiPages(root: string): Promise<string[]> {
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const pages: string[] = [];
  const walked = new Set<string>([realRoot]);
  const pending: Array<{ real: string; rel: string }> = [{ real: realRoot, rel: '' }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    let entries: Dirent[];
    try {
      entries = await readdir(next.real, { withFileTypes: true });
    } catch (error) {
      // The vault root must be readable; a folder that vanished or is not readable is skipped.
      if (next.rel === '') throw error;
      continue;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const rel = next.rel === '' ? entry.name : `${next.rel}/${entry.name}`;
      let real = path.join(next.real, entry.name);
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        const target = await linkTarget(real, realRoot);
        if (target === null) continue;
        ({ real, isDirectory, isFile } = target);
      }
      if (isDirectory) {
        if (entry.name === SKIPPED_DIR || (next.rel === '' && entry.name === LOGS_DIR) || walked.has(real)) continue;
        walked.add(real);
        pending.push({ real, rel });
      } else if (isFile && isWikiPagePath(rel)) {
        pages.push(rel);
      }
    }
  }
  return pages.sort();
}

/** Where a symbolic link leads, or null when it is broken or leads out of the vault. */
async function linkTarget(link: string, realRoot: string): Promise<{ real: string; isDirectory: boolean; isFile: boolean } | null> {
  try {
    const real = await realpath(link);
    const inside = realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep;
    if (real !== realRoot && !real.startsWith(inside)) return null;
    const info = await stat(real);
    return { real, isDirectory: info.isDirectory(), isFile: info.isFile() };
  } catch {
    return null;
  }
}
