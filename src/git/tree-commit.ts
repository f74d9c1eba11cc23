/**
 * A commit of staged paths whose cost does not grow with the number of files in the vault (issue 31).
 *
 * `git commit -- <paths>` ("only" these paths) builds a second index from HEAD's whole tree, refreshes both
 * indexes (an lstat of every tracked file) and rebuilds each changed tree checking that every entry's object
 * exists (a stat per loose object): at a million facts, 5,000 daily logs in one folder, that is most of a
 * `remember`. Here the commit is made from the real index, already staged by `git add`: `write-tree
 * --missing-ok` reuses its cache-tree for every folder left alone and skips the per-entry existence check,
 * and `diff-tree` against HEAD proves the tree holds no change but the requested paths before anything
 * points at it. Whenever that proof fails (a person staged another file, a merge is under way, hooks that
 * `git commit` would run, an unborn branch) the caller falls back to `git commit -- <paths>`.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { readHead } from './health.js';
import { GitCommandError, type GitRunner } from './run.js';

export type TreeCommitResult = { kind: 'committed'; sha: string } | { kind: 'unchanged' } | { kind: 'fallback'; why: string };

/** Hooks `git commit --no-verify` still runs: where one exists, the commit is left to git. */
const COMMIT_HOOKS = ['prepare-commit-msg', 'post-commit', 'post-index-change'];
/** States in which `git commit -- <paths>` refuses or records more than a plain commit. */
const IN_PROGRESS = ['MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD', 'BISECT_LOG'];

/**
 * Commits what the index holds for `paths` (staged by the caller) on top of HEAD, when the index differs
 * from HEAD in nothing else. `message` is as given to `git commit -m` (cleaned up as git does).
 * `hooksPath` is core.hooksPath when set. Errors of git other than the proof failing are thrown as they are.
 */
export async function commitStagedTree(g: GitRunner, root: string, paths: readonly string[], message: string, hooksPath: string | null): Promise<TreeCommitResult> {
  const gitDir = path.join(root, '.git');
  if (hooksPath !== null) return { kind: 'fallback', why: 'core.hooksPath is set' };
  if (await anyExists(gitDir, IN_PROGRESS)) return { kind: 'fallback', why: 'a merge, cherry-pick, revert or bisect is under way' };
  if (await anyExists(path.join(gitDir, 'hooks'), COMMIT_HOOKS)) return { kind: 'fallback', why: 'a commit hook is installed' };
  // The same reading of HEAD every writer's health check takes (health.ts); anything but a whole commit is git's.
  const head = await readHead(root);
  if (head.kind !== 'points' || head.object === 'missing' || head.object === 'empty') return { kind: 'fallback', why: 'HEAD names no commit yet' };

  let tree: string;
  try {
    // Safe without the existence check: the proof below allows only entries equal to HEAD's (whose objects
    // exist) or the requested paths, which `git add` has just written.
    tree = (await g.raw(['write-tree', '--missing-ok'])).trim();
  } catch (error) {
    // Unmerged entries and the like: `git commit` says what is wrong. A held index.lock does not stop write-tree.
    if (error instanceof GitCommandError && !/index\.lock|No space left|ENOSPC/i.test(error.message)) return { kind: 'fallback', why: 'write-tree failed' };
    throw error;
  }
  const text = cleanupMessage(message);
  // The commit object is written while the tree is checked (one process's wait less); nothing names it
  // unless the check passes (an unused one is an unreachable object, which git's gc prunes).
  const [diff, made] = await Promise.allSettled([
    g.raw(['diff-tree', '-r', '--no-renames', '--name-only', '-z', head.sha, tree]),
    g.raw(['commit-tree', tree, '-p', head.sha, '-F', '-'], { input: text }),
  ]);
  if (diff.status === 'rejected') throw diff.reason;
  const changed = diff.value.split('\u0000').filter((p) => p !== '');
  if (changed.length === 0) return { kind: 'unchanged' };
  const wanted = new Set(paths);
  if (changed.some((p) => !wanted.has(p))) return { kind: 'fallback', why: 'the index holds other staged changes' };
  if (made.status === 'rejected') throw made.reason;
  const sha = made.value.trim();
  try {
    // With HEAD's old value: a commit a person made meanwhile is never lost (the update is refused instead).
    await g.raw(['update-ref', '-m', `commit: ${text.split('\n')[0]}`, 'HEAD', sha, head.sha]);
  } catch (error) {
    if (error instanceof GitCommandError && /but expected|cannot lock ref 'HEAD'.*is at/i.test(error.message)) return { kind: 'fallback', why: 'HEAD moved' };
    throw error;
  }
  await autoMaintenance(g, gitDir);
  return { kind: 'committed', sha };
}

/**
 * git's `--cleanup=whitespace`, what `git commit -m`/`-F` applies: trailing whitespace off each line, runs
 * of blank lines made one, none at the start or end, one final newline.
 */
export function cleanupMessage(text: string): string {
  const out: string[] = [];
  let blank = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[ \t\r]+$/, ''); // git's isspace: not \f or \v
    if (line === '') {
      blank = out.length > 0;
      continue;
    }
    if (blank) out.push('');
    blank = false;
    out.push(line);
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

async function anyExists(dir: string, names: readonly string[]): Promise<boolean> {
  for (const name of names) if (await stat(path.join(dir, name)).then(() => true, () => false)) return true;
  return false;
}

/** git's default gc.auto (loose objects) and gc.autoPackLimit. */
const GC_AUTO = 6700;
const GC_PACK_LIMIT = 50;

/**
 * `git commit` ends with `git maintenance run --auto`, which packs loose objects once they pile up; without
 * it every later commit would get slower. Run only when git's own estimate (the loose objects in
 * objects/17, times 256, or the number of packs) may pass its default limits: a folder read, not a process.
 */
async function autoMaintenance(g: GitRunner, gitDir: string): Promise<void> {
  const loose = await readdir(path.join(gitDir, 'objects', '17')).then((names) => names.length, () => 0);
  const packs = await readdir(path.join(gitDir, 'objects', 'pack')).then((names) => names.filter((n) => n.endsWith('.pack')).length, () => 0);
  if (loose <= Math.ceil(GC_AUTO / 256) && packs <= GC_PACK_LIMIT) return;
  await g.raw(['maintenance', 'run', '--auto', '--quiet']).catch(() => undefined);
}
