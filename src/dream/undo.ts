/**
 * `vaultkeeper undo RUN_ID`: reverts a dream run's commit, so its dates become pending again. Only the
 * newest run can be undone: reverting an older one would leave a newer watermark standing over days
 * whose pages were taken away.
 */
import { simpleGit } from 'simple-git';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import { withLock, withWriteLock } from '../core/lock.js';
import { failpoint } from '../core/failpoint.js';
import { commitIdentity, commitMessage, history } from '../git/audit.js';
import { clearIntent, finishInterrupted, writeIntent } from '../git/intent.js';
import type { VaultContext } from '../vault/context.js';
import { RUN_TRAILER } from './runner.js';
import { readDreamState, writeDreamState } from './state.js';

export interface UndoResult {
  run: string;
  reverted: string;
  commit: string;
}

export async function undo(ctx: VaultContext, run: string): Promise<UndoResult> {
  return withLock(ctx.root, 'dream', () =>
    withWriteLock(ctx.root, async (lock) => {
      await finishInterrupted(lock, ctx.config);
      const dreams = (await history(ctx.root)).filter((c) => c.op === 'dream' || c.op === 'undo');
      const target = dreams.find((c) => new RegExp(`^${RUN_TRAILER}: ${run}$`, 'm').test(c.message));
      if (target === undefined || target.op !== 'dream') {
        throw new VaultkeeperError('VK_NOT_FOUND', `no dream run ${run} in this vault's history`, { hint: 'see the runs with `vaultkeeper history log.md`' });
      }
      if (dreams[0]!.sha !== target.sha) {
        const newer = /^Vaultkeeper-Run: (.+)$/m.exec(dreams[0]!.message)?.[1] ?? dreams[0]!.sha.slice(0, 8);
        throw new VaultkeeperError('VK_UNDO_ORDER', `run ${run} is not the newest dream run`, { hint: `undo the newer run first: vaultkeeper undo ${newer}` });
      }
      const identity = await commitIdentity(ctx.root, ctx.config);
      const git = simpleGit({ baseDir: ctx.root, config: [`user.name=${identity.name}`, `user.email=${identity.email}`, 'commit.gpgsign=false', 'core.quotepath=false'] });
      const paths = (await git.raw(['diff-tree', '--no-commit-id', '--name-only', '-r', '-z', target.sha])).split('\u0000').filter((p) => p !== '');
      const request = {
        op: 'undo',
        subject: `undo: revert dream run ${run}`,
        body: 'Its pages, watermark, index.md and MEMORY.md go back to before the run; its dates are pending again.',
        paths,
        trailers: { [RUN_TRAILER]: run },
      };
      // Written before the revert, removed after the commit: a crash in between is finished by the next writer.
      await writeIntent(lock, { kind: 'revert', base: (await git.raw(['rev-parse', 'HEAD'])).trim(), target: target.sha, request });
      try {
        await git.raw(['revert', '--no-edit', '--no-commit', target.sha]);
        failpoint('undo:after-revert');
        await git.raw(['commit', '--quiet', '--no-verify', '-m', commitMessage(request), '--', ...paths]);
        failpoint('undo:after-commit');
      } catch (error) {
        await git.raw(['revert', '--abort']).catch(() => undefined);
        await clearIntent(lock);
        throw new VaultkeeperError('VK_UNDO_CONFLICT', `run ${run} cannot be reverted cleanly: ${errorMessage(error).split('\n')[0]}`, {
          hint: 'pages it changed were edited since; revert by hand with `git revert` and resolve, nothing was changed',
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
