/**
 * Relative dates made absolute: a fact read months later must not say "yesterday". Days are counted
 * in the vault's time zone from the moment the turn was said.
 */
import { localStamp } from '../core/clock.js';

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'] as const;
const NUMBER_WORDS: Readonly<Record<string, number>> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };
const DAY_MS = 86_400_000;

/** Words after which a date stands bare ("since 2026-06-08", "flight:: 2026-06-19"); elsewhere it takes "on". */
const BARE_AFTER_RE = /(?:\b(?:on|by|until|till|since|before|after|from|to|through|is|was|are|were|be|been|due|of)|:)\s*$/i;

const WEEKDAY = '(sunday|monday|tuesday|wednesday|thursday|friday|saturday)';
const COUNT = '(\\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)';
const RELATIVE_RE = new RegExp(
  [
    '(the day before yesterday)',
    '(the day after tomorrow)',
    '(yesterday|tomorrow|today)',
    '(tonight|last night|this (?:morning|afternoon|evening))',
    `(last|next|this|coming) ${WEEKDAY}`,
    '(last|next|this) (week|weekend|month|year)',
    `${COUNT} (day|week|month|year)s? ago`,
    `in ${COUNT} (day|week)s?`,
  ]
    .map((p) => `\\b${p}\\b(?!['’]s)`)
    .join('|'),
  'gi',
);

/** The local date (YYYY-MM-DD) of `at` in `timeZone`. */
export function localDate(at: Date, timeZone: string): string {
  return localStamp(at, timeZone).date;
}

/** The weekday name of a YYYY-MM-DD date. */
export function weekdayOf(date: string): string {
  const name = WEEKDAYS[dayIndex(date)]!;
  return name[0]!.toUpperCase() + name.slice(1);
}

/** `text` with relative dates ("yesterday", "last Friday", "next week", "3 days ago") replaced by absolute ones. */
export function resolveRelativeDates(text: string, at: Date, timeZone: string): string {
  const today = localDate(at, timeZone);
  return text.replace(RELATIVE_RE, (match: string, ...groups: unknown[]) => {
    const offset = groups[groups.length - 2] as number;
    const g = groups.slice(0, 12).map((v) => (typeof v === 'string' ? v.toLowerCase() : undefined));
    const resolved = resolve(today, g);
    if (resolved === null) return match;
    const bare = BARE_AFTER_RE.test(text.slice(0, offset));
    let out = bare ? resolved.bare : resolved.prose;
    if (/^[A-Z]/.test(match)) out = out[0]!.toUpperCase() + out.slice(1);
    return out;
  });
}

interface Resolved {
  /** After a preposition: "2026-06-08", "the week of 2026-06-15", "May 2026". */
  bare: string;
  /** Standing alone: "on 2026-06-08", "in May 2026". */
  prose: string;
}

function resolve(today: string, g: Array<string | undefined>): Resolved | null {
  const [dayBefore, dayAfter, simple, partOfDay, weekdayRel, weekday, periodRel, period, agoCount, agoUnit, inCount, inUnit] = g;
  if (dayBefore !== undefined) return day(addDays(today, -2));
  if (dayAfter !== undefined) return day(addDays(today, 2));
  if (simple !== undefined) return day(addDays(today, simple === 'yesterday' ? -1 : simple === 'tomorrow' ? 1 : 0));
  if (partOfDay !== undefined) {
    if (partOfDay === 'last night') return { bare: `the night of ${addDays(today, -1)}`, prose: `on the night of ${addDays(today, -1)}` };
    const part = partOfDay === 'tonight' ? 'evening' : partOfDay.split(' ')[1]!;
    return { bare: `the ${part} of ${today}`, prose: `on the ${part} of ${today}` };
  }
  if (weekdayRel !== undefined && weekday !== undefined) return day(weekdayDate(today, weekdayRel, WEEKDAYS.indexOf(weekday as (typeof WEEKDAYS)[number])));
  if (periodRel !== undefined && period !== undefined) return periodDate(today, periodRel, period);
  if (agoCount !== undefined && agoUnit !== undefined) return shifted(today, -count(agoCount), agoUnit);
  if (inCount !== undefined && inUnit !== undefined) return shifted(today, count(inCount), inUnit);
  return null;
}

function day(date: string): Resolved {
  return { bare: date, prose: `on ${date}` };
}

function count(word: string): number {
  return NUMBER_WORDS[word] ?? Number(word);
}

function shifted(today: string, n: number, unit: string): Resolved {
  if (unit === 'day') return day(addDays(today, n));
  if (unit === 'week') return day(addDays(today, 7 * n));
  if (unit === 'month') return month(addMonths(today, n));
  const year = String(Number(today.slice(0, 4)) + n);
  return { bare: year, prose: `in ${year}` };
}

/** last X: the most recent X before today; next/coming X: the first X after today; this X: X of this (Monday-first) week. */
function weekdayDate(today: string, rel: string, target: number): string {
  const current = dayIndex(today);
  if (rel === 'last') return addDays(today, -((current - target + 7) % 7 || 7));
  if (rel === 'next' || rel === 'coming') return addDays(today, (target - current + 7) % 7 || 7);
  const mondayFirst = (d: number): number => (d + 6) % 7;
  return addDays(today, mondayFirst(target) - mondayFirst(current));
}

function periodDate(today: string, rel: string, period: string): Resolved {
  const shift = rel === 'last' ? -1 : rel === 'next' ? 1 : 0;
  if (period === 'week' || period === 'weekend') {
    const monday = addDays(today, -((dayIndex(today) + 6) % 7) + 7 * shift);
    const start = period === 'week' ? monday : addDays(monday, 5);
    const what = `the ${period} of ${start}`;
    return { bare: what, prose: what };
  }
  if (period === 'month') return month(addMonths(today, shift));
  const year = String(Number(today.slice(0, 4)) + shift);
  return { bare: year, prose: `in ${year}` };
}

function month(date: string): Resolved {
  const name = `${MONTHS[Number(date.slice(5, 7)) - 1]} ${date.slice(0, 4)}`;
  return { bare: name, prose: `in ${name}` };
}

function dayIndex(date: string): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay();
}

export function addDays(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

function addMonths(date: string, n: number): string {
  const d = new Date(`${date.slice(0, 7)}-01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + n);
  return d.toISOString().slice(0, 10);
}
