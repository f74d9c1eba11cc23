/** `vaultkeeper init`: a new vault from vault-template/, a git repository and its first commit. */
import { cp, mkdir, readdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { localStamp, resolveTimeZone } from '../core/clock.js';
import { parseConfigText, CONFIG_FILE, type Config } from '../core/config.js';
import { VaultkeeperError } from '../core/errors.js';
import { withWriteLock } from '../core/lock.js';
import { packageFile } from '../core/package-files.js';
import { commitPaths, initRepo } from '../git/audit.js';
import { isVaultRoot } from './locate.js';
import { readFile } from 'node:fs/promises';

/** vault-template/ sits at the package root. */
export const TEMPLATE_DIR = packageFile('vault-template');

export interface InitResult {
  root: string;
  commit: string | null;
}

export async function initVault(target: string): Promise<InitResult> {
  const root = path.resolve(target);
  if (isVaultRoot(root)) {
    throw new VaultkeeperError('VK_EXISTS', `${root} is already a vaultkeeper vault; nothing was changed`, {
      hint: 'use it as it is, or choose another folder',
    });
  }
  const entries = await readdir(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    if (error.code === 'ENOTDIR') {
      throw new VaultkeeperError('VK_NOT_DIR', `${root} is a file, not a folder`, { hint: 'choose a new or empty folder' });
    }
    throw error;
  });
  if (entries.length > 0) {
    throw new VaultkeeperError('VK_NOT_EMPTY', `${root} is not empty (${entries.length} entries); init never writes over existing files`, {
      hint: 'choose a new or empty folder',
    });
  }
  await makeRoot(root);
  // Not through confine.ts: the folder was just found empty (or made), so no link can stand on the way.
  await cp(TEMPLATE_DIR, root, { recursive: true });
  // npm drops files named .gitignore from packages, so the template ships it without the dot.
  await rename(path.join(root, 'gitignore'), path.join(root, '.gitignore'));
  await stat(path.join(root, CONFIG_FILE));
  const config = parseConfigText(await readFile(path.join(root, CONFIG_FILE), 'utf8'), CONFIG_FILE);
  await writeInitialMemory(root, config);
  await initRepo(root);
  const commit = await withWriteLock(root, (lock) =>
    commitPaths(lock, config, {
      op: 'init',
      subject: 'init: new vaultkeeper vault',
      body: 'Created from vault-template: zones, schema.md, index.md, log.md, MEMORY.md and .vaultkeeper/config.yaml.',
      paths: ['.'],
    }),
  );
  return { root, commit };
}

/**
 * MEMORY.md as the program regenerates it (the template's copy is only a stand-in), so the daemon's first
 * promote finds nothing to commit. Lazy: the generator loads the page parser.
 */
export async function writeInitialMemory(root: string, config: Config): Promise<void> {
  const { writeMemory } = await import('../dream/memory.js');
  await writeMemory(root, root, 'none', { maxLines: config.dream.memory_lines, today: localStamp(new Date(), resolveTimeZone(config.timezone)).date });
}

/**
 * Creates the vault folder. The last folder is made on its own, so a place where no folder can be made
 * (e.g. /proc/x, where a recursive mkdir retries forever) fails at once with one line.
 */
async function makeRoot(root: string): Promise<void> {
  const missing: string[] = [];
  let at = path.resolve(root);
  while (!(await stat(at).then(() => true, () => false))) {
    missing.unshift(at);
    const parent = path.dirname(at);
    if (parent === at) break;
    at = parent;
  }
  try {
    for (const folder of missing) {
      await mkdir(folder).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new VaultkeeperError('VK_INIT_FOLDER', `cannot create the folder ${root} (${code})`, { hint: 'choose a folder you can write to, e.g. ~/vault' });
  }
}
