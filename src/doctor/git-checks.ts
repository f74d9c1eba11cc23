/**
 * The vault's git repository, diagnosed and repaired (issue 30): empty or truncated object files (a power
 * cut before git flushed them), a missing or unreadable HEAD, a branch pointing at a missing commit, an
 * unborn branch beside a vault's files. `doctor` reports them; `doctor --fix` repairs without losing a line:
 * damaged object files are moved aside (never deleted while they hold bytes), HEAD goes back to the newest
 * intact commit its reflog names, and every file as it is on disk is then committed on top, so each log line
 * written since is in the history again. What it cannot repair it names, with the command to run.
 */
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { inflateSync } from 'node:zlib';
import path from 'node:path';
import type { Config } from '../core/config.js';
import { errorMessage } from '../core/errors.js';
import { withWriteLock } from '../core/lock.js';
import { commitPaths } from '../git/audit.js';
import { headProblem, readHead } from '../git/health.js';
import { gitRunner } from '../git/run.js';
import type { Check, Problem } from './problem.js';

const problem = (code: string, message: string, file: string | null = null): Problem => ({ code, path: file, line: null, message });

/** Where doctor --fix moves damaged object files: inside .git, out of git's way, kept for a person to inspect. */
const ASIDE_DIR = '.git/vaultkeeper-damaged';

/**
 * Loose object files that are empty, or that do not inflate to a whole object (truncated, corrupt): their
 * paths under the vault. Read here with zlib, not one git process per object.
 */
async function damagedObjects(root: string): Promise<{ empty: string[]; corrupt: string[] }> {
  const objects = path.join(root, '.git', 'objects');
  const empty: string[] = [];
  const corrupt: string[] = [];
  for (const dir of await readdir(objects).catch(() => [] as string[])) {
    if (!/^[0-9a-f]{2}$/.test(dir)) continue;
    for (const name of await readdir(path.join(objects, dir)).catch(() => [] as string[])) {
      if (!/^[0-9a-f]{38}$/.test(name)) continue;
      const rel = `.git/objects/${dir}/${name}`;
      const bytes = await readFile(path.join(root, rel)).catch(() => null);
      if (bytes === null) continue;
      if (bytes.length === 0) empty.push(rel);
      else if (!wholeObject(bytes)) corrupt.push(rel);
    }
  }
  return { empty, corrupt };
}

/** A loose object inflates to `<type> <size>\0` and exactly `size` bytes after it. */
function wholeObject(bytes: Buffer): boolean {
  let data: Buffer;
  try {
    data = inflateSync(bytes);
  } catch {
    return false;
  }
  const nul = data.indexOf(0);
  const header = /^(blob|tree|commit|tag) (\d+)$/.exec(data.subarray(0, Math.max(nul, 0)).toString('latin1'));
  return nul > 0 && header !== null && Number(header[2]) === data.length - nul - 1;
}

/** `git fsck`'s error lines (dangling objects are not errors), or the one line saying why it could not run. */
async function fsckErrors(root: string): Promise<string[]> {
  try {
    await gitRunner(root).raw(['fsck', '--no-dangling', '--no-progress']);
    return [];
  } catch (error) {
    return [...new Set(errorMessage(error).split('\n').map((l) => l.trim()).filter((l) => /^(error|fatal|missing|broken|bad|invalid)/i.test(l)))];
  }
}

export const checkGitRepository: Check = async ({ root }) => {
  const head = await readHead(root);
  if (head.kind === 'no-git') return [];
  const problems: Problem[] = [];
  const headIssue = await headProblem(root, head);
  if (headIssue !== null) problems.push(problem('GIT_HEAD', `${headIssue}; \`vaultkeeper doctor --fix\` re-points it to the newest intact commit and commits the files on top`, '.git/HEAD'));
  const { empty, corrupt } = await damagedObjects(root);
  for (const rel of empty) problems.push(problem('GIT_OBJECT', 'an empty object file (a power cut before git flushed it); `vaultkeeper doctor --fix` removes it', rel));
  for (const rel of corrupt) problems.push(problem('GIT_OBJECT', `an object file git cannot read (truncated or corrupt); \`vaultkeeper doctor --fix\` moves it to ${ASIDE_DIR}/`, rel));
  if (problems.length === 0) {
    // Objects whole and HEAD readable: git's own check finds the rest (a ref to a missing commit, a missing tree).
    const errors = await fsckErrors(root);
    if (errors.length > 0) problems.push(problem('GIT_FSCK', `git fsck: ${errors.slice(0, 3).join(' | ')}${errors.length > 3 ? ` (+${errors.length - 3} more)` : ''}; run \`vaultkeeper doctor --fix\``));
  }
  return problems;
};

export interface GitRepair {
  /** What was done, one line each, in order. */
  actions: string[];
  /** What could not be repaired, each with the command to run. */
  remaining: string[];
  commit: string | null;
}

/** `doctor --fix` for the repository: see the file's comment. Takes the write lock; a healthy repository is left alone. */
export async function repairGit(root: string, config: Config): Promise<GitRepair> {
  if ((await checkGitRepository({ root, config })).length === 0) return { actions: [], remaining: [], commit: null };
  return withWriteLock(root, async (lock) => {
    const actions: string[] = [];
    const git = gitRunner(root);
    // Without a HEAD git does not take the folder for a repository: it comes first.
    const first = await readHead(root);
    if (first.kind === 'missing-head' || first.kind === 'bad-head') {
      const branch = await defaultBranch(root);
      await writeFile(path.join(root, '.git', 'HEAD'), `ref: ${branch}\n`);
      actions.push(`wrote .git/HEAD: ref: ${branch}`);
    }
    const { empty, corrupt } = await damagedObjects(root);
    for (const rel of empty) await rm(path.join(root, rel), { force: true });
    if (empty.length > 0) actions.push(`removed ${empty.length} empty object file${empty.length === 1 ? '' : 's'}`);
    if (corrupt.length > 0) {
      await mkdir(path.join(root, ASIDE_DIR), { recursive: true });
      for (const rel of corrupt) await rename(path.join(root, rel), path.join(root, ASIDE_DIR, rel.slice('.git/objects/'.length).replace('/', '')));
      actions.push(`moved ${corrupt.length} unreadable object file${corrupt.length === 1 ? '' : 's'} to ${ASIDE_DIR}/`);
    }
    const head = await readHead(root);
    const ref = head.kind === 'points' || head.kind === 'unborn' ? head.ref : null;
    const tip = head.kind === 'points' ? head.sha : null;
    if (ref !== null && (tip === null || !(await intactCommit(root, tip)))) {
      const good = await newestIntact(root, ref);
      if (good !== null) {
        await git.raw(['update-ref', '-m', 'vaultkeeper doctor --fix: newest intact commit', ref, good]);
        actions.push(`re-pointed ${ref} to ${good.slice(0, 12)}, the newest intact commit of its reflog`);
      } else if (tip !== null) {
        return { actions, remaining: [`${ref} names ${tip.slice(0, 12)}, which is damaged, and its reflog names no intact commit: move .git aside (mv .git .git.damaged), run \`git init -b main && git add -A && git commit -m "rebuild from the files"\` in the vault, and keep .git.damaged for its history`], commit: null };
      }
    }
    // Reflog entries naming a removed object make git fsck fail for ever: those entries (and only those) go.
    if (empty.length + corrupt.length > 0) {
      await git.raw(['reflog', 'expire', '--stale-fix', '--expire=never', '--expire-unreachable=never', '--all']).catch(() => undefined);
    }
    // The index may name the objects just removed: rebuilt from HEAD, the files on disk untouched.
    if ((await readHead(root)).kind === 'points') {
      await rm(path.join(root, '.git', 'index'), { force: true });
      await git.raw(['reset', '--quiet', '--mixed']).catch(() => undefined);
    }
    // Every file as it is on disk, on top: the log lines written after the intact commit are history again.
    const unborn = (await readHead(root)).kind === 'unborn';
    const commit = await commitPaths(lock, config, {
      op: 'recover',
      subject: unborn ? 'recover: the vault\'s files, committed after doctor --fix found no commit to keep' : 'recover: the files as they are on disk, after doctor --fix repaired git',
      body: `doctor --fix:\n${actions.map((a) => `- ${a}`).join('\n')}`,
      paths: ['.'],
    });
    if (commit !== null) actions.push(`committed the files as they are on disk (${commit.slice(0, 12)})`);
    const errors = await fsckErrors(root);
    const remaining = errors.length === 0 ? [] : [`git fsck still reports: ${errors.slice(0, 3).join(' | ')}; run \`git fsck --full\` in the vault and restore the objects it names from a backup or clone`];
    return { actions, remaining, commit };
  });
}

/** refs/heads/main when it exists, else the first branch, else refs/heads/main. */
async function defaultBranch(root: string): Promise<string> {
  const heads = await readdir(path.join(root, '.git', 'refs', 'heads')).catch(() => [] as string[]);
  if (heads.includes('main') || heads.length === 0) return 'refs/heads/main';
  return `refs/heads/${heads.sort()[0]!}`;
}

/** A commit whose object and whole tree git can read. */
async function intactCommit(root: string, sha: string): Promise<boolean> {
  const git = gitRunner(root);
  try {
    await git.raw(['cat-file', 'commit', sha]);
    await git.raw(['ls-tree', '-r', sha]);
    return true;
  } catch {
    return false;
  }
}

/** The newest commit the ref's reflog names that is intact (a reflog line: old new who time message). */
async function newestIntact(root: string, ref: string): Promise<string | null> {
  const log = await readFile(path.join(root, '.git', 'logs', ref), 'utf8').catch(() => '');
  const seen = new Set<string>();
  for (const line of log.split('\n').reverse()) {
    for (const sha of line.split(' ').slice(0, 2).reverse()) {
      if (!/^[0-9a-f]{40}$/.test(sha) || /^0+$/.test(sha) || seen.has(sha)) continue;
      seen.add(sha);
      if (await intactCommit(root, sha)) return sha;
    }
  }
  return null;
}
