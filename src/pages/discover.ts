/**
 * Which files of a vault are wiki pages (DESIGN §2): every `.md` file outside logs/ and hidden
 * folders, other than the root files the program writes. Names may hold spaces.
 */
import { readdirSync, type Dirent } from 'node:fs';
import { stat } from 'node:fs/promises';
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
 * The vault's wiki pages as relative POSIX paths, sorted. Links to folders are not followed (they repeat
 * what is listed already, or loop); a link to a markdown file is a page, read but never rewritten when
 * it leads out of the vault (DESIGN §9).
 */
export async function listWikiPages(root: string): Promise<string[]> {
  const pages: string[] = [];
  const pending = [''];
  for (let rel = pending.pop(); rel !== undefined; rel = pending.pop()) {
    let entries: Dirent[];
    try {
      // Synchronous: a folder at a time through the thread pool made the listing a chain of round trips, slow on a
      // busy machine (the freshness check before every search lists the vault; docs/benchmarks.md).
      entries = readdirSync(rel === '' ? root : path.join(root, rel), { withFileTypes: true });
    } catch (error) {
      if (rel === '' && (error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      // The vault root must be readable; a folder that vanished or is not readable is skipped.
      if (rel === '') throw error;
      continue;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const entryRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== SKIPPED_DIR && !(rel === '' && entry.name === LOGS_DIR)) pending.push(entryRel);
      } else if (entry.isFile() && isWikiPagePath(entryRel)) {
        pages.push(entryRel);
      } else if (entry.isSymbolicLink() && isWikiPagePath(entryRel) && (await isLinkedFile(path.join(root, entryRel)))) {
        // A note linked in (an Obsidian habit) is read and indexed; writers never rewrite it (vault/confine).
        pages.push(entryRel);
      }
    }
  }
  return pages.sort();
}

async function isLinkedFile(abs: string): Promise<boolean> {
  return stat(abs).then((info) => info.isFile(), () => false);
}
