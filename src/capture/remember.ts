/** Capturing facts: validate, append one batch per date to the logs, commit. */
import { isValidDate, localStamp } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import { withWriteLock } from '../core/lock.js';
import { failpoint } from '../core/failpoint.js';
import { finishInterrupted } from '../git/intent.js';
import { commitPaths } from '../git/audit.js';
import { appendBatch, canonicalFact, formatFactLine, logRelPath, type AppendedFact, type CanonicalFact, type FactInput } from '../logs/factlog.js';
import type { VaultContext } from '../vault/context.js';

export interface RememberOptions {
  source?: string | undefined;
  now?: Date;
}

export interface RememberResult {
  facts: AppendedFact[];
  commit: string | null;
}

export async function remember(ctx: VaultContext, inputs: readonly FactInput[], options: RememberOptions = {}): Promise<RememberResult> {
  if (inputs.length === 0) throw new UsageError('nothing to remember: no facts were given');
  const now = options.now ?? new Date();
  const stamp = localStamp(now, ctx.timeZone);
  const source = options.source ?? ctx.config.capture.default_source;

  // Validate everything before writing anything: a bad line in a batch writes nothing.
  const byDate = new Map<string, CanonicalFact[]>();
  inputs.forEach((input, index) => {
    const date = input.date ?? stamp.date;
    if (!isValidDate(date)) {
      const where = inputs.length > 1 ? ` (fact ${index + 1})` : '';
      throw new UsageError(`invalid date '${date}'${where}`, 'write dates as YYYY-MM-DD, e.g. 2026-06-09');
    }
    let fact: CanonicalFact;
    try {
      fact = canonicalFact(input);
    } catch (error) {
      if (error instanceof UsageError && inputs.length > 1) throw new UsageError(`fact ${index + 1}: ${error.message}`, error.hint);
      throw error;
    }
    const list = byDate.get(date) ?? [];
    list.push(fact);
    byDate.set(date, list);
  });

  return withWriteLock(ctx.root, async (lock) => {
    await finishInterrupted(lock, ctx.config);
    const facts: AppendedFact[] = [];
    for (const [date, batch] of [...byDate.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      facts.push(...(await appendBatch(lock, date, stamp.time, source, batch)));
    }
    const dates = [...byDate.keys()].sort();
    const where = dates.length === 1 ? logRelPath(dates[0]!) : `${dates.length} days (${dates[0]}..${dates.at(-1)})`;
    const shown = facts.slice(0, 20).map((f) => formatFactLine(f, f.id));
    if (facts.length > shown.length) shown.push(`… and ${facts.length - shown.length} more`);
    failpoint('remember:after-append');
    const commit = await commitPaths(lock, ctx.config, {
      op: 'remember',
      subject: `remember: ${facts.length} ${facts.length === 1 ? 'fact' : 'facts'} in ${where}`,
      body: `Appended by vaultkeeper remember from source "${facts[0]?.source ?? source}".\n\n${shown.join('\n')}`,
      paths: dates.map(logRelPath),
    });
    return { facts, commit };
  });
}
