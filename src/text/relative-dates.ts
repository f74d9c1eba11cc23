/**
 * Relative times made absolute against the day a fact was said, read with chrono-node (an offline date
 * parser): "yesterday" said on 2023-05-08 → "on 7 May 2023", "last week" → "the week of 1 May 2023".
 * chrono finds the phrase and its day; this module keeps only phrases that depend on that day (an
 * absolute date stays as written), and writes each in `D Month YYYY` form at the grain it was said (day,
 * weekday, week, weekend, month, year), without doubling a preposition already there ("since last year"
 * → "since 2022"). Pure and deterministic: the reference is the fact's date at noon, never the clock.
 */
import { dateWords } from './date-words.js';

export interface ResolvedTime {
  /** The phrase as said: "last Friday". */
  said: string;
  /** What replaced it: "on Friday, 5 May 2023". */
  resolved: string;
}

export interface RelativeDates {
  text: string;
  dates: ResolvedTime[];
}

/** Resolves the relative times in `text` said on `date` (YYYY-MM-DD). */
export type RelativeDateResolver = (text: string, date: string) => RelativeDates;

/** The part of chrono-node's API this module reads. */
interface ChronoResult {
  index: number;
  text: string;
  start: { get(part: 'year' | 'month' | 'day'): number | null };
}
export interface Chrono {
  casual: { parse(text: string, ref: Date, options?: { forwardDate?: boolean }): ChronoResult[] };
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'] as const;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
const DAY_MS = 86_400_000;

const TIME_WORDS = String.raw`(?:morning|afternoon|evening|night|day|week|weekend|month|year|(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?)s?`;
/** Phrases without which chrono is not asked at all (the common case, and most of the time saved). */
const TRIGGER_RE = new RegExp(
  String.raw`\b(?:yesterday|today|tonight|tomorrow|ago)\b|\b(?:this|last|next|past|coming)\s+(?:(?:past|coming)\s+)?${TIME_WORDS}\b|\bin\s+(?:a\s+)?(?:few|couple(?:\s+of)?|several|a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\s+(?:days?|weeks?|months?|years?)\b`,
  'i',
);
/** A phrase is relative only when one of these words makes it so ("May 2022", "Friday" alone are not). */
const RELATIVE_RE = /\b(?:yesterday|today|tonight|tomorrow|ago|last|next|this|past|coming)\b|^in\s+.+\s+(?:days?|weeks?|months?|years?)$/i;
/** Durations and narrative-relative phrases: "for 5 years", "the next day", "now". */
const REJECT_RE = /^(?:for|within|over|after|before)\b|\bnext day\b|^now$|\bfollowing\b|\b(?:hours?|minutes?|seconds?|mins?|secs?)\b/i;
/** A vague count keeps its vagueness: "a few days ago" → "a few days before 8 May 2023". */
const VAGUE_RE = /\b(?:few|couple|several|some)\b/i;
/** Words after which a date stands without its own "on"/"in": "since last year" → "since 2022". */
const PREPOSITION_RE = /\b(?:on|in|at|since|from|until|till|to|by|before|after|during|of|through|around|between|as of)\s*$/i;
/** "the last year", "my last year of school", "last year's": a span or an attribute, not a date. */
const DETERMINER_RE = /\b(?:the|a|an|my|your|his|her|its|our|their|this|that|every|each)\s*$/i;
/** "feels like just yesterday": a figure of speech, not a day. */
const FIGURE_RE = /\blike\s+(?:just\s+|only\s+)?$/i;
const EARLY_LATE_RE = /\b(?:earlier|later|early|late)\s*$/i;
/** A time that is the subject of its sentence stands bare: "Last Friday was amazing" → "Friday, 7 July 2023 was amazing". */
const SUBJECT_OF_RE = /^\s+(?:was|is|has|had|were|will|felt|seemed|went|flew|turned|came)\b/i;
const LEADING_PREPOSITION_RE = /^(on|at|since|from|until|by|during)\s+/i;
/** The count that starts an "… ago" phrase: chrono sometimes takes a word before it ("them 2 weeks ago"). */
const COUNT_RE = /\b(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|couple|several|some|\d+)\b/i;

const pad = (n: number): string => String(n).padStart(2, '0');

/** "2023-05-07" → "7 May 2023". */
export const formatDay = dateWords;

function addDays(iso: string, n: number): string {
  return new Date(Date.parse(`${iso}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

function weekday(iso: string): number {
  return new Date(`${iso}T00:00:00Z`).getUTCDay();
}

/** The Monday of the week that holds `iso` (weeks start on Monday). */
function monday(iso: string): string {
  return addDays(iso, -((weekday(iso) + 6) % 7));
}

/** The Saturday of the weekend that holds `iso`, or of the week that holds it. */
function saturday(iso: string): string {
  const day = weekday(iso);
  if (day === 0) return addDays(iso, -1);
  return addDays(monday(iso), 5);
}

interface Written {
  /** Standing alone: "on 7 May 2023", "in June 2023", "the week of 1 May 2023". */
  prose: string;
  /** After a preposition: "7 May 2023", "June 2023", "the week of 1 May 2023". */
  bare: string;
}

const PART_OF_DAY: ReadonlyArray<[RegExp, string]> = [
  [/\blast night\b|\bnight\b/i, 'night'],
  [/\btonight\b|\bevening\b/i, 'evening'],
  [/\bmorning\b/i, 'morning'],
  [/\bafternoon\b/i, 'afternoon'],
];

/** How a phrase said on `said` (YYYY-MM-DD) reads at its grain, or null for a phrase left as said. */
function write(phrase: string, day: string, said: string): Written | null {
  const lower = phrase.toLowerCase();
  if (VAGUE_RE.test(lower) && /\bago$/.test(lower)) {
    const span = phrase.replace(/\s*\bago$/i, '');
    return { prose: `${span} before ${formatDay(said)}`, bare: `${span} before ${formatDay(said)}` };
  }
  if (VAGUE_RE.test(lower) && /^in\b/.test(lower)) {
    const span = phrase.replace(/^in\s+/i, '');
    return { prose: `${span} after ${formatDay(said)}`, bare: `${span} after ${formatDay(said)}` };
  }
  // chrono's weeks start on Sunday: "this week" said on a Monday is the day said, not the Sunday before.
  const thisOne = /^this\b/.test(lower);
  if (/\bweekend\b/.test(lower)) {
    const what = `the weekend of ${formatDay(saturday(thisOne ? said : day))}`;
    return { prose: what, bare: what };
  }
  if (/\bweeks?\b/.test(lower)) {
    const what = `the week of ${formatDay(monday(thisOne ? said : day))}`;
    return { prose: what, bare: what };
  }
  if (/\bmonths?\b/.test(lower)) {
    const what = `${MONTHS[Number(day.slice(5, 7)) - 1]} ${day.slice(0, 4)}`;
    return { prose: `in ${what}`, bare: what };
  }
  if (/\byears?\b/.test(lower)) return { prose: `in ${day.slice(0, 4)}`, bare: day.slice(0, 4) };
  const part = PART_OF_DAY.find(([re]) => re.test(lower))?.[1];
  const named = /\b(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\b/.test(lower);
  if (!named && !/\b(?:days?|yesterday|today|tomorrow|tonight|night|morning|afternoon|evening)\b/.test(lower)) return null;
  const date = named ? `${WEEKDAYS[weekday(day)]}, ${formatDay(day)}` : formatDay(day);
  const bare = part === undefined ? date : `the ${part} of ${date}`;
  return { prose: `on ${bare}`, bare };
}

/** A resolver over chrono-node (passed in, so the caller decides when the library is loaded). */
export function createRelativeDateResolver(chrono: Chrono): RelativeDateResolver {
  return (text, date) => {
    if (!TRIGGER_RE.test(text)) return { text, dates: [] };
    // Noon of the fact's day: "tomorrow" is the next day in any time zone the process runs in.
    const ref = new Date(`${date}T12:00:00`);
    const dates: ResolvedTime[] = [];
    let out = '';
    let from = 0;
    for (const found of chrono.casual.parse(text, ref, { forwardDate: false })) {
      let at = found.index;
      let phrase = found.text;
      const lead = LEADING_PREPOSITION_RE.exec(phrase);
      if (lead !== null) {
        at += lead[0].length;
        phrase = phrase.slice(lead[0].length);
      }
      const count = /\bago$/i.test(phrase) ? COUNT_RE.exec(phrase) : null;
      if (count !== null && count.index > 0) {
        at += count.index;
        phrase = phrase.slice(count.index);
      }
      if (at < from || REJECT_RE.test(phrase) || !RELATIVE_RE.test(phrase)) continue;
      const before = text.slice(0, at);
      const after = text.slice(at + phrase.length);
      if (/^['’]s\b/.test(after) || /^-/.test(after) || DETERMINER_RE.test(before) || FIGURE_RE.test(before)) continue;
      const [year, month, day] = [found.start.get('year'), found.start.get('month'), found.start.get('day')];
      if (year === null || month === null || day === null) continue;
      const written = write(phrase, `${year}-${pad(month)}-${pad(day)}`, date);
      if (written === null) continue;
      const subject = /^\s*$/u.test(before) && SUBJECT_OF_RE.test(after);
      let resolved = lead !== null || subject || PREPOSITION_RE.test(before) ? written.bare : written.prose;
      if (EARLY_LATE_RE.test(before) && resolved.startsWith('the ')) resolved = `in ${resolved}`;
      if (/^\p{Lu}/u.test(phrase)) resolved = resolved[0]!.toUpperCase() + resolved.slice(1);
      out += text.slice(from, at) + resolved;
      from = at + phrase.length;
      dates.push({ said: phrase, resolved });
    }
    return { text: out + text.slice(from), dates };
  };
}

/** The resolver, with chrono-node imported on first use. */
export async function loadRelativeDateResolver(): Promise<RelativeDateResolver> {
  const chrono = (await import('chrono-node')) as unknown as Chrono;
  return createRelativeDateResolver(chrono);
}
