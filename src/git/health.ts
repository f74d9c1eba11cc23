/**
 * The cheap look at the vault's repository every writer takes before it writes (no git process: files only):
 * a HEAD that is missing, names a missing or empty object, or an unborn branch in a vault that has history
 * to lose. Writing on would fail half-way with git's own message, or silently start a new history; the
 * writer stops instead with `vaultkeeper doctor --fix`. The full diagnosis is doctor's (doctor/git-checks.ts).
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { VaultkeeperError } from '../core/errors.js';

export type HeadState =
  | { kind: 'no-git' }
  | { kind: 'missing-head' }
  | { kind: 'bad-head'; text: string }
  | { kind: 'unborn'; ref: string }
  | { kind: 'points'; ref: string | null; sha: string; object: 'loose' | 'empty' | 'missing' | 'packed' };

/** What HEAD names, read from the files of `.git` (a `.git` file, a linked worktree, is left to git: 'no-git'). */
export async function readHead(root: string): Promise<HeadState> {
  const gitDir = path.join(root, '.git');
  const info = await stat(gitDir).catch(() => null);
  if (info === null || !info.isDirectory()) return { kind: 'no-git' };
  const head = await readFile(path.join(gitDir, 'HEAD'), 'utf8').catch(() => null);
  if (head === null) return { kind: 'missing-head' };
  const text = head.trim();
  let ref: string | null = null;
  let sha: string | null = null;
  if (/^[0-9a-f]{40}$/.test(text)) sha = text;
  else {
    const match = /^ref: (refs\/\S+)$/.exec(text);
    if (match === null) return { kind: 'bad-head', text: text.slice(0, 60) };
    ref = match[1]!;
    sha = await resolveRef(gitDir, ref);
    if (sha === null) return { kind: 'unborn', ref };
  }
  return { kind: 'points', ref, sha, object: await objectState(gitDir, sha) };
}

async function resolveRef(gitDir: string, ref: string): Promise<string | null> {
  const loose = await readFile(path.join(gitDir, ref), 'utf8').catch(() => null);
  if (loose !== null) return /^[0-9a-f]{40}/.exec(loose.trim())?.[0] ?? 'bad-ref';
  const packed = await readFile(path.join(gitDir, 'packed-refs'), 'utf8').catch(() => '');
  for (const line of packed.split('\n')) {
    const [sha, name] = line.split(' ');
    if (name === ref && sha !== undefined && /^[0-9a-f]{40}$/.test(sha)) return sha;
  }
  return null;
}

async function objectState(gitDir: string, sha: string): Promise<'loose' | 'empty' | 'missing' | 'packed'> {
  if (!/^[0-9a-f]{40}$/.test(sha)) return 'missing';
  const info = await stat(path.join(gitDir, 'objects', sha.slice(0, 2), sha.slice(2))).catch(() => null);
  if (info !== null) return info.size === 0 ? 'empty' : 'loose';
  const packs = await readdir(path.join(gitDir, 'objects', 'pack')).catch(() => [] as string[]);
  // Which pack holds it is git's to say; a pack at all is the common case after `git gc`.
  return packs.some((name) => name.endsWith('.pack')) ? 'packed' : 'missing';
}

/** Whether the vault holds history to lose: fact logs on disk (a vault, not a folder just made). */
async function hasLogs(root: string): Promise<boolean> {
  const names = await readdir(path.join(root, 'logs')).catch(() => [] as string[]);
  return names.some((name) => /^\d{4}-\d{2}-\d{2}\.md$/.test(name));
}

/** Stops a writer (VK_GIT_DAMAGED) when the repository's HEAD is damaged; see the file's comment. */
export async function assertHealthyRepo(root: string): Promise<void> {
  const head = await readHead(root);
  const problem = await headProblem(root, head);
  if (problem === null) return;
  throw new VaultkeeperError('VK_GIT_DAMAGED', `the vault's git repository is damaged: ${problem}; nothing was written`, {
    hint: 'run `vaultkeeper doctor --fix` (it repairs what it can without losing a line, or says what to run), then run the command again',
  });
}

/** One phrase for what is wrong with HEAD, or null when it looks whole. */
export async function headProblem(root: string, head: HeadState): Promise<string | null> {
  switch (head.kind) {
    case 'no-git':
      return null;
    case 'missing-head':
      return '.git/HEAD is missing';
    case 'bad-head':
      return `.git/HEAD holds "${head.text}", not a branch`;
    case 'unborn':
      // A new vault's first commit is init's; an unborn branch beside fact logs would start a new history.
      return (await hasLogs(root)) ? `HEAD names the branch ${head.ref}, which has no commit (a new history would start)` : null;
    case 'points':
      if (head.object === 'empty') return `HEAD${head.ref === null ? '' : ` (${head.ref})`} names commit ${head.sha.slice(0, 12)}, whose object file is empty`;
      if (head.object === 'missing') return `HEAD${head.ref === null ? '' : ` (${head.ref})`} names commit ${head.sha.slice(0, 12)}, which is missing`;
      return null;
  }
}
