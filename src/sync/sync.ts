/**
 * `vaultkeeper sync`: the vault's git remote is how one person's machines share one memory (issue 28). Fetch, merge,
 * push, under the vault's dream and write locks. Logs, tombstones and log.md only grow, so they merge by keeping every
 * line of both sides (merge-files.ts, run by git as a merge driver); pages merge as git merges text, and a real
 * conflict stops the sync with nothing merged and nothing lost. What arrives is then made whole on this machine: the
 * lines of facts forgotten on the other machine leave the pages, MEMORY.md and index.md are regenerated when both sides
 * changed them, and the caller reindexes.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { localStamp } from '../core/clock.js';
import type { Config } from '../core/config.js';
import { CONFIG_FILE } from '../core/config-keys.js';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import { withLock, withWriteLock, type WriteLock } from '../core/lock.js';
import { packageFile } from '../core/package-files.js';
import { commitIdentity, commitMessage, commitPaths } from '../git/audit.js';
import { finishInterrupted } from '../git/intent.js';
import { GitCommandError, gitRunner, type GitRunner } from '../git/run.js';
import { snapshotEdits } from '../git/snapshot.js';
import { removeForgottenLines } from '../dream/forgotten.js';
import { writeIndex } from '../dream/generate.js';
import { MEMORY_FILE, regenerateMemory } from '../dream/memory.js';
import { readDreamState } from '../dream/state.js';
import { readTombstones, TOMBSTONES_FILE } from '../tombstones/tombstones.js';
import { writeConfined } from '../vault/confined-write.js';
import type { VaultContext } from '../vault/context.js';
import { clearPushDue, readPushDue } from '../purge/push-due.js';
import { machineName } from './machine.js';

export const ATTRIBUTES_FILE = '.gitattributes';
const REMOTE = 'origin';
/** The files git's merge driver handles (merge-files.ts), as .gitattributes names them. */
const ATTRIBUTES = [
  'logs/*.md merge=vaultkeeper-log',
  `${TOMBSTONES_FILE} merge=vaultkeeper-lines`,
  'log.md merge=vaultkeeper-lines',
];
/** Files the program regenerates from the pages: a conflict in them is settled by regenerating them. */
const REGENERATED = new Set([MEMORY_FILE, 'index.md']);

export interface SyncOptions {
  /** Sets the remote first (`origin`): a URL or a path to a (bare) repository. */
  remote?: string | undefined;
  env?: NodeJS.ProcessEnv;
  now?: Date;
}

export interface SyncResult {
  remote: string;
  branch: string;
  /** Commits that arrived from the remote. */
  received: number;
  /** Commits this machine sent. */
  sent: number;
  /** The merge commit, when both sides had new commits. */
  merge: string | null;
  /** Pages from which lines of facts forgotten on another machine were removed. */
  forgotten_pages: string[];
  /** Set when this sync made this machine the one that dreams (the first sync of a vault with no `dream.where`). */
  dreams_here: string | null;
  /** The vault's HEAD after the sync. */
  head: string;
  /** Set when this sync force-pushed the history a purge rewrote (what it means for the remote and other clones). */
  force_pushed: string | null;
}

export async function sync(ctx: VaultContext, options: SyncOptions = {}): Promise<SyncResult> {
  const env = options.env ?? ctx.env;
  // A dream applying pages while a merge rewrites them would write over what arrived: one waits for the other.
  return withLock(ctx.root, 'dream', () => withWriteLock(ctx.root, (lock) => syncLocked(ctx, lock, options, env)), { waitMs: 20_000 });
}

async function syncLocked(ctx: VaultContext, lock: WriteLock, options: SyncOptions, env: NodeJS.ProcessEnv): Promise<SyncResult> {
  await finishInterrupted(lock, ctx.config);
  const identity = await commitIdentity(ctx.root, ctx.config);
  const git = gitRunner(ctx.root, ['commit.gpgsign=false', 'core.quotepath=false', `user.name=${identity.name}`, `user.email=${identity.email}`]);
  const url = await setRemote(git, options.remote);
  await installMergeDriver(git);
  await commitAttributes(lock, ctx.config);
  const dreamsHere = await claimDream(lock, ctx, env);
  await snapshotEdits(lock, ctx.config, { before: 'sync', why: "Committed as they were, so the sync merges them with the other machine's changes." });

  const branch = (await git.raw(['symbolic-ref', '--short', 'HEAD'])).trim();
  // After a purge the remote holds the old history: it is replaced, never fetched and merged (push-due.ts).
  const due = (await readPushDue(ctx.root))?.remotes[REMOTE];
  if (due !== undefined) return forcePush(git, ctx, { url, branch, lease: due[branch] ?? null, dreamsHere });
  let received = 0;
  let sent = 0;
  let merge: string | null = null;
  let forgottenPages: string[] = [];
  // A push refused because the other machine pushed in between is fetched, merged and pushed again.
  for (let attempt = 0; ; attempt++) {
    const known = await remoteHead(git, branch);
    await runGit(git, ['fetch', '--quiet', REMOTE], `cannot fetch from ${url}`);
    const theirs = await remoteHead(git, branch);
    if (known !== null && theirs !== null && !(await isAncestor(git, known, theirs))) refuseRewritten(url, branch);
    if (theirs !== null) {
      const incoming = Number((await git.raw(['rev-list', '--count', `HEAD..${theirs}`])).trim());
      if (incoming > 0) {
        received += incoming;
        const tombstonesBefore = await readFile(path.join(ctx.root, TOMBSTONES_FILE), 'utf8').catch(() => '');
        const merged = await mergeRemote(git, ctx, theirs, branch);
        merge = merged.merge ?? merge;
        const tombstonesArrived = (await readFile(path.join(ctx.root, TOMBSTONES_FILE), 'utf8').catch(() => '')) !== tombstonesBefore;
        const settled = await settleArrivals(lock, ctx, { tombstonesArrived, regenerate: merged.settled, now: options.now });
        forgottenPages = [...new Set([...forgottenPages, ...settled])];
      }
    }
    const outgoing = await git.raw(['rev-list', '--count', 'HEAD', ...(theirs === null ? [] : [`^${theirs}`])]);
    try {
      await git.raw(['push', '--quiet', REMOTE, `HEAD:refs/heads/${branch}`]);
      sent = Number(outgoing.trim());
      break;
    } catch (error) {
      if (attempt >= 2 || !(error instanceof GitCommandError) || !/rejected|fetch first|non-fast-forward/i.test(error.message)) {
        throw new VaultkeeperError('VK_SYNC_PUSH', `cannot push to ${url}: ${firstLine(error)}`, {
          hint: 'the changes are merged here and committed; run `vaultkeeper sync` again when the remote can be reached',
        });
      }
    }
  }
  const after = await head(git);
  return { remote: url, branch, received, sent, merge, forgotten_pages: forgottenPages, dreams_here: dreamsHere, head: after ?? '', force_pushed: null };
}

/**
 * The push after a purge: --force-with-lease on the head the remote had when this clone last fetched (recorded by
 * the purge), so commits another machine pushed since are never dropped unseen; then the record goes.
 */
async function forcePush(git: GitRunner, ctx: VaultContext, to: { url: string; branch: string; lease: string | null; dreamsHere: string | null }): Promise<SyncResult> {
  const { url, branch, lease } = to;
  let listed = '';
  try {
    listed = await git.raw(['ls-remote', REMOTE, `refs/heads/${branch}`]);
  } catch (error) {
    throw new VaultkeeperError('VK_SYNC_REMOTE', `cannot reach ${url}: ${firstLine(error)}`, { hint: 'check the remote and the network; the purged history is pushed by the next sync' });
  }
  const theirs = listed.trim().split(/\s+/)[0] || null;
  const ours = (await head(git)) ?? '';
  if (theirs !== null && lease !== null && theirs !== lease && theirs !== ours) {
    throw new VaultkeeperError('VK_SYNC_PURGE_MOVED', `${url} got new commits after this vault's purge: a force push would drop them and a merge would bring the purged text back; nothing was pushed`, {
      hint: `look at them in another clone; to replace them with this history: git -C ${quote(ctx.root)} push --force ${REMOTE} HEAD:${branch}, then vaultkeeper sync`,
    });
  }
  try {
    await git.raw(['push', '--quiet', `--force-with-lease=refs/heads/${branch}:${theirs ?? ''}`, REMOTE, `HEAD:refs/heads/${branch}`]);
  } catch (error) {
    throw new VaultkeeperError('VK_SYNC_PUSH', `cannot force-push the purged history to ${url}: ${firstLine(error)}`, {
      hint: 'nothing was merged; run `vaultkeeper sync` again (it force-pushes, never merges, until the push went through)',
    });
  }
  await git.raw(['update-ref', `refs/remotes/${REMOTE}/${branch}`, 'HEAD']);
  await clearPushDue(ctx.root, REMOTE);
  return {
    remote: url,
    branch,
    received: 0,
    sent: Number((await git.raw(['rev-list', '--count', 'HEAD'])).trim()),
    merge: null,
    forgotten_pages: [],
    dreams_here: to.dreamsHere,
    head: ours,
    force_pushed: `force-pushed the history a purge rewrote to ${url} (${branch}${theirs === null ? '' : `, was ${theirs.slice(0, 8)}`}): other clones must be cloned again, and a server keeps the old objects until its own garbage collection`,
  };
}

async function setRemote(git: GitRunner, remote: string | undefined): Promise<string> {
  const remotes = (await git.raw(['remote'])).split('\n').map((r) => r.trim());
  if (remote !== undefined) {
    await git.raw(remotes.includes(REMOTE) ? ['remote', 'set-url', REMOTE, remote] : ['remote', 'add', REMOTE, remote]);
    return remote;
  }
  if (!remotes.includes(REMOTE)) {
    throw new VaultkeeperError('VK_SYNC_NO_REMOTE', 'this vault has no remote to sync with', {
      hint: 'name one once: vaultkeeper sync --remote URL (a bare git repository or any git URL)',
    });
  }
  return (await git.raw(['remote', 'get-url', REMOTE])).trim();
}

/**
 * The merge driver lives in this clone's .git/config (git never takes drivers from a repository's files); it is
 * written on every sync so that it names this installation's CLI even after the package moved.
 */
export async function installMergeDriver(git: GitRunner): Promise<void> {
  const cli = packageFile('dist/bin/vaultkeeper.js');
  const command = (kind: string): string => `${quote(process.execPath)} ${quote(cli)} merge-file ${kind} %O %A %B`;
  await git.raw(['config', 'merge.vaultkeeper-log.name', 'vaultkeeper: a daily log keeps every batch of both sides']);
  await git.raw(['config', 'merge.vaultkeeper-log.driver', command('log')]);
  await git.raw(['config', 'merge.vaultkeeper-lines.name', 'vaultkeeper: an append-only file keeps every line of both sides']);
  await git.raw(['config', 'merge.vaultkeeper-lines.driver', command('lines')]);
}

const quote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/** .gitattributes names the merge rules for every clone; committed once, a person's own lines kept. */
async function commitAttributes(lock: WriteLock, config: Config): Promise<void> {
  const existing = await readFile(path.join(lock.root, ATTRIBUTES_FILE), 'utf8').catch(() => '');
  const lines = existing.split('\n').map((l) => l.trim());
  const missing = ATTRIBUTES.filter((rule) => !lines.includes(rule));
  if (missing.length === 0) return;
  const prefix = existing === '' ? '# vaultkeeper sync: files that only grow merge by keeping every line of both machines.\n' : existing.endsWith('\n') ? '' : '\n';
  await writeConfined(lock.root, ATTRIBUTES_FILE, `${existing}${prefix}${missing.join('\n')}\n`);
  await commitPaths(lock, config, {
    op: 'sync',
    subject: 'sync: merge rules for logs, tombstones and log.md',
    body: 'They only grow: a merge keeps every line of both machines, each fact once (.gitattributes).',
    paths: [ATTRIBUTES_FILE],
  });
}

/** The first sync of a vault no machine dreams for makes this machine the one (`dream.where`), in the shared config. */
async function claimDream(lock: WriteLock, ctx: VaultContext, env: NodeJS.ProcessEnv): Promise<string | null> {
  if (ctx.config.dream.where.trim() !== '') return null;
  const file = path.join(lock.root, CONFIG_FILE);
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  const here = machineName(env);
  const doc = parseDocument(text);
  doc.setIn(['dream', 'where'], here);
  await writeConfined(lock.root, CONFIG_FILE, String(doc));
  await commitPaths(lock, ctx.config, {
    op: 'sync',
    subject: `sync: ${here} dreams for this vault (dream.where)`,
    body: 'One machine consolidates a synced vault; the others receive its pages. Change dream.where to move it.',
    paths: [CONFIG_FILE],
  });
  return here;
}

/** Whether `older` is in the history of `newer` (git merge-base --is-ancestor: exit 1 means no). */
async function isAncestor(git: GitRunner, older: string, newer: string): Promise<boolean> {
  try {
    await git.raw(['merge-base', '--is-ancestor', older, newer]);
    return true;
  } catch (error) {
    if (error instanceof GitCommandError && error.exitCode === 1) return false;
    throw error;
  }
}

/**
 * The remote's branch no longer holds what this clone last fetched: another machine replaced its history (a purge's
 * force push). A merge would bring back what the purge erased, so nothing is merged or pushed.
 */
function refuseRewritten(url: string, branch: string): never {
  throw new VaultkeeperError('VK_SYNC_REWRITTEN', `the history of ${url} (${branch}) was rewritten by another machine (a purge); merging it would bring back what the purge erased, so nothing was merged or pushed`, {
    hint: 'clone the vault again (`vaultkeeper clone URL NEW_PATH`), remember there what this machine added since its last sync, then delete this copy: it still holds what was purged',
  });
}

async function remoteHead(git: GitRunner, branch: string): Promise<string | null> {
  const out = await git.raw(['rev-parse', '--verify', '--quiet', `refs/remotes/${REMOTE}/${branch}`]).catch(() => '');
  return out.trim() === '' ? null : out.trim();
}

async function head(git: GitRunner): Promise<string | null> {
  const out = await git.raw(['rev-parse', '--verify', '--quiet', 'HEAD']).catch(() => '');
  return out.trim() === '' ? null : out.trim();
}

/**
 * Merges the remote's branch. Conflicts only in the regenerated files are settled (theirs taken, then regenerated by
 * settleArrivals); any other conflict aborts the merge, leaves this machine as it was and says which pages.
 */
async function mergeRemote(git: GitRunner, ctx: VaultContext, theirs: string, branch: string): Promise<{ merge: string | null; settled: string[] }> {
  const message = commitMessage({ op: 'sync', subject: `sync: merge ${REMOTE}/${branch}`, paths: [] });
  let settled: string[] = [];
  try {
    await git.raw(['merge', '--quiet', '--no-edit', '-m', message, theirs]);
  } catch (error) {
    const unmerged = (await git.raw(['diff', '--name-only', '--diff-filter=U']).catch(() => '')).split('\n').filter((p) => p !== '');
    if (unmerged.length === 0 || unmerged.some((p) => !REGENERATED.has(p))) {
      await git.raw(['merge', '--abort']).catch(() => undefined);
      const pages = unmerged.filter((p) => !REGENERATED.has(p));
      if (pages.length === 0) throw new VaultkeeperError('VK_SYNC_MERGE', `cannot merge ${REMOTE}/${branch}: ${firstLine(error)}`, { hint: 'nothing was merged; see `git -C VAULT status`' });
      throw new VaultkeeperError(
        'VK_SYNC_CONFLICT',
        `${pages[0]}${pages.length > 1 ? ` and ${pages.length - 1} more` : ''} changed on both machines in the same lines; nothing was merged and nothing is lost`,
        { hint: `merge by hand: git -C ${quote(ctx.root)} merge ${REMOTE}/${branch}, settle the marked lines, commit, then vaultkeeper sync` },
      );
    }
    settled = unmerged;
    await git.raw(['checkout', '--theirs', '--', ...unmerged]);
    await git.raw(['add', '--', ...unmerged]);
    await git.raw(['commit', '--quiet', '--no-verify', '-m', message]);
  }
  const sha = (await git.raw(['rev-parse', 'HEAD'])).trim();
  const parents = (await git.raw(['rev-list', '--parents', '-n', '1', 'HEAD'])).trim().split(' ');
  return { merge: parents.length > 2 ? sha : null, settled };
}

/**
 * What arrived is made whole here: when tombstones arrived, lines of facts forgotten on the other machine leave the
 * pages (a page this machine changed still held them) and MEMORY.md follows; a regenerated file both sides changed is
 * regenerated from the merged pages. One commit, when anything changed.
 */
async function settleArrivals(
  lock: WriteLock,
  ctx: VaultContext,
  options: { tombstonesArrived: boolean; regenerate: readonly string[]; now?: Date | undefined },
): Promise<string[]> {
  const scrubbed = options.tombstonesArrived ? await removeForgottenLines(ctx.root, await readTombstones(ctx.root)) : [];
  const pages = scrubbed.map((s) => s.path);
  const paths: string[] = [...pages];
  if (options.tombstonesArrived || options.regenerate.includes(MEMORY_FILE)) {
    const today = localStamp(options.now ?? new Date(), ctx.timeZone).date;
    const memory = await regenerateMemory(ctx.root, { maxLines: ctx.config.dream.memory_lines, today });
    if (memory.changed) paths.push(MEMORY_FILE);
  }
  if (options.regenerate.includes('index.md')) {
    // The label of the last run is theirs (the dreaming machine's), kept from the file taken in the merge.
    const taken = await readFile(path.join(ctx.root, 'index.md'), 'utf8').catch(() => '');
    const label = /\(last: ([^)]+)\)/.exec(taken)?.[1] ?? (await readDreamState(ctx.root)).last_run ?? 'none';
    await writeIndex(ctx.root, label);
    if ((await readFile(path.join(ctx.root, 'index.md'), 'utf8').catch(() => '')) !== taken) paths.push('index.md');
  }
  if (paths.length === 0) return [];
  await commitPaths(lock, ctx.config, {
    op: 'sync',
    subject: 'sync: pages made whole after a merge',
    body: [
      ...(pages.length === 0 ? [] : ['Lines of facts forgotten on another machine removed:', ...pages.map((p) => `~ ${p}`), '']),
      ...paths.filter((p) => !pages.includes(p)).map((p) => `${p} regenerated from the merged pages.`),
    ].join('\n'),
    paths,
  });
  return pages;
}

async function runGit(git: GitRunner, args: readonly string[], what: string): Promise<void> {
  try {
    await git.raw(args);
  } catch (error) {
    throw new VaultkeeperError('VK_SYNC_REMOTE', `${what}: ${firstLine(error)}`, { hint: 'check the remote (git -C VAULT remote -v) and the network; nothing was changed' });
  }
}

const firstLine = (error: unknown): string => errorMessage(error).split('\n').find((l) => l.trim() !== '')?.trim() ?? 'git failed';
