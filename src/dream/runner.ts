/**
 * The dream runner (DESIGN §7): gate, lock, batch, a snapshot of a person's edits, the consolidator in a
 * scratch worktree, the checks, and only then the watermark, index.md, MEMORY.md and one git commit for
 * the whole run. The vault itself changes only in that last step, so a failed check, a timeout or a
 * crash leaves it as it was, and the batch is simply redone.
 */
import { dreamsElsewhere } from '../sync/machine.js';
import { mkdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { syncDirs, writeFileAtomic } from './tools/atomic.js';
import path from 'node:path';
import { localStamp } from '../core/clock.js';
import { errorMessage, VaultkeeperError } from '../core/errors.js';
import { withLock, withWriteLock } from '../core/lock.js';
import { failpoint } from '../core/failpoint.js';
import { redact } from '../core/redact.js';
import { commitPaths, uncommittedChanges, type CommitRequest } from '../git/audit.js';
import { snapshotEdits } from '../git/snapshot.js';
import { clearIntent, finishInterrupted, writeIntent } from '../git/intent.js';
import { checkoutScratch, commitScratch, headCommit, preloadFiles, removeScratchTrees, removeWorktree, SCRATCH_TREE, showFile, worktreeChanges, worktreeDiff, WORKTREES_DIR, type PathChange } from '../git/worktree.js';
import { readLog, type Fact } from '../logs/factlog.js';
import { isWikiPagePath } from '../pages/discover.js';
import { readTombstones } from '../tombstones/tombstones.js';
import type { LlmExecutor } from '../llm/executor.js';
import { LlmCapError } from '../llm/errors.js';
import { confinedPath, isWithin } from '../vault/confine.js';
import type { VaultContext } from '../vault/context.js';
import { wholePages } from './bound.js';
import { classifyChanges, pagesParse, personLinesKept, personPagesStay, placedAndCitedIds, placedShare, proofOfWork, readOnlyNotesKept, uncitedFacts, type CheckFailure, type CheckName, type PageChanges } from './checks.js';
import { claimsCited } from './claims.js';
import { holdNewestCurrent, type CurrentCorrection } from './stale-current.js';
import { citationsKept, pageCitations } from './citations.js';
import type { ConsolidationResult, Consolidator, DreamEvent } from './consolidator.js';
import { conflictsWithoutForgotten, forgottenLinesGone, forgottenLinesHeld, forgottenRemoved, removeForgottenLines, removeForgottenNames } from './forgotten.js';
import { forgetMatcher, scrubForgotten } from './forget-match.js';
import { keyCheck, keyIn, type KeyCheck } from './key-check.js';
import { scrubRunLogs } from './agent/runlog.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import { archiveColdPages, type ArchivedPage } from './archive.js';
import { decide, pendingDates, retryBatch, unplacedFacts } from './gate.js';
import { appendJournal, fileConflicts, fileUncited, journalLine, replaceJournalLine, skippedLine, writeIndex } from './generate.js';
import { writeMemory } from './memory.js';
import { JOURNAL_FILE, readJournal } from './journal.js';
import { pageChecks, writtenLinks } from './page-checks.js';
import { backOff, batchKey, readDreamState, succeeded, writeDreamState, type DreamState } from './state.js';
import { readOnlyPages } from './ownership.js';
import { isGeneratedPage } from '../vault/layout.js';

export type DreamStatus = 'ok' | 'gated' | 'noop' | 'failed' | 'skipped' | 'dry-run';

export interface DreamOptions {
  force?: boolean;
  dryRun?: boolean;
  /** Use the offline consolidator even when an LLM is configured. */
  offline?: boolean;
  now?: Date;
  onEvent?: (event: DreamEvent) => void;
  /** The daemon's LLM executor: every model call of the run goes through it (its queue, backoff, caps). */
  executor?: LlmExecutor;
  /**
   * Retry the skipped days instead of the pending ones (`dream --retry-skipped`): the least retried and
   * oldest first, at most `dream.max_days`, as one batch; no gate. A day it places is no longer skipped.
   */
  retrySkipped?: boolean;
}

export interface DreamDeps {
  search(query: string, k: number): Promise<unknown[]>;
  reindex(): Promise<unknown>;
}

export interface DreamResult {
  status: DreamStatus;
  run: string | null;
  reason: string;
  /** The check that failed, when status is failed. */
  check: CheckName | 'timeout' | 'consolidator' | 'apply' | null;
  batch: { from: string; to: string } | null;
  watermark: { before: string | null; after: string | null };
  pages: PageChanges;
  /** Facts of the batch (not forgotten). */
  facts: number;
  /** Facts of the batch the consolidator itself cited on pages outside 0_Inbox/ (its proof of work). */
  placed: number;
  /** Facts no page cited after the consolidator: the runner filed them in 0_Inbox/unsorted.md. */
  uncited: number;
  conflicts: number;
  llm: { calls: number; tokens: number };
  consolidator: 'offline' | 'llm' | null;
  /** Why the offline consolidator ran although an LLM is configured (unreachable, failing, over a cap), else null. */
  fallback: string | null;
  /** Page lines the runner removed because they cite or repeat a forgotten fact. */
  forgotten: number;
  /** Stale `## Current` lines the runner corrected to the newest value (the old value moved to History). */
  corrected: CurrentCorrection[];
  commit: string | null;
  /** Pages that resolve outside the vault: read, never rewritten (DESIGN §9). */
  outside?: string[];
  /** The unified diff a dry run would commit. */
  diff?: string;
  /**
   * What the run did, from the runner's counts; the consolidator's own summary follows, marked as its words
   * (redacted). A failed run carries only the latter.
   */
  summary?: string;
  /** After a failed or waiting run: when the gate lets the next try through (the backoff, docs/cli.md). */
  retry_at?: string;
  /** A retry of skipped days (`retrySkipped`): the days it placed, no longer skipped. */
  retried?: string[];
}

export { WORKTREES_DIR } from '../git/worktree.js';
export const RUN_TRAILER = 'Vaultkeeper-Run';
/** How long a timed-out consolidator gets to stop before the run goes on without it. */
const SETTLE_MS = 5_000;

export function runId(now: Date): string {
  const iso = now.toISOString();
  return `r-${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}`;
}

function emptyResult(status: DreamStatus, reason: string, watermark: string | null): DreamResult {
  return {
    status,
    run: null,
    reason,
    check: null,
    batch: null,
    watermark: { before: watermark, after: watermark },
    pages: { created: [], updated: [], archived: [] },
    facts: 0,
    placed: 0,
    uncited: 0,
    conflicts: 0,
    llm: { calls: 0, tokens: 0 },
    consolidator: null,
    fallback: null,
    forgotten: 0,
    corrected: [],
    commit: null,
  };
}

class CheckFailed extends Error {
  constructor(readonly failure: CheckFailure | { check: 'timeout' | 'consolidator' | 'apply'; message: string }, cause?: unknown) {
    super(failure.message, cause === undefined ? undefined : { cause });
  }
}

/** The LLM cannot be used now and llm.fallback is "wait": not a failed batch, the run is simply not made. */
class WaitForLlm extends Error {
  /** When a daily cap resets, if that is why: the next try waits for it. */
  readonly resetsAt: Date | null;

  constructor(message: string, resetsAt: Date | null) {
    super(message);
    this.resetsAt = resetsAt;
  }
}

/**
 * Codes of an LLM that cannot be used (down, failing, answering nonsense, over a cap or its run's budget,
 * not configured): the endpoint's trouble or the budget's, not the batch's, so it never counts toward
 * dream.max_retries.
 */
const LLM_UNAVAILABLE = new Set(['VK_LLM_REQUEST', 'VK_LLM_CAP', 'VK_LLM_RESPONSE', 'VK_LLM_CONFIG', 'VK_DREAM_BUDGET']);

export function llmUnavailable(error: unknown): boolean {
  return error instanceof VaultkeeperError && LLM_UNAVAILABLE.has(error.code);
}

/** When the daily cap that stopped the run resets, found along the error's causes; else null. */
function capResetsAt(error: unknown): Date | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof LlmCapError) return e.resetsAt;
  }
  return null;
}

export async function chooseConsolidator(ctx: VaultContext, offline: boolean, executor?: LlmExecutor): Promise<Consolidator> {
  const { llm } = ctx.config;
  if (!offline && llm.base_url !== null && llm.model !== null) {
    const { createLlmConsolidator } = await import('./agent/agent.js');
    return createLlmConsolidator(llm, ctx.env, executor === undefined ? {} : { executor });
  }
  const { createOfflineConsolidator } = await import('./offline.js');
  return createOfflineConsolidator();
}

export async function dream(ctx: VaultContext, options: DreamOptions, deps: DreamDeps): Promise<DreamResult> {
  // Long enough to outlast a lock left by a crashed run (stale after 15 s), so the next run redoes the batch.
  return withLock(ctx.root, 'dream', () => runLocked(ctx, options, deps), { waitMs: 20_000 });
}

async function runLocked(ctx: VaultContext, options: DreamOptions, deps: DreamDeps): Promise<DreamResult> {
  const now = options.now ?? new Date();
  const emit = options.onEvent ?? (() => undefined);
  // A step a crash interrupted (a run between apply and commit, an undo) is finished or put back first.
  const recovered = await withWriteLock(ctx.root, (lock) => finishInterrupted(lock, ctx.config));
  if (recovered !== null) emit({ type: 'step', message: `an interrupted step was ${recovered.outcome === 'undone' ? 'put back' : 'finished'}: ${recovered.subject}` });
  const journal = await readJournal(ctx.root);
  // A synced vault dreams on one machine (dream.where); here, even --force only says where.
  const elsewhere = dreamsElsewhere(ctx.config, ctx.env);
  if (elsewhere !== null) return emptyResult('gated', elsewhere, journal.watermark);
  const tombstones = await readTombstones(ctx.root);
  const state = await readDreamState(ctx.root);
  const today = localStamp(now, ctx.timeZone).date;
  const retrying = options.retrySkipped ?? false;
  let dates: string[];
  if (retrying) {
    dates = retryBatch(journal, state, ctx.config.dream);
    if (dates.length === 0) return emptyResult('noop', 'no skipped days to retry', journal.watermark);
  } else {
    const pending = await pendingDates(ctx.root, journal, today, tombstones);
    const decision = decide(pending, state, ctx.config.dream, now, options.force ?? false);
    if (!decision.open) {
      const gated = emptyResult(decision.status, decision.reason, journal.watermark);
      if (decision.status === 'gated' && decision.gate === 'backoff' && decision.opensAt !== null) gated.retry_at = decision.opensAt;
      return gated;
    }
    dates = decision.batch;
  }
  const run = runId(now);
  const result = emptyResult('ok', '', journal.watermark);
  result.run = run;
  result.batch = { from: dates[0]!, to: dates.at(-1)! };
  const facts: Fact[] = [];
  // A date at or below the watermark is in the batch only for its facts no page cites yet (DESIGN §7), a
  // skipped day only for the facts written after it was skipped, unless the run retries it whole.
  const placed = dates.some((date) => retrying || journal.skipped.has(date) || (journal.watermark !== null && date <= journal.watermark)) ? await pageCitations(ctx.root, tombstones) : null;
  for (const date of dates) {
    const all = (await readLog(ctx.root, date)).facts;
    // A retry takes the skipped day whole: every live fact of it that no page cites.
    const live = retrying ? all.filter((f) => !tombstones.hasId(f.id) && !tombstones.repeats(f.text) && placed?.has(f.id) !== true) : unplacedFacts(date, all, journal, tombstones, placed);
    facts.push(...live);
  }
  result.facts = facts.length;
  emit({ type: 'step', message: `run ${run}: ${dates.length} days (${result.batch.from}..${result.batch.to}), ${facts.length} facts` });

  const dryRun = options.dryRun ?? false;
  if (!dryRun) {
    // A retry of skipped days keeps its own bookkeeping: it neither uses up nor opens the gate of pending days.
    if (retrying) state.last_skip_retry_at = now.toISOString();
    else {
      state.last_attempt_at = now.toISOString();
      state.last_run = run;
    }
    await writeDreamState(ctx.root, state);
    await withWriteLock(ctx.root, async (lock) => {
      const edits = await snapshotEdits(lock, ctx.config, {
        before: `dream run ${run}`,
        why: 'Committed as they were, so the dream starts from them and a revert of the run keeps them.',
      });
      if (edits.length > 0) emit({ type: 'step', message: `committed ${edits.length} uncommitted edits first` });
    });
    failpoint('dream:after-snapshot');
  }
  let base = await headCommit(ctx.root);
  const tree = path.join(await confinedPath(ctx.root, WORKTREES_DIR, 'folder'), SCRATCH_TREE);
  // Under the dream lock no other run is alive: any other scratch tree left here is a crashed run's; the one
  // the last run left is brought to the base, writing only what differs (checkoutScratch).
  await removeScratchTrees(ctx.root, SCRATCH_TREE);
  await checkoutScratch(ctx.root, tree, base);
  // Kept for the next run only after a run that went through: its files are the vault's then.
  let keepTree = false;
  try {
    if (dryRun) {
      // A person's uncommitted edits become the scratch tree's own base, so the checks do not take
      // them (a hand-written log line, say) for the consolidator's.
      await copyUncommitted(ctx.root, tree);
      base = await commitScratch(tree, `scratch: a person's uncommitted edits, for dry run ${run}`);
    }
    // Every citation the pages hold now must still be somewhere after the run (any consolidator).
    const citedBefore = await pageCitations(tree, tombstones);
    const forgottenBefore = await forgottenLinesHeld(tree, tombstones);
    // A person's notes on an adopted vault, which the consolidator may not write (dream.adopted_notes).
    const readOnly = await readOnlyPages(tree, ctx.config.dream.adopted_notes);
    const reset = (): Promise<void> => checkoutScratch(ctx.root, tree, base);
    const previousFailure = failureOf(state, dates, retrying);
    const consolidated = facts.length === 0 ? emptyBatch() : await consolidate(ctx, options, deps, { tree, run, dates, facts, tombstones, readOnly, previousFailure, now, emit, reset }, result);
    result.llm = consolidated.llm;
    // The consolidator's account is its own words, never the run's record: marked, redacted, and put after the counts.
    const key = runKeyCheck(ctx);
    const ownWords = facts.length === 0 ? consolidated.summary : ownSummary(result.consolidator, consolidated.summary, ctx.config.llm.api_key_env, key, tombstones);
    if (ownWords !== '') result.summary = ownWords;
    if ((consolidated.notRewritten ?? []).length > 0) result.outside = consolidated.notRewritten;
    // A conflict naming or stating a forgotten fact is not filed (its note would carry the text).
    const conflicts = conflictsWithoutForgotten(consolidated.conflicts, tombstones);
    result.conflicts = conflicts.length;
    // Whatever the consolidator wrote or kept, a forgotten fact does not stay on a page, nor in a new page's name.
    const scrubbed = await removeForgottenLines(tree, tombstones);
    // What the consolidator changed, asked of git once (each ask stages the whole tree) and again only after a page went.
    let consolidatedChanges = await worktreeChanges(tree, base);
    const named = await removeForgottenNames(tree, consolidatedChanges.filter((c) => c.status === 'A').map((c) => c.path), tombstones);
    if (named.length > 0) consolidatedChanges = await worktreeChanges(tree, base);
    result.forgotten = forgottenRemoved(forgottenBefore, scrubbed) + named.length;
    if (result.forgotten > 0) emit({ type: 'step', message: `removed ${result.forgotten} lines citing or repeating forgotten facts` });
    failpoint('dream:after-consolidate');
    const written = new Set(consolidatedChanges.filter((c) => c.status !== 'D').map((c) => c.path));
    const archived = await archiveCold(ctx, tree, base, now, consolidatedChanges);
    const moved = archived.length === 0 ? null : `archived ${archived.length} pages unused since ${archived.map((a) => `${a.lastActive} (${a.from})`).join(', ')}`;
    for (const page of archived) emit({ type: 'page', path: page.to, action: 'archived' });
    if (moved !== null) result.summary = result.summary === undefined ? moved : `${moved}; ${result.summary}`;
    // `## Current` holds the newest value the runner knows, whatever the consolidator left there (stale-current.ts).
    const current = await holdNewestCurrent({ tree, vaultRoot: ctx.root, base, written, batch: facts, tombstones });
    result.corrected = current.corrected;
    for (const c of current.corrected) emit({ type: 'step', message: `${c.path}: ${c.subject} under ## Current was ${c.from === '' ? 'missing' : c.from}; ${c.to === '' ? 'moved to History (the subject is disputed)' : `corrected to ${c.to}, the newest value`}` });

    const treeChanges = await worktreeChanges(tree, base);
    const { pages, failure } = classifyChanges(treeChanges, ctx.config.dream, await wholePages(tree, treeChanges.filter((c) => c.status !== 'D').map((c) => c.path)));
    // The checks and the apply read each changed page at the base: one git process for all of them.
    await preloadFiles(tree, base, treeChanges.map((c) => c.path));
    result.pages = pages;
    // Nothing writes a page between here and the filing of the uncited facts: the checks only read.
    const { placed, cited } = await placedAndCitedIds(tree);
    result.placed = facts.filter((f) => placed.has(f.id)).length;
    // A batch whose facts were all forgotten has nothing to place: it only moves the watermark. Facts meant
    // for a page linked in from outside go uncited, to the inbox, so that run has work to show too. What a
    // run broke (a person's lines, a forgotten fact, a citation) is named before what it left undone.
    const work = facts.length > 0 && result.outside === undefined;
    // The key first: another check's message may quote a line, and it must not quote the key.
    const problem =
      (await keyWritten(tree, treeChanges, conflicts, key)) ??
      failure ??
      (work ? proofOfWork(pages) : null) ??
      (await pagesParse(tree, pages)) ??
      (await personPagesStay(tree, pages)) ??
      (await readOnlyNotesKept(tree, base, pages, readOnly, tombstones)) ??
      (await personLinesKept(tree, base, pages, tombstones)) ??
      (await forgottenLinesGone(tree, pages, tombstones)) ??
      citationsKept(citedBefore, await pageCitations(tree, tombstones), tombstones) ??
      (work ? placedShare(facts.length, result.placed, ctx.config.dream.min_placed_share) : null) ??
      (await pageChecks(tree, ctx.root, base, pages, conflicts, writtenLinks(facts))) ??
      current.failure ??
      (await claimsCited(tree, ctx.root, base, pages));
    if (problem !== null) throw new CheckFailed(problem);

    const uncited = uncitedFacts(facts, cited);
    result.uncited = uncited.length;
    result.summary = [runCounts(result), moved, ownWords].filter((part) => part !== null && part !== '').join('; ');
    await fileUncited(tree, run, uncited);
    await fileConflicts(tree, run, conflicts, new Map(facts.map((f) => [f.id, f.date])));
    // The watermark never goes back: a batch of late facts below it leaves it where it was.
    const batch = result.batch;
    const watermark = laterOf(journal.watermark, batch.to);
    const runLine = (): string =>
      journalLine({
        at: now,
        run,
        from: batch.from,
        to: batch.to,
        watermark,
        created: pages.created.length,
        updated: pages.updated.length,
        archived: pages.archived.length,
        facts: facts.length,
        placed: result.placed,
        filed: result.uncited,
        conflicts: result.conflicts,
        forgotten: result.forgotten,
        corrected: result.corrected.length,
        ...(retrying ? { retried: dates } : {}),
      });
    await appendJournal(tree, runLine());
    await writeIndex(tree, run);
    await writeMemory(tree, ctx.root, run, { maxLines: ctx.config.dream.memory_lines, today });
    result.watermark.after = watermark;

    if (dryRun) {
      result.status = 'dry-run';
      result.diff = await worktreeDiff(tree, base);
      result.reason = 'nothing was changed: this is what the run would commit';
      return result;
    }
    // After a forget made while the run went, the journal line counts the lines taken off then too.
    const regenerate = async (): Promise<void> => {
      await replaceJournalLine(tree, run, runLine());
      await writeIndex(tree, run);
      await writeMemory(tree, ctx.root, run, { maxLines: ctx.config.dream.memory_lines, today });
    };
    result.commit = await apply(ctx, tree, base, run, result, tombstones, regenerate);
    keepTree = true;
    if (retrying) {
      for (const date of dates) {
        delete state.skip_retries[date];
        delete state.skip_reasons[date];
      }
      state.skip_split = null;
      result.retried = dates;
    } else {
      delete state.failures[batchKey(dates)];
      state.split = null;
      state.last_failure = null;
      succeeded(state, now);
    }
    await writeDreamState(ctx.root, state);
    result.reason = retrying ? `retried ${dates.length} skipped days: placed on pages, no longer skipped` : `consolidated ${dates.length} days into pages`;
    emit({ type: 'step', message: 'reindexing' });
    await deps.reindex();
    return result;
  } catch (error) {
    if (error instanceof WaitForLlm) return wait(ctx, result, error, state, now, dryRun || retrying);
    if (!(error instanceof CheckFailed)) throw error;
    if (retrying) return failRetry(ctx, result, error, dates, state, dryRun);
    return fail(ctx, result, error, dates, state, now, dryRun);
  } finally {
    if (!keepTree) await removeWorktree(ctx.root, tree);
    // The run's log keeps no forgotten text, whatever was forgotten before or during the run.
    if (!dryRun) await withWriteLock(ctx.root, async () => scrubRunLogs(ctx.root, await readTombstones(ctx.root), [run])).catch(() => undefined);
  }
}

/**
 * Moves the pages that went cold to the archive, within what the run may still change
 * (dream.max_archived_pages, dream.max_changed_pages): a page over the bound simply waits for the next run.
 */
async function archiveCold(ctx: VaultContext, tree: string, base: string, now: Date, changes: readonly PathChange[]): Promise<ArchivedPage[]> {
  const { archive_after_days: afterDays, max_archived_pages: maxArchived, max_changed_pages: maxChanged } = ctx.config.dream;
  if (afterDays === 0) return [];
  const changed = new Set(changes.map((c) => c.path));
  const pages = [...changed].filter((rel) => isWikiPagePath(rel));
  // Counted as the safety check counts them: a page and its parts once.
  const limit = Math.max(0, Math.min(maxArchived, maxChanged - new Set((await wholePages(tree, pages)).values()).size));
  return archiveColdPages({ tree, vaultRoot: ctx.root, base, now, timeZone: ctx.timeZone, afterDays, limit, changed });
}

interface RunInput {
  tree: string;
  run: string;
  dates: string[];
  facts: Fact[];
  tombstones: Awaited<ReturnType<typeof readTombstones>>;
  readOnly: ReadonlySet<string>;
  previousFailure: { check: string; message: string } | null;
  now: Date;
  emit: (event: DreamEvent) => void;
  /** Puts the scratch tree back as the run found it (before the offline consolidator takes over). */
  reset(): Promise<void>;
}

/**
 * Runs the consolidator. An LLM that cannot be used (down, failing, over a cap or its run's budget, or
 * still going at dream.timeout_s) is not the batch's fault: per llm.fallback the offline consolidator does
 * the run from a clean tree, with a time limit of its own, or the run waits.
 */
async function consolidate(ctx: VaultContext, options: DreamOptions, deps: DreamDeps, input: RunInput, result: DreamResult): Promise<ConsolidationResult> {
  const consolidator = await chooseConsolidator(ctx, options.offline ?? false, options.executor);
  try {
    return await runConsolidator(ctx, consolidator, deps, input, result);
  } catch (error) {
    if (consolidator.name !== 'llm' || !(error instanceof CheckFailed)) throw error;
    const cause = error.cause;
    const timedOut = error.failure.check === 'timeout';
    if (!timedOut && !llmUnavailable(cause)) throw error;
    const why = timedOut ? `the LLM did not finish within dream.timeout_s (${ctx.config.dream.timeout_s} s)` : `the LLM cannot be used (${errorMessage(cause)})`;
    if (ctx.config.llm.fallback === 'wait') throw new WaitForLlm(`waiting: ${why}; llm.fallback is "wait", so the run waits for it`, capResetsAt(cause));
    input.emit({ type: 'step', message: `${why}; falling back to the offline consolidator (llm.fallback)` });
    const spent = result.llm;
    await input.reset();
    const { createOfflineConsolidator } = await import('./offline.js');
    result.fallback = why;
    const consolidated = await runConsolidator(ctx, createOfflineConsolidator(), deps, input, result);
    return { ...consolidated, llm: spent };
  }
}

/** One consolidator under the run's time limit; any failure of it is a failed run, never a crash. */
async function runConsolidator(ctx: VaultContext, consolidator: Consolidator, deps: DreamDeps, input: RunInput, result: DreamResult): Promise<ConsolidationResult> {
  result.consolidator = consolidator.name;
  input.emit({ type: 'step', message: `consolidating with the ${consolidator.name} consolidator` });
  const controller = new AbortController();
  const limit = ctx.config.dream.timeout_s;
  const timer = setTimeout(() => controller.abort(new CheckFailed({ check: 'timeout', message: `the run took longer than dream.timeout_s (${limit} s)` })), limit * 1000);
  // Through a promise, so a consolidator that throws at once fails like one that rejects.
  const work = Promise.resolve().then(() =>
    consolidator.consolidate({
      root: input.tree,
      vaultRoot: ctx.root,
      run: input.run,
      dates: input.dates,
      facts: input.facts,
      tombstones: input.tombstones,
      owner: ctx.config.owner,
      readOnly: input.readOnly,
      previousFailure: input.previousFailure,
      now: input.now,
      signal: controller.signal,
      search: deps.search,
      onEvent: input.emit,
    }),
  );
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error)))]);
  } catch (error) {
    // Told to stop, the consolidator ends its last write before the tree is reset for a fallback (a stuck one is not waited for).
    const stopped = controller.signal.aborted ? await Promise.race([work.then(() => null, (e: unknown) => e), new Promise((resolve) => setTimeout(resolve, SETTLE_MS, null))]) : error;
    // What a failed LLM run spent still counts.
    const spent = (stopped as { llm?: { calls: number; tokens: number } } | null)?.llm;
    if (spent !== undefined) result.llm = spent;
    if (error instanceof CheckFailed) throw error;
    throw new CheckFailed({ check: 'consolidator', message: `the ${consolidator.name} consolidator failed: ${errorMessage(error)}` }, error);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Why the previous try of these days failed (issue 26): the last failure when its batch overlaps this one (the
 * same batch, or a half of it), or for a retry of a skipped day the reason it was skipped; else null.
 */
function failureOf(state: DreamState, dates: readonly string[], retrying: boolean): { check: string; message: string } | null {
  const last = state.last_failure;
  if (last !== null && dates.some((date) => date >= last.from && date <= last.to)) return { check: last.check, message: last.message };
  if (!retrying) return null;
  const reason = dates.map((date) => state.skip_reasons[date]).find((r) => r !== undefined);
  if (reason === undefined) return null;
  const colon = reason.indexOf(': ');
  return colon < 0 ? { check: 'unknown', message: reason } : { check: reason.slice(0, colon), message: reason.slice(colon + 2) };
}

function laterOf(watermark: string | null, date: string): string {
  return watermark !== null && watermark > date ? watermark : date;
}

function emptyBatch(): ConsolidationResult {
  return { summary: 'every fact of the batch was forgotten; nothing to place', conflicts: [], llm: { calls: 0, tokens: 0 } };
}

/**
 * The LLM cannot be used and llm.fallback is "wait": nothing counts toward max_retries and the gate is not
 * used up; the run is recorded as waiting and tried again after the backoff (or when a daily cap resets).
 */
async function wait(ctx: VaultContext, result: DreamResult, error: WaitForLlm, state: DreamState, now: Date, keepState: boolean): Promise<DreamResult> {
  result.status = 'gated';
  result.reason = error.message;
  result.watermark.after = result.watermark.before;
  if (keepState) return result;
  state.last_status = 'waiting';
  backOff(state, now, error.resetsAt);
  await writeDreamState(ctx.root, state);
  result.retry_at = state.retry_at!;
  result.reason += `; tried again at ${state.retry_at}`;
  return result;
}

async function fail(ctx: VaultContext, result: DreamResult, error: CheckFailed, dates: string[], state: DreamState, now: Date, dryRun: boolean): Promise<DreamResult> {
  result.status = 'failed';
  result.check = error.failure.check;
  result.reason = `${error.failure.check}: ${error.message}; the vault was left as it was`;
  result.watermark.after = result.watermark.before;
  if (dryRun) return result;
  state.last_status = 'failed';
  // A failed run does not use up the gate: the next try follows the backoff, not min_hours.
  backOff(state, now);
  result.retry_at = state.retry_at!;
  // A page edited while the run went is no fault of the batch: the next run simply redoes it.
  if (error.failure.check !== 'apply') state.last_failure = { from: dates[0]!, to: dates.at(-1)!, check: error.failure.check, message: error.message };
  if (error.failure.check === 'apply') {
    await writeDreamState(ctx.root, state);
    return result;
  }
  if (dates.length > 1) {
    // Before any day is given up, the batch is halved until the bad day stands alone.
    const days = Math.floor(dates.length / 2);
    state.split = { from: dates[0]!, days };
    delete state.failures[batchKey(dates)];
    await writeDreamState(ctx.root, state);
    result.reason += `; the next run tries ${dates[0]}..${dates[days - 1]} alone`;
    return result;
  }
  const key = batchKey(dates);
  const tries = (state.failures[key] ?? 0) + 1;
  state.failures[key] = tries;
  await writeDreamState(ctx.root, state);
  if (tries < ctx.config.dream.max_retries) return result;
  // One bad day must not wedge the backlog: give up on it; its facts stay searchable as facts.
  const logFacts = (await readLog(ctx.root, dates[0]!)).facts.length;
  result.commit = await withWriteLock(ctx.root, async (lock) => {
    await appendJournal(ctx.root, skippedLine(now, result.run!, dates, tries, { check: error.failure.check, logFacts, watermark: dates.at(-1)! }));
    return commitPaths(lock, ctx.config, {
      op: 'dream',
      subject: `dream: skipped ${dates[0]} after ${tries} failed runs`,
      body: `The last failure: ${error.message}\n\nIts facts stay in the index as facts; the watermark moves past it so later days can be consolidated.`,
      paths: [JOURNAL_FILE],
      trailers: { [RUN_TRAILER]: result.run! },
    });
  });
  delete state.failures[key];
  state.split = null;
  state.skip_reasons[dates[0]!] = `${error.failure.check}: ${error.message}`;
  delete state.skip_retries[dates[0]!];
  // The bad day is dealt with: the days after it are not held back by its backoff.
  state.last_status = 'skipped';
  state.retry_at = null;
  state.retry_count = 0;
  delete result.retry_at;
  await writeDreamState(ctx.root, state);
  result.status = 'skipped';
  result.watermark.after = laterOf(result.watermark.before, dates.at(-1)!);
  result.reason = `gave up on ${dates[0]} after ${tries} failed runs (last: ${error.message}); its facts stay searchable`;
  return result;
}

/**
 * A failed retry of skipped days: they stay skipped (nothing counts toward max_retries, no journal line);
 * a retry of several days is halved next time, and a single day goes behind the others.
 */
async function failRetry(ctx: VaultContext, result: DreamResult, error: CheckFailed, dates: string[], state: DreamState, dryRun: boolean): Promise<DreamResult> {
  result.status = 'failed';
  result.check = error.failure.check;
  result.reason = `${error.failure.check}: ${error.message}; the vault was left as it was and the days stay skipped`;
  result.watermark.after = result.watermark.before;
  if (dryRun) return result;
  if (dates.length > 1) {
    state.skip_split = Math.floor(dates.length / 2);
    result.reason += `; the next retry takes ${state.skip_split} of them`;
  } else {
    state.skip_retries[dates[0]!] = (state.skip_retries[dates[0]!] ?? 0) + 1;
    state.skip_split = null;
  }
  await writeDreamState(ctx.root, state);
  return result;
}

/** Copies the checked result into the vault and commits it: the only moment the vault changes. */
async function apply(ctx: VaultContext, tree: string, base: string, run: string, result: DreamResult, known: TombstoneSet, regenerate: () => Promise<void>): Promise<string | null> {
  return withWriteLock(ctx.root, async (lock) => {
    // The tombstones as they are now, under the write lock (issue 30): a forget made while the run went is
    // honoured by this commit. Its lines go from the run's pages, its pages by name, and MEMORY.md and
    // index.md are made again from what is left.
    const fresh = await readTombstones(ctx.root);
    const late = fresh.entries.length !== known.entries.length;
    if (late) {
      const created = (await worktreeChanges(tree, base)).filter((c) => c.status === 'A').map((c) => c.path);
      const scrubbed = await removeForgottenLines(tree, fresh);
      const named = await removeForgottenNames(tree, created, fresh);
      result.forgotten += scrubbed.reduce((n, s) => n + s.lines, 0) + named.length;
      await regenerate();
      result.pages = classifyChanges(await worktreeChanges(tree, base), ctx.config.dream).pages;
      const left = await forgottenLinesGone(tree, result.pages, fresh);
      if (left !== null) throw new CheckFailed({ check: 'apply', message: `${left.message} after a forget made while the run went; the run will be redone` });
      if (result.summary !== undefined && forgetMatcher(fresh).matches(result.summary)) result.summary = runCounts(result);
    }
    const changes = await worktreeChanges(tree, base);
    for (const change of changes) {
      const before = await showFile(ctx.root, base, change.path);
      const now = await readFile(path.join(ctx.root, change.path)).catch(() => null);
      const same = before === null ? now === null : now !== null && before.equals(now);
      // What a forget did meanwhile (lines taken off, MEMORY.md made again) is in the run's tree too.
      const forgetsEdit = late && now !== null && before !== null && (isGeneratedPage(change.path) || now.toString('utf8') === scrubForgotten(before.toString('utf8'), fresh).content);
      if (!same && !forgetsEdit) throw new CheckFailed({ check: 'apply', message: `${change.path} was edited while the dream ran; the run will be redone from the edit` });
    }
    const request = commitRequest(result, run, changes.map((c) => c.path));
    // Written before the first copy, removed after the commit: a crash in between is finished by the next writer.
    await writeIntent(lock, { kind: 'apply', base, source: path.relative(ctx.root, tree), deleted: changes.filter((c) => c.status === 'D').map((c) => c.path), request: { ...request, paths: [...request.paths] } });
    failpoint('dream:before-apply');
    // Each page by temp file, fsync and rename, each folder flushed once after: on disk before the commit says so.
    const dirs = new Set<string>();
    for (const change of changes) {
      // The run's changes are real paths; a link in the vault on the way is refused, never followed.
      const target = await confinedPath(ctx.root, change.path);
      if (change.status === 'D') {
        await rm(target, { force: true });
        dirs.add(path.dirname(target));
      } else await writeFileAtomic(target, await readFile(path.join(tree, change.path)), { dirs });
    }
    await syncDirs(dirs);
    failpoint('dream:after-apply');
    const commit = await commitPaths(lock, ctx.config, request);
    failpoint('dream:after-commit');
    await clearIntent(lock);
    return commit;
  });
}

/**
 * The run's commit, written from the runner's counts: what the batch held, what the consolidator placed, what
 * the runner filed, corrected and removed. The consolidator's own summary comes last, marked as its words.
 */
function commitRequest(result: DreamResult, run: string, paths: string[]): CommitRequest {
  const { pages } = result;
  const byConsolidator = result.facts - result.placed - result.uncited;
  const lines = [
    `Consolidated ${result.facts} facts of ${result.batch!.from}..${result.batch!.to} with the ${result.consolidator} consolidator${result.fallback === null ? '' : ' (the LLM could not be used; llm.fallback: offline)'}; the watermark ${result.watermark.after === result.watermark.before ? 'stays at' : 'moves to'} ${result.watermark.after}.`,
    `The runner's counts: the consolidator placed ${result.placed} of the ${result.facts} facts on pages${byConsolidator > 0 ? ` and ${byConsolidator} in 0_Inbox/ only` : ''}; pages +${pages.created.length} ~${pages.updated.length} >${pages.archived.length}.`,
    ...(result.forgotten > 0 ? [`${result.forgotten} page lines citing or repeating forgotten facts were removed.`] : []),
    '',
    ...pages.created.map((p) => `+ ${p}`),
    ...pages.updated.map((p) => `~ ${p}`),
    ...pages.archived.map((a) => `> ${a.from} -> ${a.to}`),
    ...(result.uncited > 0 ? ['', `${result.uncited} facts no page cited were filed in 0_Inbox/unsorted.md.`] : []),
    ...(result.conflicts > 0 ? [`${result.conflicts} conflicts were flagged in 0_Inbox/conflicts.md.`] : []),
    ...(result.corrected.length > 0
      ? ['', `${result.corrected.length} stale ## Current lines were corrected by the runner (the old value kept under ## History):`, ...result.corrected.map(correctionLine)]
      : []),
    ...(result.summary ? ['', `Summary: ${result.summary}`] : []),
  ];
  return {
    op: 'dream',
    subject: `dream: ${result.batch!.from}..${result.batch!.to} → pages +${pages.created.length} ~${pages.updated.length}${pages.archived.length > 0 ? ` >${pages.archived.length}` : ''} (${run})`,
    body: lines.join('\n'),
    paths,
    trailers: { [RUN_TRAILER]: run },
  };
}

const correctionLine = (c: CurrentCorrection): string => `- ${c.path}: ${c.subject} ${c.from === '' ? '(none)' : c.from} → ${c.to === '' ? '(none: disputed)' : c.to}`;

/** One line of the runner's counts, for `summary`: never the consolidator's words. */
function runCounts(result: DreamResult): string {
  const { pages } = result;
  return [
    `placed ${result.placed} of ${result.facts} facts on pages`,
    `${result.uncited} filed in 0_Inbox/unsorted.md by the runner`,
    `pages +${pages.created.length} ~${pages.updated.length} >${pages.archived.length}`,
    `${result.conflicts} conflicts flagged`,
    `${result.forgotten} forgotten lines removed`,
    ...(result.corrected.length > 0 ? [`${result.corrected.length} stale Current lines corrected`] : []),
  ].join('; ');
}

/** Longest a consolidator's own summary may run in a commit message or a result. */
const MAX_OWN_SUMMARY = 500;

/** The consolidator's summary as its own words: one line, capped, secrets redacted, marked as whose it is. */
function ownSummary(consolidator: DreamResult['consolidator'], summary: string, keyEnv: string, key: KeyCheck, tombstones: TombstoneSet): string {
  let text = redact(summary.replace(/\s+/g, ' ').trim(), { keyEnvNames: [keyEnv] });
  if (text === '') return '';
  // A key in an encoding or in pieces, or a forgotten fact, takes the whole summary out of the commit.
  if (key.holds(text)) text = '[redacted: it held a secret, encoded or in pieces]';
  else if (forgetMatcher(tombstones).matches(text)) text = '[left out: it stated a forgotten fact]';
  if (text.length > MAX_OWN_SUMMARY) text = `${text.slice(0, MAX_OWN_SUMMARY - 1)}…`;
  return consolidator === 'llm' ? `the model's summary (its own words): "${text}"` : `the ${consolidator ?? 'offline'} consolidator's summary: ${text}`;
}

/** A dry run starts from HEAD plus a person's uncommitted edits, without committing them. */
async function copyUncommitted(root: string, tree: string): Promise<void> {
  for (const change of await uncommittedChanges(root)) {
    const source = path.join(root, change.path);
    const folder = await confinedPath(tree, path.posix.dirname(change.path), 'folder').catch(() => null);
    if (folder === null) continue;
    const target = path.join(folder, path.posix.basename(change.path));
    // The tree's own entry goes first, so a link checked out there is replaced, never written through.
    await rm(target, { recursive: true, force: true });
    const link = await readlink(source).catch(() => null);
    if (link !== null) {
      // A relative link out of the vault would point elsewhere from the tree: it is made absolute.
      const resolved = path.resolve(path.dirname(source), link);
      await mkdir(path.dirname(target), { recursive: true });
      await symlink(isWithin(root, resolved) ? link : resolved, target);
      continue;
    }
    const content = await readFile(source).catch(() => null);
    if (content !== null) {
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, content);
    }
  }
}


/** The key check for this run: the configured key's value and a base URL's password (key-check.ts). */
function runKeyCheck(ctx: VaultContext): KeyCheck {
  const { llm } = ctx.config;
  let password: string | undefined;
  try {
    password = llm.base_url === null ? undefined : decodeURIComponent(new URL(llm.base_url).password);
  } catch {
    password = undefined;
  }
  return keyCheck([ctx.env[llm.api_key_env], password]);
}

/**
 * The key check over what the run wrote (issue 30): each changed file's path and content (frontmatter, body,
 * the inbox) and each conflict to be filed, alone and joined (a key split across two writes). The message names
 * the page, never the key.
 */
async function keyWritten(tree: string, treeChanges: readonly PathChange[], conflicts: readonly { subject: string; note: string }[], key: KeyCheck): Promise<CheckFailure | null> {
  const changes = treeChanges.filter((c) => c.status !== 'D');
  const texts: string[] = [];
  const where: string[] = [];
  for (const change of changes) {
    texts.push(change.path, await readFile(path.join(tree, change.path), 'utf8'));
    where.push(`the path of a page`, change.path);
  }
  for (const c of conflicts) {
    texts.push(`${c.subject}\n${c.note}`);
    where.push('a conflict note');
  }
  const at = keyIn(key, texts);
  if (at === null) return null;
  const place = at < 0 ? 'two of its writes taken together' : where[at]!;
  return { check: 'secret', message: `${place} holds the API key (or an encoding or piece of it); nothing is written` };
}
