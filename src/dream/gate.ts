/**
 * The dream's gate (DESIGN §7): pending = log dates after the watermark and before today, and dates at or
 * below it holding facts no page cites (written after their dream, or back-dated). A backlog
 * (more pending days than `max_days`) runs at once; otherwise a run needs `min_hours` since the last
 * attempt and at least `min_facts` pending facts. `--force` skips the gate, never the lock.
 */
import path from 'node:path';
import type { Config } from '../core/config.js';
import { listLogDates, logRelPath, readLog } from '../logs/factlog.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import { StatMemo } from '../vault/stat-memo.js';
import { pageCitations } from './citations.js';
import type { Journal } from './journal.js';
import type { DreamState } from './state.js';

export interface Pending {
  dates: string[];
  facts: number;
}

export async function pendingDates(root: string, journal: Journal, today: string, tombstones: TombstoneSet): Promise<Pending> {
  const dates: string[] = [];
  let facts = 0;
  let cited: Set<string> | null = null;
  for (const date of (await listLogDates(root)).filter((d) => d < today && !journal.skipped.has(d))) {
    let live = (await logFacts(root, date)).filter((f) => !tombstones.hasId(f.id) && !tombstones.repeats(f.text));
    if (journal.watermark !== null && date <= journal.watermark) {
      // A consolidated date is pending only for the facts no page cites; pages are read once, when needed.
      cited ??= await pageCitations(root, tombstones);
      const placed = cited;
      live = live.filter((f) => !placed.has(f.id));
      if (live.length === 0) continue;
    }
    dates.push(date);
    facts += live.length;
  }
  return { dates, facts };
}

/** A day's facts (id and text), read again only when its log changed: the daemon runs the gate every tick. */
const facts = new StatMemo<Array<{ id: string; text: string }>>();

function logFacts(root: string, date: string): Promise<Array<{ id: string; text: string }>> {
  return facts.get(path.join(root, logRelPath(date)), async () => (await readLog(root, date)).facts.map(({ id, text }) => ({ id, text })));
}

export type GateDecision =
  | { open: true; why: 'backlog' | 'due' | 'forced'; batch: string[] }
  | { open: false; status: 'noop'; reason: string }
  | { open: false; status: 'gated'; gate: 'min_hours' | 'min_facts'; reason: string; opensAt: string | null };

export function decide(pending: Pending, state: DreamState, config: Config['dream'], now: Date, force: boolean): GateDecision {
  if (pending.dates.length === 0) return { open: false, status: 'noop', reason: 'no pending log days before today' };
  // A batch that failed is halved (state.split) before any single day of it can be skipped.
  const split = state.split !== null && state.split.from === pending.dates[0] ? state.split.days : config.max_days;
  const batch = pending.dates.slice(0, Math.min(config.max_days, split));
  if (force) return { open: true, why: 'forced', batch };
  if (pending.dates.length > config.max_days) return { open: true, why: 'backlog', batch };
  if (state.last_attempt_at !== null) {
    const opensAt = Date.parse(state.last_attempt_at) + config.min_hours * 3_600_000;
    if (now.getTime() < opensAt) {
      const at = new Date(opensAt).toISOString();
      return { open: false, status: 'gated', gate: 'min_hours', reason: `the last attempt was less than ${config.min_hours} h ago; the gate opens at ${at}`, opensAt: at };
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
