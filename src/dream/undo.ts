/**
 * `vaultkeeper undo RUN_ID`: reverts a dream run's commit, so its dates become pending again. Only the
 * newest run can be undone: reverting an older one would leave a newer watermark standing over days
 * whose pages were taken away. A run whose pages a person edited since (a commit not made by
 * vaultkeeper, their edits the program committed as a snapshot, or an uncommitted edit) is not undone:
 * the revert would take their words with it. What the program regenerates on its own (MEMORY.md,
 * index.md, the dashboard) never stands in the way: MEMORY.md and index.md are regenerated after the revert.
 */
import { simpleGit, type SimpleGit } from 'simple-git';
import { GIT_FSYNC_CONFIG } from '../git/run.js';
import { localStamp } from '../core/clock.js';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import { withLock, withWriteLock } from '../core/lock.js';
import { failpoint } from '../core/failpoint.js';
import { commitIdentity, commitMessage, history, uncommittedChanges, type HistoryEntry } from '../git/audit.js';
import { clearIntent, finishInterrupted, writeIntent } from '../git/intent.js';
import type { VaultContext } from '../vault/context.js';
import { DASHBOARD_PAGE } from '../vault/layout.js';
import { writeIndex } from './generate.js';
import { writeMemory } from './memory.js';
import { RUN_TRAILER } from './runner.js';
import { readDreamState, writeDreamState } from './state.js';

export interface UndoResult {
  run: string;
  reverted: string;
  commit: string;
}

/** Files the program rewrites from the pages whenever it likes: a later change to them is no person's edit. */
const REGENERATED = new Set(['MEMORY.md', 'index.md', DASHBOARD_PAGE]);
/** Commits of a person's own edits: no vaultkeeper trailer, or their edits committed by the program. */
const isPersons = (op: string | null): boolean => op === null || op === 'snapshot';

const runOf = (entry: HistoryEntry): string | null => new RegExp(`^${RUN_TRAILER}: (.+)$`, 'm').exec(entry.message)?.[1]?.trim() ?? null;

export async function undo(ctx: VaultContext, run: string, options: { now?: Date } = {}): Promise<UndoResult> {
  return withLock(ctx.root, 'dream', () =>
    withWriteLock(ctx.root, async (lock) => {
      await finishInterrupted(lock, ctx.config);
      const dreams = (await history(ctx.root)).filter((c) => c.op === 'dream' || c.op === 'undo');
      const target = dreams.find((c) => runOf(c) === run);
      if (target === undefined || target.op !== 'dream') {
        throw new VaultkeeperError('VK_NOT_FOUND', `no dream run ${run} in this vault's history`, { hint: 'see the runs with `vaultkeeper history log.md`' });
      }
      if (dreams[0]!.sha !== target.sha) {
        const newer = runOf(dreams[0]!) ?? dreams[0]!.sha.slice(0, 8);
        throw new VaultkeeperError('VK_UNDO_ORDER', `run ${run} is not the newest dream run`, { hint: `undo the newer run first: vaultkeeper undo ${newer}` });
      }
      const identity = await commitIdentity(ctx.root, ctx.config);
      const git = simpleGit({ baseDir: ctx.root, config: [...GIT_FSYNC_CONFIG, `user.name=${identity.name}`, `user.email=${identity.email}`, 'commit.gpgsign=false', 'core.quotepath=false'] });
      const paths = (await git.raw(['diff-tree', '--no-commit-id', '--name-only', '--no-renames', '-r', '-z', target.sha])).split('\u0000').filter((p) => p !== '');
      const regenerate = ['MEMORY.md', 'index.md'];
      await refuseOverEdits(ctx.root, git, run, target.sha, paths, regenerate);

      const request = {
        op: 'undo',
        subject: `undo: revert dream run ${run}`,
        body: 'Its pages and watermark go back to before the run, MEMORY.md and index.md are regenerated from the pages; its dates are pending again.',
        paths: [...new Set([...paths, ...regenerate])],
        trailers: { [RUN_TRAILER]: run },
      };
      // Written before the revert, removed after the commit: a crash in between is finished by the next writer.
      await writeIntent(lock, { kind: 'revert', base: (await git.raw(['rev-parse', 'HEAD'])).trim(), target: target.sha, request });
      try {
        await revert(git, run, target.sha);
        failpoint('undo:after-revert');
        const before = dreams.slice(1);
        const undone = new Set(before.filter((c) => c.op === 'undo').map(runOf));
        const standing = before.find((c) => c.op === 'dream' && !undone.has(runOf(c)));
        const label = standing === undefined ? 'none' : (runOf(standing) ?? 'none');
        await writeIndex(ctx.root, label);
        await writeMemory(ctx.root, ctx.root, label, { maxLines: ctx.config.dream.memory_lines, today: localStamp(options.now ?? new Date(), ctx.timeZone).date });
        await git.raw(['commit', '--quiet', '--no-verify', '-m', commitMessage(request), '--', ...request.paths]);
        failpoint('undo:after-commit');
      } catch (error) {
        await git.raw(['revert', '--abort']).catch(() => undefined);
        // The regenerated files go back as HEAD has them (the revert's own changes went with the abort).
        await git.raw(['checkout', 'HEAD', '--', ...regenerate]).catch(() => undefined);
        await clearIntent(lock);
        if (error instanceof VaultkeeperError) throw error;
        throw new VaultkeeperError('VK_UNDO_CONFLICT', `run ${run} cannot be reverted cleanly: ${errorMessage(error).split('\n')[0]}`, {
          hint: 'revert by hand with `git revert` and resolve; nothing was changed',
        });
      }
      await clearIntent(lock);
      // status must not name an undone run as the last good one.
      const state = await readDreamState(ctx.root);
      if (state.last_run === run) await writeDreamState(ctx.root, { ...state, last_status: 'undone' });
      return { run, reverted: target.sha, commit: (await git.raw(['rev-parse', 'HEAD'])).trim() };
    }),
  );
}

/**
 * Refuses when a person edited a file the run changed, since the run: in a commit of theirs (or a snapshot
 * of their edits), or not committed yet. The regenerated files are left out of the commits (the program
 * rewrites them), not of the uncommitted edits (the revert and the regeneration would write over them).
 */
async function refuseOverEdits(root: string, git: SimpleGit, run: string, sha: string, paths: readonly string[], regenerated: readonly string[]): Promise<void> {
  const changed = new Set(paths);
  const written = new Set([...paths, ...regenerated]);
  const uncommitted = (await uncommittedChanges(root)).find((c) => written.has(c.path));
  if (uncommitted !== undefined) {
    throw new VaultkeeperError('VK_UNDO_EDITED', `run ${run} changed ${uncommitted.path}, which has edits not committed yet; nothing was changed`, {
      hint: 'commit or discard those edits first (the next dream commits them), then undo again',
    });
  }
  const RECORD = '\u001e';
  const out = await git.raw(['log', '--no-renames', '--name-only', `--format=${RECORD}%H%x1f%B%x1f`, `${sha}..HEAD`]);
  for (const record of out.split(RECORD)) {
    const [commit = '', body = '', names = ''] = record.split('\u001f');
    if (commit === '') continue;
    const op = /^Vaultkeeper-Op: (.+)$/m.exec(body)?.[1]?.trim() ?? null;
    if (!isPersons(op)) continue;
    const edited = names.split('\n').find((name) => changed.has(name) && !REGENERATED.has(name));
    if (edited === undefined) continue;
    throw new VaultkeeperError('VK_UNDO_EDITED', `run ${run} changed ${edited}, which a person edited since (commit ${commit.slice(0, 8)}); nothing was changed`, {
      hint: `undoing the run would take the edit with it: keep the run, or revert by hand with \`git revert ${sha.slice(0, 8)}\` and resolve`,
    });
  }
}

/**
 * `git revert --no-commit`; a conflict only in files the program regenerates is no conflict: they are
 * taken as they are and regenerated after. A conflict in any other file (the program changed a page of the
 * run since, e.g. forget) is refused.
 */
async function revert(git: SimpleGit, run: string, sha: string): Promise<void> {
  try {
    await git.raw(['revert', '--no-edit', '--no-commit', sha]);
    return;
  } catch (error) {
    const unmerged = (await git.raw(['diff', '--name-only', '--diff-filter=U', '-z'])).split('\u0000').filter((p) => p !== '');
    if (unmerged.length === 0 || unmerged.some((p) => !REGENERATED.has(p))) {
      const other = unmerged.find((p) => !REGENERATED.has(p));
      if (other === undefined) throw error;
      throw new VaultkeeperError('VK_UNDO_CONFLICT', `run ${run} cannot be reverted cleanly: ${other} was changed by vaultkeeper since the run; nothing was changed`, {
        hint: 'revert by hand with `git revert` and resolve',
        cause: error,
      });
    }
    await git.raw(['checkout', 'HEAD', '--', ...unmerged]);
  }
}
