/**
 * The program's own writes, each through the confinement guard (confine.ts): a whole file replaced
 * atomically, a line appended, a folder made. Every writer of a program file under the vault (state,
 * caches, manifests, generated pages) uses these, so none follows a link out of the vault.
 */
import { closeSync, constants, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../dream/tools/atomic.js';
import { confinedPath, confinedPathSync } from './confine.js';

/** Replaces the program file `rel` of the vault at `root` (temp file opened with O_EXCL, then renamed); returns its path. */
export async function writeConfined(root: string, rel: string, content: string | Uint8Array): Promise<string> {
  const file = await confinedPath(root, rel);
  await writeFileAtomic(file, content);
  return file;
}

/** Appends to the program file `rel`; O_NOFOLLOW refuses a link swapped in after the check. Returns its path. */
export async function appendConfined(root: string, rel: string, text: string, mode = 0o644): Promise<string> {
  const file = await confinedPath(root, rel);
  await mkdir(path.dirname(file), { recursive: true });
  const handle = await open(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, mode);
  try {
    await handle.writeFile(text, 'utf8');
  } finally {
    await handle.close();
  }
  return file;
}

/**
 * `appendConfined`, synchronously: for a line written on a command's way out (a search's recall record), where
 * the six thread-pool round trips of the other cost more than the writes, most on a busy machine (docs/benchmarks.md).
 */
export function appendConfinedSync(root: string, rel: string, text: string, mode = 0o644): string {
  const file = confinedPathSync(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, mode);
  try {
    writeFileSync(fd, text, 'utf8');
  } finally {
    closeSync(fd);
  }
  return file;
}

/** Makes the program folder `rel` (and its parents) as real folders; returns its path. */
export async function mkdirConfined(root: string, rel: string, mode?: number): Promise<string> {
  const dir = await confinedPath(root, rel, 'folder');
  await mkdir(dir, { recursive: true, ...(mode === undefined ? {} : { mode }) });
  return dir;
}
