/**
 * Recoverable intents (DESIGN §9, "a crash at any point leaves the vault consistent"): a step that
 * changes several tracked files and then commits them (the dream's apply-and-commit, undo's
 * revert-and-commit) first writes `.vaultkeeper/intent.json` saying what it is about to do, and removes
 * it after the commit. The next writer finds a leftover intent and finishes the step — with the same
 * commit message and trailers — or, when what it needs is gone, puts the files back as they were.
 *
 * Appends to logs/ and the tombstones (remember, forget, doctor --fix) record an `append` intent naming
 * their files: what a crash leaves uncommitted there is the program's (a `recover:` commit), while log
 * lines no intent names were typed by a person and are committed as theirs (`log: lines written by hand`).
 */
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import { assertIntact, readTombstones } from '../tombstones/tombstones.js';
import { assertHealthyRepo } from './health.js';
import { copyFile, mkdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../core/config.js';
import type { WriteLock } from '../core/lock.js';
import { ConfinementError, confinedPath } from '../vault/confine.js';
import { writeConfined } from '../vault/confined-write.js';
import { commitIdentity, commitMessage, commitPaths } from './audit.js';
import type { Intent } from './intent-schema.js';
import { gitRunner } from './run.js';

export const INTENT_FILE = '.vaultkeeper/intent.json';
const TOMBSTONES = '.vaultkeeper/tombstones.jsonl';

export type { Intent };

export async function writeIntent(lock: WriteLock, intent: Intent): Promise<void> {
  await writeConfined(lock.root, INTENT_FILE, `${JSON.stringify(intent, null, 2)}\n`);
}

/** Says that the program is about to append to `paths` (logs, the tombstones) and commit them; cleared after the commit. */
export async function writeAppendIntent(lock: WriteLock, paths: readonly string[]): Promise<void> {
  try {
    await writeIntent(lock, { kind: 'append', paths: [...paths] });
  } catch (error) {
    // Before anything is appended: a full disk here means nothing was written, and says so.
    if ((error as NodeJS.ErrnoException).code === 'ENOSPC') {
      throw new VaultkeeperError('VK_DISK_FULL', `the disk is full: nothing was written to ${paths.join(', ')}`, { hint: 'free some space, then run the command again', cause: error });
    }
    throw error;
  }
}

export async function clearIntent(lock: WriteLock): Promise<void> {
  await rm(await confinedPath(lock.root, INTENT_FILE), { force: true });
}

async function readIntent(root: string): Promise<Intent | null> {
  let text: string;
  try {
    text = await readFile(path.join(root, INTENT_FILE), 'utf8');
  } catch {
    return null;
  }
  // The schema (zod) loads only when an intent was left behind: every remember reads this file.
  const { IntentSchema } = await import('./intent-schema.js');
  try {
    return IntentSchema.parse(JSON.parse(text));
  } catch {
    return null; // a torn intent was never acted on: the step had not started
  }
}

export interface Recovered {
  kind: Intent['kind'] | 'commit';
  subject: string;
  /** finished: the step's commit now exists; undone: its files were put back as they were. */
  outcome: 'finished' | 'undone' | 'was-done';
  commit: string | null;
}

/**
 * Finishes (or cleanly undoes) a step a crash interrupted, and commits the log lines a person typed; the
 * caller holds the write lock. Cheap when there is nothing to do (one failed read, one git status).
 * Returns what was recovered (a person's lines are not a recovery).
 */
export async function finishInterrupted(lock: WriteLock, config: Config): Promise<Recovered | null> {
  // Every writer passes here: a damaged tombstone file stops it (a fact it forgot could come back).
  assertIntact(await readTombstones(lock.root));
  await assertHealthyRepo(lock.root);
  const intent = await readIntent(lock.root);
  try {
    let result: Recovered | null = null;
    if (intent !== null && intent.kind !== 'append') result = await recover(lock, config, intent).catch((error: unknown) => Promise.reject(badIntent(error)));
    const leftovers = await commitLeftovers(lock, config, new Set(intent?.kind === 'append' ? intent.paths : []));
    // Cleared only once the leftovers are committed: a failed commit keeps them the program's for the next try.
    await clearIntent(lock);
    return leftovers ?? result;
  } catch (error) {
    throw leftoverFailed(error);
  }
}

/** commitPaths' own failures: the files are stored, only git's commit is missing. */
const COMMIT_FAILURES = new Set(['VK_DISK_FULL', 'VK_GIT_INDEX_LOCK', 'VK_GIT']);

/**
 * An intent that cannot be finished (hand-made, or naming what is no longer there): said as such, with the
 * way out. A commit failure inside it is said as one (leftoverFailed).
 */
function badIntent(error: unknown): unknown {
  if (error instanceof VaultkeeperError && COMMIT_FAILURES.has(error.code)) return error;
  return new VaultkeeperError('VK_BAD_INTENT', `${INTENT_FILE} records an interrupted step that cannot be finished (${errorMessage(error).split('\n')[0]}); nothing was done`, {
    hint: `look at it and at \`git status\`; remove ${INTENT_FILE} to drop the step (the files stay as they are), then run the command again`,
    cause: error,
  });
}

/**
 * An earlier command's change that this one could not commit, said as what it is: the earlier change is
 * stored (uncommitted), and this command has written nothing, so it must be run again.
 */
function leftoverFailed(error: unknown): unknown {
  if (!(error instanceof VaultkeeperError) || !COMMIT_FAILURES.has(error.code)) return error;
  return new VaultkeeperError(error.code, `nothing was done: an earlier change is stored in the files but git could not commit it (${error.message})`, {
    hint: `${error.hint ?? 'run `vaultkeeper doctor`'}, then run this command again (the earlier change is committed first)`,
    cause: error,
  });
}

/**
 * Uncommitted logs and tombstones. Those an append intent names were written by a command that died
 * before its commit (or whose commit failed): they are committed as its recovery, so a retry never
 * duplicates them. The others were written by a person (a line typed into a daily log): committed as theirs.
 */
async function commitLeftovers(lock: WriteLock, config: Config, appended: ReadonlySet<string>): Promise<Recovered | null> {
  // Pages and MEMORY.md an intent names (forget's scrub) are looked at too; a page no intent names is a person's.
  const others = [...appended].filter((rel) => rel !== TOMBSTONES && !rel.startsWith('logs/'));
  const out = await gitRunner(lock.root, ['core.quotepath=false']).raw(['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--', 'logs', TOMBSTONES, ...others]);
  const paths = out
    .split('\u0000')
    .filter((entry) => entry.length > 3 && entry[0] !== 'R' && entry[0] !== 'D' && entry[1] !== 'D')
    .map((entry) => entry.slice(3))
    .filter((rel) => rel === TOMBSTONES || /^logs\/\d{4}-\d{2}-\d{2}\.md$/.test(rel) || appended.has(rel));
  if (paths.length === 0) return null;
  const named = (list: readonly string[]): string => (list.length === 1 ? list[0]! : `${list.length} files`);
  const program = paths.filter((rel) => appended.has(rel));
  const person = paths.filter((rel) => !appended.has(rel));
  if (person.length > 0) {
    await commitPaths(lock, config, {
      op: 'log',
      subject: `log: lines written by hand in ${named(person)}`,
      body: `A person wrote these outside vaultkeeper (no command of the program was writing them); they are committed as they are.\n\n${person.map((p) => `- ${p}`).join('\n')}`,
      paths: person,
    });
  }
  if (program.length === 0) return null;
  const subject = `recover: commit ${named(program)} written before an interruption`;
  const commit = await commitPaths(lock, config, {
    op: 'recover',
    subject,
    body: `A command stored these and stopped before its commit (killed, a full disk, a git lock); they are committed as they are.\n\n${program.map((p) => `- ${p}`).join('\n')}`,
    paths: program,
  });
  return { kind: 'commit', subject, outcome: 'finished', commit };
}

async function recover(lock: WriteLock, config: Config, intent: Exclude<Intent, { kind: 'append' }>): Promise<Recovered> {
  const { root } = lock;
  const identity = await commitIdentity(root, config);
  const git = gitRunner(root, [`user.name=${identity.name}`, `user.email=${identity.email}`, 'commit.gpgsign=false', 'core.quotepath=false']);
  const message = commitMessage(intent.request);
  const done = (await git.raw(['log', '--format=%H%x1f%B%x1e', `${intent.base}..HEAD`]))
    .split('\x1e')
    .map((record) => record.replace(/^\n/, '').split('\x1f'))
    .find(([, body]) => body?.trim() === message.trim());
  const subject = intent.request.subject;
  if (done !== undefined) return { kind: intent.kind, subject, outcome: 'was-done', commit: done[0]! };

  if (intent.kind === 'revert') {
    const paths = intent.request.paths;
    const staged = (await git.raw(['diff', '--cached', '--name-only', '--', ...paths])).trim();
    if (staged === '') return { kind: 'revert', subject, outcome: 'undone', commit: null };
    await git.raw(['commit', '--quiet', '--no-verify', '-m', message, '--', ...paths]);
    return { kind: 'revert', subject, outcome: 'finished', commit: (await git.raw(['rev-parse', 'HEAD'])).trim() };
  }

  // The scratch tree lies under .vaultkeeper/ and every path is a real path of the run's result: a link
  // on the way (a page a person linked in since the crash, a linked folder) is refused, never followed.
  // When one of them became a link since the crash, the run is undone instead, and the link left as it is.
  const source = await confinedPath(root, intent.source, 'folder');
  const deleted = new Set(intent.deleted);
  const targets = await confinedTargets(root, intent.request.paths);
  if ((await exists(source)) && [...targets.values()].every((t) => t !== null)) {
    for (const rel of intent.request.paths) {
      const target = targets.get(rel)!;
      if (deleted.has(rel)) await rm(target, { force: true });
      else {
        await mkdir(path.dirname(target), { recursive: true });
        await copyFile(path.join(source, rel), target);
      }
    }
    const commit = await commitPaths(lock, config, intent.request);
    return { kind: 'apply', subject, outcome: 'finished', commit };
  }
  // What the step was copying is gone: put every path back as the last commit has it.
  for (const rel of intent.request.paths) {
    const target = targets.get(rel);
    if (target === null || target === undefined) continue; // a person's link: theirs, not the run's
    const inHead = (await git.raw(['ls-tree', '--name-only', 'HEAD', '--', rel])).trim() !== '';
    if (inHead) await git.raw(['checkout', 'HEAD', '--', rel]);
    else await rm(target, { force: true });
  }
  return { kind: 'apply', subject, outcome: 'undone', commit: null };
}

/** Each path's confined absolute path, or null where a link (or a file for a folder) is in the way. */
async function confinedTargets(root: string, paths: readonly string[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const rel of paths) {
    out.set(
      rel,
      await confinedPath(root, rel).catch((error: unknown) => {
        if (error instanceof ConfinementError) return null;
        throw error;
      }),
    );
  }
  return out;
}

async function exists(abs: string): Promise<boolean> {
  return stat(abs).then(
    () => true,
    () => false,
  );
}
