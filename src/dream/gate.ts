/**
 * The dream's gate (DESIGN §7): pending = log dates after the watermark and before today, and dates at or
 * below it holding facts no page cites (written after their dream, or back-dated), and on a skipped day the
 * facts appended after it was skipped. A failed or waiting run is tried again after a backoff (state.ts),
 * not after `min_hours`. Otherwise a backlog (more pending days than `max_days`) runs at once, and a run
 * needs `min_hours` since the last run that went through and at least `min_facts` pending facts. `--force`
 * skips the gate, never the lock. Skipped days themselves come back only through a retry (`retryBatch`).
 */
import path from 'node:path';
import type { Config } from '../core/config.js';
import { listLogDates, logRelPath, readLog } from '../logs/factlog.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import { StatMemo } from '../vault/stat-memo.js';
import { pageCitations } from './citations.js';
import type { Journal } from './journal.js';
import { minHoursFrom, type DreamState } from './state.js';

export interface Pending {
  dates: string[];
  facts: number;
}

/**
 * `liveFacts`: a day's live facts (not forgotten) when known without parsing its log (the index's count, fresh.ts:
 * `indexedLiveFacts`), else undefined; asked only for a day after the watermark and not skipped, whose live facts
 * are all pending.
 */
export async function pendingDates(root: string, journal: Journal, today: string, tombstones: TombstoneSet, liveFacts?: (date: string) => number | undefined): Promise<Pending> {
  const dates: string[] = [];
  let facts = 0;
  let cited: Set<string> | null = null;
  for (const date of (await listLogDates(root)).filter((d) => d < today)) {
    const known = needsCitations(journal, date) || journal.skips.has(date) ? undefined : liveFacts?.(date);
    if (known !== undefined) {
      if (known > 0) dates.push(date);
      facts += known;
      continue;
    }
    const all = await logFacts(root, date);
    // Pages are read once, and only when a day at or below the watermark needs them.
    if (needsCitations(journal, date)) cited ??= await pageCitations(root, tombstones);
    const live = unplacedFacts(date, all, journal, tombstones, cited);
    if (live.length === 0) continue;
    dates.push(date);
    facts += live.length;
  }
  return { dates, facts };
}

/** True when which of the day's facts are pending depends on what the pages cite (the day was consolidated or skipped). */
export function needsCitations(journal: Journal, date: string): boolean {
  return journal.skipped.has(date) || (journal.watermark !== null && date <= journal.watermark);
}

/**
 * The facts of a day that a dream still has to place: after the watermark every live one; at or below it
 * those no page cites; on a skipped day only those appended after it was skipped (the rest wait for a retry).
 * `facts` in log order (logs are append-only, so the first `log_facts` are the ones the skip saw).
 */
export function unplacedFacts<F extends { id: string; text: string }>(date: string, facts: readonly F[], journal: Journal, tombstones: TombstoneSet, cited: ReadonlySet<string> | null): F[] {
  const skip = journal.skips.get(date);
  const candidates = skip === undefined ? facts : skip.logFacts === null ? [] : facts.slice(skip.logFacts);
  const live = candidates.filter((f) => !tombstones.hasId(f.id) && !tombstones.repeats(f.text));
  return cited !== null && needsCitations(journal, date) ? live.filter((f) => !cited.has(f.id)) : live;
}

/** A day's facts (id and text), read again only when its log changed: the daemon runs the gate every tick. */
const facts = new StatMemo<Array<{ id: string; text: string }>>();

function logFacts(root: string, date: string): Promise<Array<{ id: string; text: string }>> {
  return facts.get(path.join(root, logRelPath(date)), async () => (await readLog(root, date)).facts.map(({ id, text }) => ({ id, text })));
}

export type GateDecision =
  | { open: true; why: 'backlog' | 'due' | 'forced' | 'retry'; batch: string[] }
  | { open: false; status: 'noop'; reason: string }
  | { open: false; status: 'gated'; gate: 'backoff' | 'min_hours' | 'min_facts'; reason: string; opensAt: string | null };

export function decide(pending: Pending, state: DreamState, config: Config['dream'], now: Date, force: boolean): GateDecision {
  if (pending.dates.length === 0) return { open: false, status: 'noop', reason: 'no pending log days before today' };
  // A batch that failed is halved (state.split) before any single day of it can be skipped.
  const split = state.split !== null && state.split.from === pending.dates[0] ? state.split.days : config.max_days;
  const batch = pending.dates.slice(0, Math.min(config.max_days, split));
  if (force) return { open: true, why: 'forced', batch };
  // A failed or waiting run did not use up the gate: the next try follows the backoff, backlog or not.
  if (state.retry_at !== null) {
    const opensAt = Date.parse(state.retry_at);
    if (now.getTime() >= opensAt) return { open: true, why: 'retry', batch };
    const what = state.last_status === 'waiting' ? 'waited for the LLM' : 'failed';
    const runs = state.retry_count === 1 ? 'the first such run' : `${state.retry_count} such runs in a row`;
    return { open: false, status: 'gated', gate: 'backoff', reason: `the last run ${what}; it is tried again at ${state.retry_at} (backoff after ${runs})`, opensAt: state.retry_at };
  }
  if (pending.dates.length > config.max_days) return { open: true, why: 'backlog', batch };
  const from = minHoursFrom(state);
  if (from !== null) {
    const opensAt = Date.parse(from) + config.min_hours * 3_600_000;
    if (now.getTime() < opensAt) {
      const at = new Date(opensAt).toISOString();
      return { open: false, status: 'gated', gate: 'min_hours', reason: `the last run was less than ${config.min_hours} h ago; the gate opens at ${at}`, opensAt: at };
    }
  }
  if (pending.facts < config.min_facts) {
    return {
      open: false,
      status: 'gated',
      gate: 'min_facts',
      reason: `${pending.facts} pending facts, fewer than min_facts ${config.min_facts}; it opens when ${config.min_facts - pending.facts} more arrive`,
      opensAt: null,
    };
  }
  return { open: true, why: 'due', batch };
}

/**
 * The skipped days a retry takes (`dream --retry-skipped`, and the daemon once a day), in date order: the
 * days retried least first, then the oldest, at most `max_days` (fewer after a failed retry of several, so a
 * bad day ends up alone and behind the others). Empty: nothing is skipped.
 */
export function retryBatch(journal: Journal, state: DreamState, config: Config['dream']): string[] {
  const tries = (date: string): number => state.skip_retries[date] ?? 0;
  const order = [...journal.skipped].sort((a, b) => tries(a) - tries(b) || a.localeCompare(b));
  return order.slice(0, Math.min(config.max_days, state.skip_split ?? config.max_days)).sort();
}
