/**
 * The vault's git history is its audit log: every change the program makes is one commit whose
 * message says what and why, marked with a `Vaultkeeper-Op:` trailer so that later checks can tell the
 * program's commits from a person's.
 */
import { lstat, readFile, readdir, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../core/config.js';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import type { WriteLock } from '../core/lock.js';
import { redact } from '../core/redact.js';
import { syncDir } from '../dream/tools/atomic.js';
import { GitCommandError, gitRunner, type GitRunner } from './run.js';
import { commitStagedTree } from './tree-commit.js';

export const OP_TRAILER = 'Vaultkeeper-Op';
const DEFAULT_NAME = 'vaultkeeper';
const DEFAULT_EMAIL = 'vaultkeeper@localhost';

export interface Identity {
  name: string;
  email: string;
}

function git(root: string, identity?: Identity): GitRunner {
  const config = ['commit.gpgsign=false', 'core.quotepath=false'];
  // user.* set per call makes the identity both author and committer, even where git has none.
  if (identity !== undefined) config.push(`user.name=${identity.name}`, `user.email=${identity.email}`);
  return gitRunner(root, config);
}

/** Who the program commits as: config first, then git's own identity, then a fixed default. */
export async function commitIdentity(root: string, config: Config): Promise<Identity> {
  return (await commitSettings(root, config, false)).identity;
}

/** The identity, and (with `hooks`) core.hooksPath, from one git process (none when config names the author and no hooks are asked). */
async function commitSettings(root: string, config: Config, hooks: boolean): Promise<{ identity: Identity; hooksPath: string | null }> {
  let name = config.git.author_name;
  let email = config.git.author_email;
  let hooksPath: string | null = null;
  if (name === undefined || email === undefined || hooks) {
    // One git process for all keys; where a key is set at several levels the last line wins, as in git.
    const out = await git(root).raw(['config', '--get-regexp', '^(user\\.(name|email)|core\\.hookspath)$']).catch(() => '');
    for (const line of out.split('\n')) {
      const match = /^(user\.name|user\.email|core\.hookspath) (.*)$/i.exec(line);
      const value = match?.[2]?.trim();
      if (match === null || value === undefined || value === '') continue;
      const key = match[1]!.toLowerCase();
      if (key === 'user.name') name = config.git.author_name ?? value;
      else if (key === 'user.email') email = config.git.author_email ?? value;
      else hooksPath = value;
    }
  }
  return { identity: { name: name ?? DEFAULT_NAME, email: email ?? DEFAULT_EMAIL }, hooksPath };
}

export async function isRepo(root: string): Promise<boolean> {
  try {
    const top = (await git(root).raw(['rev-parse', '--show-toplevel'])).trim();
    return top.length > 0;
  } catch {
    return false;
  }
}

export async function initRepo(root: string): Promise<void> {
  await git(root).raw(['init', '--quiet', '--initial-branch=main']);
}

export interface CommitRequest {
  /** The operation, e.g. remember, forget, dream; written as the trailer. */
  op: string;
  subject: string;
  body?: string;
  /** Paths relative to the vault; only these are committed (a person's other edits stay theirs). */
  paths: readonly string[];
  /** Extra trailers, e.g. a dream run id. */
  trailers?: Record<string, string>;
}

export function commitMessage(request: CommitRequest): string {
  const trailers = [`${OP_TRAILER}: ${request.op}`, ...Object.entries(request.trailers ?? {}).map(([k, v]) => `${k}: ${v}`)];
  return [request.subject, ...(request.body ? ['', request.body] : []), '', ...trailers].join('\n');
}

/**
 * Commits the given paths. Its errors say why git failed and what to do, never what became of the files:
 * that is the caller's to say (remember's lines are stored, an earlier command's leftovers are, …). Returns the new commit's sha, or null when they hold no change (another
 * process committed them already). Retries briefly when a person's git holds the index lock. In the
 * common case (nothing staged but these paths) the commit is made from the index's own trees
 * (tree-commit.ts), so its cost does not grow with the vault; otherwise `git commit -- <paths>`, which
 * prints its full sha and leaves a person's other staged edits staged.
 */
export async function commitPaths(lock: WriteLock, config: Config, request: CommitRequest): Promise<string | null> {
  // Asked while the paths are staged: each git process started costs more than most of them run (issue 31).
  const settings = commitSettings(lock.root, config, true);
  settings.catch(() => undefined);
  const paths = [...new Set(request.paths)];
  const message = redact(commitMessage(request), { keyEnvNames: [config.llm.api_key_env] });
  for (let attempt = 0; ; attempt++) {
    try {
      await stagePaths(git(lock.root), lock.root, paths);
      const { identity, hooksPath } = await settings;
      const g = git(lock.root, identity);
      // The common case, only these paths staged: a commit whose cost does not grow with the vault (tree-commit.ts).
      const fast = await commitStagedTree(g, lock.root, paths, message, hooksPath);
      if (fast.kind === 'unchanged') return null;
      if (fast.kind === 'committed') {
        await syncGitEntries(lock.root);
        return fast.sha;
      }
      let out: string;
      try {
        out = await commitWithMessage(g, message, ['--', ...paths]);
      } catch (error) {
        // Nothing staged for these paths: git refuses to commit, and there is nothing to do.
        if (error instanceof GitCommandError && error.exitCode === 1 && (await g.raw(['diff', '--cached', '--name-only', '--', ...paths])).trim() === '') return null;
        throw error;
      }
      await syncGitEntries(lock.root);
      // git's summary line, `[main 1f0c…] subject`, carries the full sha with core.abbrev=no.
      return /^\[[^\]\n]* ([0-9a-f]{40,64})\]/m.exec(out)?.[1] ?? (await g.raw(['rev-parse', 'HEAD'])).trim();
    } catch (error) {
      const message = errorMessage(error);
      if (/No space left on device|Out of diskspace|ENOSPC/i.test(message)) {
        throw new VaultkeeperError('VK_DISK_FULL', 'the disk is full: git could not commit', {
          hint: 'free some space',
          cause: error,
        });
      }
      if (message.includes('index.lock') && attempt < 20) {
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
        continue;
      }
      if (message.includes('index.lock')) {
        const stale = await staleIndexLock(lock.root);
        if (stale !== null) {
          throw new VaultkeeperError('VK_GIT_INDEX_LOCK', `a stale .git/index.lock (${stale.age}, no git is running in the vault) blocks every commit`, {
            hint: `remove it: rm '${stale.file}'`,
            cause: error,
          });
        }
      }
      if (message.includes('index.lock')) {
        throw new VaultkeeperError('VK_GIT_INDEX_LOCK', 'git could not commit: .git/index.lock exists (another git may be working in the vault)', {
          hint: `wait for that git to finish; if none is running, remove it: rm '${path.join(lock.root, '.git', 'index.lock')}'`,
          cause: error,
        });
      }
      throw new VaultkeeperError('VK_GIT', `git commit failed: ${message.split('\n')[0]}`, {
        hint: 'run `vaultkeeper doctor` in the vault',
        cause: error,
      });
    }
  }
}

/**
 * git flushes the files it writes (core.fsync) but not the folders it renames them into: the branch ref
 * (`refs/heads/main.lock` renamed to `main`), the index and the reflogs. Without this a power cut right after
 * a commit kept its objects but left the branch at the commit before (test/e2e/power-cut.test.ts).
 */
export async function syncGitEntries(root: string): Promise<void> {
  const gitDir = path.join(root, '.git');
  const head = await readFile(path.join(gitDir, 'HEAD'), 'utf8').catch(() => '');
  const ref = /^ref: (refs\/\S+)/.exec(head)?.[1];
  const dirs = [gitDir, ...(ref === undefined ? [] : [path.dirname(path.join(gitDir, ref)), path.dirname(path.join(gitDir, 'logs', ref))]), path.join(gitDir, 'logs')];
  for (const dir of dirs) await syncDir(dir).catch(() => undefined);
}

/** Past this, a commit message goes to git on its stdin: one argument may not pass 128 KB (E2BIG). */
const MAX_MESSAGE_ARG = 64 * 1024;

/**
 * Commits with `-m text`, or with the text on git's stdin (`-F -`) when it is long: a dream run that changed
 * thousands of files lists each in its message. No file is written for it (no write leaves the vault).
 */
function commitWithMessage(g: GitRunner, text: string, args: readonly string[]): Promise<string> {
  if (Buffer.byteLength(text) <= MAX_MESSAGE_ARG) return g.raw(['-c', 'core.abbrev=no', 'commit', '--no-verify', '-m', text, ...args]);
  return g.raw(['-c', 'core.abbrev=no', 'commit', '--no-verify', '-F', '-', ...args], { input: text });
}

/**
 * Past this many paths (a dream run's commit) they are staged by `git update-index`: `git add` matches every file of
 * the index against every path given, ~1.2 s of git's CPU for a late run's 2,200 pages in a vault of 16,000 (issue 31).
 */
const MANY_PATHS = 64;

/**
 * Stages `paths` as `git add --all -- paths` would, when none of them is ignored (`git add` refuses an ignored
 * path, and `git update-index` would take it): a file is added or updated, a path gone from the tree is removed
 * from the index, one that never was is passed over. False when git add must do it (then it says why it refuses).
 */
async function stageMany(g: GitRunner, paths: readonly string[]): Promise<boolean> {
  const list = paths.map((p) => `${p}\0`).join('');
  try {
    // Exit 1: none is ignored.
    await g.raw(['check-ignore', '--no-index', '-z', '--stdin'], { input: list });
    return false;
  } catch (error) {
    if (!(error instanceof GitCommandError) || error.exitCode !== 1 || error.stdout !== '') return false;
  }
  try {
    await g.raw(['update-index', '--add', '--remove', '-z', '--stdin'], { input: list });
    return true;
  } catch {
    return false; // a folder among the paths, say: git add takes it
  }
}

/**
 * `git add --all` of the paths. A path a person already removed from git's index (`git rm`, the source
 * of a `git mv`) makes git add fail ("pathspec did not match"); its removal is staged already, so it
 * is left out of the add (the commit's pathspec still takes it).
 */
async function stagePaths(g: GitRunner, root: string, paths: readonly string[]): Promise<void> {
  if (paths.length >= MANY_PATHS && (await stageMany(g, paths))) return;
  try {
    await g.raw(['add', '--all', '--', ...paths]);
  } catch (error) {
    if (!/did not match any files/.test(errorMessage(error))) throw error;
    const indexed = new Set((await g.raw(['ls-files', '-z', '--', ...paths])).split('\u0000'));
    const known: string[] = [];
    for (const rel of paths) {
      if (indexed.has(rel) || (await lstat(path.join(root, rel)).then(() => true, () => false))) known.push(rel);
    }
    if (known.length > 0) await g.raw(['add', '--all', '--', ...known]);
  }
}

export interface HistoryEntry {
  sha: string;
  date: string;
  author: string;
  message: string;
  /** The operation trailer when vaultkeeper made the commit; null for a person's commit. */
  op: string | null;
}

const FIELD = '\u001f';
const RECORD = '\u001e';
const OP_LINE = new RegExp(`^${OP_TRAILER}: (.+)$`, 'm');

export async function history(root: string, options: { path?: string; limit?: number } = {}): Promise<HistoryEntry[]> {
  const args = ['log', `--format=%H${FIELD}%aI${FIELD}%an${FIELD}%B${RECORD}`];
  if (options.limit !== undefined) args.push(`-n${options.limit}`);
  if (options.path !== undefined) args.push('--', options.path);
  let out: string;
  try {
    out = await git(root).raw(args);
  } catch (error) {
    if (/does not have any commits/.test(errorMessage(error))) return [];
    // A path git cannot take ('', one outside the vault, a bad pathspec) is the caller's mistake: one line.
    if (options.path !== undefined) {
      throw new VaultkeeperError('VK_USAGE', `no history for '${options.path}': ${errorMessage(error).replace(/^fatal:\s*/, '').split('\n')[0]}`, {
        hint: 'name a file or folder inside the vault, e.g. vaultkeeper history log.md',
        exitCode: 2,
      });
    }
    throw error;
  }
  return out
    .split(RECORD)
    .map((record) => record.replace(/^\n/, ''))
    .filter((record) => record.trim() !== '')
    .map((record) => {
      const [sha = '', date = '', author = '', body = ''] = record.split(FIELD);
      const op = OP_LINE.exec(body)?.[1]?.trim() ?? null;
      return { sha, date, author, message: body.trim(), op };
    });
}

/**
 * The commits that touched each of `paths` (newest first), from one `git log` per few hundred paths
 * rather than one per path. A name git would have to quote is simply not found (an empty history).
 */
export async function pathHistories(root: string, paths: readonly string[]): Promise<Map<string, HistoryEntry[]>> {
  const out = new Map<string, HistoryEntry[]>(paths.map((p) => [p, []]));
  for (let i = 0; i < paths.length; i += 400) {
    const chunk = paths.slice(i, i + 400).map((p) => `:(literal)${p}`);
    let text: string;
    try {
      text = await git(root).raw([...PATH_LOG_ARGS, '--', ...chunk]);
    } catch (error) {
      if (/does not have any commits/.test(errorMessage(error))) return out;
      throw error;
    }
    readPathLog(text, (name, entry) => out.get(name)?.push(entry));
  }
  return out;
}

/** `git log` of each commit's changed paths, in the form readPathLog reads. */
export const PATH_LOG_ARGS: readonly string[] = ['log', '--no-renames', '--name-only', `--format=${RECORD}%H${FIELD}%aI${FIELD}%an${FIELD}%B${FIELD}`];

/** Calls `add` for each path of each commit of a PATH_LOG_ARGS log, newest commit first. */
export function readPathLog(text: string, add: (path: string, entry: HistoryEntry) => void): void {
  for (const record of text.split(RECORD)) {
    const [sha = '', date = '', author = '', body = '', names = ''] = record.split(FIELD);
    if (sha === '') continue;
    const op = OP_LINE.exec(body)?.[1]?.trim() ?? null;
    const entry = { sha, date, author, message: body.trim(), op };
    for (const name of names.split('\n')) if (name !== '') add(name, entry);
  }
}

export interface WorkingChange {
  path: string;
  /** Two-letter porcelain status, e.g. ' M', '??'. */
  status: string;
}

/**
 * Refreshes the stat data git's index holds of every tracked file, under the write lock, before a status: in a vault
 * copied or restored file by file (new inodes and ctimes) every status otherwise rehashes every file (0.3 s of CPU at
 * a million facts, twice a `forget`), for good, since the program's status never writes the index
 * (`--no-optional-locks`: on a full disk a status that writes it fails). With nothing stale this costs a stat of each
 * tracked file; a failure (a full disk, another git's index lock) changes nothing and is passed over.
 */
export async function refreshIndexStat(lock: WriteLock): Promise<void> {
  await git(lock.root).raw(['update-index', '-q', '--refresh']).catch(() => undefined);
}

/** Files that differ from HEAD: a person's edits not yet committed (or a crash's leftovers). */
export async function uncommittedChanges(root: string): Promise<WorkingChange[]> {
  const out = await git(root).raw(['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=all']);
  const changes: WorkingChange[] = [];
  const parts = out.split('\u0000');
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i]!;
    if (entry.length < 4) continue;
    const status = entry.slice(0, 2);
    changes.push({ path: entry.slice(3), status });
    // A rename's source follows: a moved page (git mv) is committed as both its removal and its new path.
    if (status.startsWith('R')) changes.push({ path: parts[++i] ?? '', status: 'D ' });
    else if (status.startsWith('C')) i++;
  }
  return changes;
}

/**
 * The vault's .git/index.lock when no git process works in the vault (Linux: /proc; elsewhere: a lock
 * older than a minute), i.e. one a killed git left behind. Null when it is absent or may be live.
 */
async function staleIndexLock(root: string): Promise<{ file: string; age: string } | null> {
  const file = path.join(root, '.git', 'index.lock');
  const info = await stat(file).catch(() => null);
  if (info === null) return null;
  const seconds = Math.round((Date.now() - info.mtimeMs) / 1000);
  const age = seconds < 120 ? `${seconds} s old` : `left at ${info.mtime.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const live = await gitRunningIn(root);
  if (live === true || (live === null && seconds < 60)) return null;
  return { file, age };
}

/** Whether a git process has its working folder in the vault; null where /proc is not available. */
async function gitRunningIn(root: string): Promise<boolean | null> {
  let pids: string[];
  try {
    pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const real = await realpath(root).catch(() => root);
  for (const pid of pids) {
    const comm = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
    if (comm !== 'git') continue;
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => null);
    if (cwd === null || cwd === real || cwd.startsWith(`${real}${path.sep}`)) return true;
  }
  return false;
}

export interface FileChange {
  path: string;
  sha: string;
  date: string;
  subject: string;
  op: string | null;
}

/** Files changed by commits since `since` (ISO), newest commit first; one entry per file, its latest change. */
export async function changedFilesSince(root: string, since: string): Promise<FileChange[]> {
  let out: string;
  try {
    out = await git(root).raw(['log', `--since=${since}`, '--name-only', `--format=${RECORD}%H${FIELD}%aI${FIELD}%s${FIELD}%(trailers:key=${OP_TRAILER},valueonly,separator=%x2C)`]);
  } catch (error) {
    if (/does not have any commits/.test(errorMessage(error))) return [];
    throw error;
  }
  const seen = new Map<string, FileChange>();
  for (const record of out.split(RECORD)) {
    const [head = '', ...files] = record.split('\n');
    const [sha = '', date = '', subject = '', op = ''] = head.split(FIELD);
    if (sha === '') continue;
    for (const file of files) {
      if (file.trim() === '' || seen.has(file)) continue;
      seen.set(file, { path: file, sha, date, subject, op: op.trim() === '' ? null : op.trim() });
    }
  }
  return [...seen.values()];
}
