/**
 * Scratch git worktrees for the dream: a run writes there, is checked there, and only then reaches the
 * vault. A failed or crashed run leaves the vault untouched; its worktree is pruned on the next run.
 */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { simpleGit } from 'simple-git';
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
  const wanted = [...new Set(rels)].filter((rel) => !/[\n\r]/.test(rel));
  const out = await new Promise<Buffer>((resolve, reject) => {
    const child = spawn('git', ['-C', root, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`git cat-file --batch exited with ${code}`))));
    child.stdin.end(wanted.map((rel) => `${commit}:${rel}\n`).join(''));
  }).catch(() => null);
  if (out === null) return;
  const files = new Map<string, Buffer | null>();
  let at = 0;
  for (const rel of wanted) {
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
