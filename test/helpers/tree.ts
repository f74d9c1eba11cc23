/** Byte-level snapshots of a folder, for "nothing changed" assertions. */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** path → sha256 of every file under root, skipping the named top-level folders. */
export async function hashTree(root: string, skip: readonly string[] = ['.git', '.vaultkeeper']): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name);
      const rel = path.relative(root, abs).split(path.sep).join('/');
      if (skip.includes(rel)) continue;
      if (entry.isDirectory()) await walk(abs);
      else out[rel] = createHash('sha256').update(await readFile(abs)).digest('hex');
    }
  };
  await walk(root);
  return out;
}
