/** Every byte a vault holds: its files (.vaultkeeper/, .git/ and the index raw) and every git object, decompressed. */
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export async function vaultBytes(root: string): Promise<string[]> {
  return [...(await vaultByteMap(root)).values()];
}

/** The same, by where each text came from (a file's path under the vault, or `git objects`): to say where a needle was found. */
export async function vaultByteMap(root: string): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isFile()) texts.set(path.relative(root, file), (await readFile(file)).toString('latin1'));
  }
  // Reachable or not: --batch-all-objects lists loose and packed objects whatever refers to them.
  const { stdout } = await execFileAsync('git', ['cat-file', '--batch-all-objects', '--batch'], { cwd: root, maxBuffer: 512 * 1024 * 1024, encoding: 'latin1' });
  texts.set('git objects', stdout);
  return texts;
}

/** How many times `needle` occurs in the texts (compared as latin1, as the bytes were read). */
export function hits(texts: readonly string[], needle: string): number {
  const bytes = Buffer.from(needle, 'utf8').toString('latin1');
  return texts.reduce((n, t) => n + t.split(bytes).length - 1, 0);
}

/** Where `needle` occurs: the sources of vaultByteMap that hold it. */
export function whereHits(texts: ReadonlyMap<string, string>, needle: string): string[] {
  const bytes = Buffer.from(needle, 'utf8').toString('latin1');
  return [...texts].filter(([, text]) => text.includes(bytes)).map(([where]) => where);
}
