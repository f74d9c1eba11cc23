/**
 * Due dates of commitments, read with chrono-node (an offline date parser): "by 2026-11-20", "next
 * Friday", "tomorrow", "end of the month", each resolved against the date of the fact that said it,
 * never against the day the dream runs. Open commitments carry `(due YYYY-MM-DD)`; once that date has
 * passed they move to Past commitments, and out of MEMORY.md.
 */
import type { Fact } from '../logs/factlog.js';

type Chrono = { parse(text: string, ref: Date, options: { forwardDate: boolean }): Array<{ start: { get(part: 'year' | 'month' | 'day'): number | null } }> };

const DUE_RE = /\(due (\d{4}-\d{2}-\d{2})\)/;
/** Words that make a fact of another category a commitment: a promise, a plan with a date. */
const PROMISE_RE = /\b(?:promised?|will|must|need(?:s)? to|have to|has to|plan(?:s|ned)? to|going to|due|deadline|appointment|remind)\b/i;

const pad = (n: number): string => String(n).padStart(2, '0');

/** The fact's due date (YYYY-MM-DD), or null when it names none. */
export async function dueDate(fact: Pick<Fact, 'text' | 'date'>): Promise<string | null> {
  const chrono = (await import('chrono-node')) as unknown as Chrono;
  // Noon of the fact's day: "tomorrow" is the next day in any time zone the process runs in.
  const ref = new Date(`${fact.date}T12:00:00`);
  const found = chrono.parse(fact.text, ref, { forwardDate: true })[0];
  if (found === undefined) return null;
  const [year, month, day] = [found.start.get('year'), found.start.get('month'), found.start.get('day')];
  if (year === null || month === null || day === null) return null;
  const due = `${year}-${pad(month)}-${pad(day)}`;
  // A date in the past of the fact is a memory, not a due date.
  return due >= fact.date ? due : null;
}

/** True when the fact may be a commitment, so its due date is worth reading (chrono-node costs ~5 ms a fact). */
export function mayCommit(fact: Pick<Fact, 'category' | 'text'>): boolean {
  return fact.category === 'commitment' || (fact.category !== 'moment' && PROMISE_RE.test(fact.text));
}

/** True for a commitment, or for a fact that promises something by a date. */
export function isCommitment(fact: Pick<Fact, 'category' | 'text'>, due: string | null): boolean {
  return fact.category === 'commitment' || (due !== null && PROMISE_RE.test(fact.text) && fact.category !== 'moment');
}

export function dueOf(line: string): string | null {
  return DUE_RE.exec(line)?.[1] ?? null;
}
