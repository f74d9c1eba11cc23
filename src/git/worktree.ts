/**
 * Scratch git worktrees for the dream: a run writes there, is checked there, and only then reaches the
 * vault. A failed or crashed run leaves the vault untouched; its worktree is pruned on the next run.
 */
import { spawn } from 'node:child_process';
import { lstat, readdir, readFile, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import { simpleGit } from 'simple-git';
import { withLock } from '../core/lock.js';
import { GIT_FSYNC_CONFIG } from './run.js';

const git = (root: string) => simpleGit({ baseDir: root, trimmed: false, config: [...GIT_FSYNC_CONFIG, 'core.quotepath=false', 'commit.gpgsign=false'] });

export async function headCommit(root: string): Promise<string> {
  return (await git(root).raw(['rev-parse', 'HEAD'])).trim();
}

export async function addWorktree(root: string, dir: string, commit: string): Promise<void> {
  await git(root).raw(['worktree', 'prune']);
  await git(root).raw(['worktree', 'add', '--detach', '--quiet', dir, commit]);
}

/** Commits everything in a scratch worktree (detached, so no branch moves); returns the commit. */
export async function commitScratch(dir: string, message: string): Promise<string> {
  const g = simpleGit({ baseDir: dir, config: [...GIT_FSYNC_CONFIG, 'user.name=vaultkeeper', 'user.email=vaultkeeper@localhost', 'commit.gpgsign=false'] });
  await g.raw(['add', '--all']);
  await g.raw(['commit', '--quiet', '--no-verify', '--allow-empty', '-m', message]);
  return (await g.raw(['rev-parse', 'HEAD'])).trim();
}

/** Where the dream's scratch trees live, in the vault. */
export const WORKTREES_DIR = '.vaultkeeper/worktrees';
/** The one scratch tree a run that went through leaves for the next (checkoutScratch). */
export const SCRATCH_TREE = 'scratch';

/**
 * The run's scratch tree `dir` at `commit`. The tree the last run that went through left there (its files are the
 * vault's at that commit) is brought to `commit` with a hard reset and a clean: git writes only the files that
 * differ, where a new worktree wrote every page of the vault and its removal deleted them all, on every run
 * (issue 31). Anything else at `dir` (a crash's leftovers git cannot reset, a folder that is not this
 * repository's worktree) is removed and the tree made afresh.
 */
export async function checkoutScratch(root: string, dir: string, commit: string): Promise<void> {
  if (await isWorktreeOf(root, dir)) {
    try {
      await git(dir).raw(['reset', '--hard', '--quiet', commit]);
      // -x too: nothing a consolidator left, ignored or not, stays for the next run.
      await git(dir).raw(['clean', '-ffdxq']);
      return;
    } catch {
      // made afresh below
    }
  }
  await removeWorktree(root, dir);
  await addWorktree(root, dir, commit);
}

/** Whether `dir` is a real folder (no link) that is a worktree of the repository at `root`, at its own top. */
async function isWorktreeOf(root: string, dir: string): Promise<boolean> {
  const info = await lstat(dir).catch(() => null);
  if (info === null || !info.isDirectory() || !(await lstat(path.join(dir, '.git')).then((g) => g.isFile(), () => false))) return false;
  try {
    const out = (await git(dir).raw(['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir'])).split('\n');
    const [top = '', common = ''] = out.map((line) => line.trim());
    return (await realpath(top)) === (await realpath(dir)) && (await realpath(common)) === (await realpath(path.join(root, '.git')));
  } catch {
    return false;
  }
}

/**
 * Removes every scratch tree of the vault but `keep` (a file name under WORKTREES_DIR): a crashed run's, or all of
 * them before a purge rewrites the history (a tree's HEAD and index would keep the old objects, its files the text).
 */
export async function removeScratchTrees(root: string, keep?: string): Promise<void> {
  const dir = path.join(root, WORKTREES_DIR);
  for (const left of await readdir(dir).catch(() => [] as string[])) {
    if (left !== keep) await removeWorktree(root, path.join(dir, left));
  }
  await git(root).raw(['worktree', 'prune']).catch(() => undefined);
  await dropForeignScratchEntries(root);
}

/**
 * A vault copied whole (`cp -r`, a backup restored beside the original) brings git's entries for its scratch trees
 * along, naming the original's folders: `worktree prune` keeps them while the original exists, and their HEADs and
 * indexes pin old commits in the copy, so a purge there left the purged text in git objects. An entry for a scratch
 * tree (`…/.vaultkeeper/worktrees/<name>/.git`) outside this vault goes; a person's own worktrees stay.
 */
async function dropForeignScratchEntries(root: string): Promise<void> {
  const admin = path.join(root, '.git', 'worktrees');
  const real = async (p: string): Promise<string | null> => realpath(p).catch(() => null);
  const own = (await real(path.join(root, WORKTREES_DIR))) ?? path.join((await real(root)) ?? root, WORKTREES_DIR);
  for (const id of await readdir(admin).catch(() => [] as string[])) {
    const gitdir = (await readFile(path.join(admin, id, 'gitdir'), 'utf8').catch(() => '')).trim();
    if (!/[\\/]\.vaultkeeper[\\/]worktrees[\\/][^\\/]+[\\/]\.git$/u.test(gitdir)) continue;
    const where = path.dirname(path.dirname(gitdir));
    if (where === own || (await real(where)) === own) continue;
    await rm(path.join(admin, id), { recursive: true, force: true });
  }
}

/**
 * Removes the scratch tree a run left, unless a dream runs now (it scrubs its own tree of a forget made meanwhile):
 * after a forget its files would hold the forgotten lines until the next run reset them.
 */
export async function dropIdleScratch(root: string): Promise<void> {
  if ((await readdir(path.join(root, WORKTREES_DIR)).catch(() => [] as string[])).length === 0) return;
  await withLock(root, 'dream', () => removeScratchTrees(root), { waitMs: 0 }).catch(() => undefined);
}

export async function removeWorktree(root: string, dir: string): Promise<void> {
  try {
    await git(root).raw(['worktree', 'remove', '--force', dir]);
  } catch {
    // already gone or never registered; the folder is removed below either way
  }
  await rm(dir, { recursive: true, force: true });
  await git(root).raw(['worktree', 'prune']).catch(() => undefined);
}

export interface PathChange {
  /** A added, M modified, D deleted (renames are reported as D + A). */
  status: 'A' | 'M' | 'D';
  path: string;
}

/** Everything that differs in the worktree from `base`, untracked files included. */
export async function worktreeChanges(dir: string, base: string): Promise<PathChange[]> {
  await git(dir).raw(['add', '--all']);
  const out = await git(dir).raw(['diff', '--cached', '--name-status', '--no-renames', '-z', base]);
  const parts = out.split('\u0000').filter((p) => p !== '');
  const changes: PathChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i]!.charAt(0);
    if (status === 'A' || status === 'M' || status === 'D') changes.push({ status, path: parts[i + 1]! });
    else changes.push({ status: 'M', path: parts[i + 1]! }); // type changes and the like count as edits
  }
  return changes;
}

/** `git mv` in a scratch worktree, so the run's commit records a move (history follows it), not a new page. */
export async function movePath(dir: string, from: string, to: string): Promise<void> {
  await git(dir).raw(['mv', '--', from, to]);
}

/** The unified diff of the worktree against `base` (after worktreeChanges staged everything). */
export async function worktreeDiff(dir: string, base: string): Promise<string> {
  await git(dir).raw(['add', '--all']);
  return git(dir).raw(['diff', '--cached', '--no-color', base]);
}

/**
 * Files read ahead at one commit (preloadFiles): a run's checks read each changed page at its base several
 * times, and a git process per read cost more than the rest of a large run. A full commit id names the same
 * contents in every worktree of the repository, so the cache needs no invalidation; it holds one commit's files.
 */
let preloaded: { commit: string; files: Map<string, Buffer | null> } | null = null;

/** Reads `rels` at `commit` with one `git cat-file --batch`, for showFile's later reads of them. */
export async function preloadFiles(root: string, commit: string, rels: readonly string[]): Promise<void> {
  if (!/^[0-9a-f]{40,64}$/.test(commit) || rels.length === 0) return;
  // Files of the same commit read before are kept: the checks and the current values each preload theirs.
  const held = preloaded?.commit === commit ? preloaded.files : null;
  const wanted = [...new Set(rels)].filter((rel) => !/[\n\r]/.test(rel) && held?.has(rel) !== true);
  if (wanted.length === 0) return;
  // Named by blob id, from one listing of the commit's tree: `<commit>:<path>` makes git walk a folder's tree
  // object per path, which in a folder of thousands of pages cost a late run seconds of git's CPU (issue 31).
  const listing = await gitOutput(root, ['ls-tree', '-r', '-z', '--full-tree', commit], '');
  const blobs = listing === null ? null : blobIds(listing);
  const files = held ?? new Map<string, Buffer | null>();
  // A path the listing does not hold is not a file at that commit (a page the run made).
  const asked = blobs === null ? wanted : wanted.filter((rel) => blobs.has(rel));
  for (const rel of wanted) if (blobs !== null && !blobs.has(rel)) files.set(rel, null);
  const out = asked.length === 0 ? Buffer.alloc(0) : await gitOutput(root, ['cat-file', '--batch'], asked.map((rel) => `${blobs?.get(rel) ?? `${commit}:${rel}`}\n`).join(''));
  if (out === null) return;
  let at = 0;
  for (const rel of asked) {
    const eol = out.indexOf(0x0a, at);
    if (eol < 0) return;
    const header = out.subarray(at, eol).toString('utf8');
    at = eol + 1;
    const found = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
    if (found === null) {
      files.set(rel, null); // "<name> missing"
      continue;
    }
    const size = Number(found[2]);
    files.set(rel, found[1] === 'blob' ? Buffer.from(out.subarray(at, at + size)) : null);
    at += size + 1;
  }
  preloaded = { commit, files };
}

/** A git command's whole output, fed `input` on its stdin; null when it fails. */
function gitOutput(root: string, args: readonly string[], input: string): Promise<Buffer | null> {
  return new Promise<Buffer>((resolve, reject) => {
    const child = spawn('git', ['-C', root, ...args], { stdio: ['pipe', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`git ${args[0]} exited with ${code}`))));
    // A git that stops early (no repository, or one that reads no input) closes its stdin: its exit code tells.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  }).catch(() => null);
}

/** The blob id of each file in a `git ls-tree -r -z` listing, by path. */
function blobIds(listing: Buffer): Map<string, string> {
  const ids = new Map<string, string>();
  for (const entry of listing.toString('utf8').split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    const [, type, id] = entry.slice(0, tab).split(' ');
    if (type === 'blob' && id !== undefined) ids.set(entry.slice(tab + 1), id);
  }
  return ids;
}

/** A file's content at a commit, or null when it does not exist there. */
export async function showFile(root: string, commit: string, rel: string): Promise<Buffer | null> {
  if (preloaded?.commit === commit && preloaded.files.has(rel)) return preloaded.files.get(rel)!;
  try {
    const out = await git(root).binaryCatFile(['-p', `${commit}:${rel}`]);
    return Buffer.from(out);
  } catch {
    return null;
  }
}
