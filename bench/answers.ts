/**
 * Answer containment for the loop (loop.ts): does a question's short gold answer appear in what search
 * returned? Both sides are normalized alike (normalizeAnswer), and a gold answer holding a date is also
 * looked for in the date's other common written forms (answerForms), so "7 May 2023" is found in
 * "May 7th, 2023" and "2023-05-07".
 */

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
/** Abbreviations read as a month only beside a number ("Jun 7", "7 Sept"): "mar" and "dec" are words too. */
const MONTH_ABBREVIATIONS: Record<string, string> = {
  jan: 'january',
  feb: 'february',
  mar: 'march',
  apr: 'april',
  jun: 'june',
  jul: 'july',
  aug: 'august',
  sep: 'september',
  sept: 'september',
  oct: 'october',
  nov: 'november',
  dec: 'december',
};
const UNITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const ARTICLES = new Set(['a', 'an', 'the']);
/** Answers containment cannot check: any text holds "yes" somewhere. */
const UNCHECKABLE = new Set(['yes', 'no']);
export const SHORT_ANSWER_WORDS = 5;

const isDigits = (token: string | undefined): boolean => token !== undefined && /^\d+$/.test(token);
const isMonth = (token: string | undefined): boolean => token !== undefined && MONTHS.includes(token);
const isDay = (token: string | undefined): boolean => isDigits(token) && Number(token) >= 1 && Number(token) <= 31;
const isYear = (token: string | undefined): boolean => isDigits(token) && token!.length === 4;

/**
 * Lower case, NFKC, ordinals as numbers ("7th" → "7"), punctuation to spaces, articles dropped, number
 * words up to ninety-nine as digits, leading zeros dropped ("05" → "5"), a month's abbreviation beside a
 * number as its name, and "of" between a day and its month or a month and its year dropped.
 */
export function normalizeAnswer(text: string): string {
  const spaced = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/(\d)(?:st|nd|rd|th)\b/gu, '$1')
    .replace(new RegExp(`(\\d)(${MONTHS.join('|')})\\b`, 'gu'), '$1 $2')
    .replace(/[^\p{L}\p{N}]+/gu, ' ');
  const words = spaced.split(' ').filter((w) => w !== '' && !ARTICLES.has(w));
  const numbers: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const tens = TENS.indexOf(word);
    if (tens >= 2) {
      const unit = UNITS.indexOf(words[i + 1] ?? '');
      if (unit >= 1 && unit <= 9) {
        numbers.push(String(tens * 10 + unit));
        i++;
      } else numbers.push(String(tens * 10));
      continue;
    }
    const unit = UNITS.indexOf(word);
    if (unit >= 0) numbers.push(String(unit));
    else if (isDigits(word)) numbers.push(word.replace(/^0+(?=\d)/u, ''));
    else numbers.push(word);
  }
  const months = numbers.map((word, i) => {
    const month = MONTH_ABBREVIATIONS[word];
    return month !== undefined && (isDigits(numbers[i - 1]) || isDigits(numbers[i + 1])) ? month : word;
  });
  return months
    .filter((word, i) => !(word === 'of' && ((isDay(months[i - 1]) && isMonth(months[i + 1])) || (isMonth(months[i - 1]) && isYear(months[i + 1])))))
    .join(' ');
}

/**
 * The normalized forms a gold answer may be written in: itself, and with each full date it holds
 * ("7 may 2023" or "may 7 2023") also as the other order and as ISO ("2023 5 7", from 2023-05-07), and each
 * day without a year ("13 august") in either order. A month with its year and a year alone stand as they are.
 * An answer that is a date said relative to another is also the period it names (resolvedForms), unless
 * `resolve` is false (the strict reading, as the bench read it before 2026-11-29).
 */
export function answerForms(gold: string, options: { resolve?: boolean } = {}): string[] {
  const words = normalizeAnswer(gold).split(' ').filter((w) => w !== '');
  // Each span is a date found in the gold answer, with the ways to write it.
  const pieces: string[][] = [];
  for (let i = 0; i < words.length; ) {
    const [a, b, c] = [words[i], words[i + 1], words[i + 2]];
    let date: { day: string; month: string; year?: string; used: number } | null = null;
    if (isDay(a) && isMonth(b)) date = isYear(c) ? { day: a!, month: b!, year: c!, used: 3 } : { day: a!, month: b!, used: 2 };
    else if (isMonth(a) && isDay(b) && !isYear(b)) date = isYear(c) ? { day: b!, month: a!, year: c!, used: 3 } : { day: b!, month: a!, used: 2 };
    if (date === null) {
      pieces.push([words[i]!]);
      i++;
      continue;
    }
    const { day, month, year } = date;
    const forms = year === undefined ? [`${day} ${month}`, `${month} ${day}`] : [`${day} ${month} ${year}`, `${month} ${day} ${year}`, `${year} ${MONTHS.indexOf(month) + 1} ${day}`];
    pieces.push(forms);
    i += date.used;
  }
  let out = [''];
  for (const piece of pieces) out = out.flatMap((prefix) => piece.map((form) => (prefix === '' ? form : `${prefix} ${form}`)));
  const resolved = options.resolve === false ? [] : resolvedForms(words);
  return [...new Set([...out, ...resolved].filter((form) => form !== ''))];
}

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DAY_MS = 86_400_000;
const isoDay = (ms: number): { day: number; month: string; year: number } => {
  const d = new Date(ms);
  return { day: d.getUTCDate(), month: MONTHS[d.getUTCMonth()]!, year: d.getUTCFullYear() };
};
const fullForms = (ms: number, lead: string): string[] => {
  const { day, month, year } = isoDay(ms);
  const m = MONTHS.indexOf(month) + 1;
  return [`${day} ${month} ${year}`, `${month} ${day} ${year}`, `${year} ${m} ${day}`].map((date) => (lead === '' ? date : `${lead} ${date}`));
};

/**
 * A date said relative to another ("the Friday before 15 July 2023", "the week before 9 June 2023", "the
 * weekend of 24 June 2022") names one day, week or weekend: its forms are also that period as a statement
 * resolved against the day writes it ("14 July 2023", "week of 29 May 2023" with weeks from Monday, "weekend
 * of 25 June 2022" by its Saturday). Only an answer that is nothing but such a phrase is read so.
 */
function resolvedForms(words: readonly string[]): string[] {
  const [unit, relation, ...rest] = words;
  if (unit === undefined || relation === undefined || !['before', 'after', 'of'].includes(relation)) return [];
  let day: string | undefined, month: string | undefined, year: string | undefined;
  if (rest.length === 3 && isDay(rest[0]) && isMonth(rest[1]) && isYear(rest[2])) [day, month, year] = rest;
  else if (rest.length === 3 && isMonth(rest[0]) && isDay(rest[1]) && isYear(rest[2])) [month, day, year] = rest;
  else return [];
  const anchor = Date.UTC(Number(year), MONTHS.indexOf(month!), Number(day));
  const weekday = new Date(anchor).getUTCDay();
  const monday = (ms: number): number => ms - ((new Date(ms).getUTCDay() + 6) % 7) * DAY_MS;
  const target = WEEKDAYS.indexOf(unit);
  if (target >= 0) {
    if (relation === 'of') return [];
    const back = (weekday - target + 7) % 7 || 7;
    const ahead = (target - weekday + 7) % 7 || 7;
    return fullForms(relation === 'before' ? anchor - back * DAY_MS : anchor + ahead * DAY_MS, '');
  }
  if (unit === 'week') {
    const start = relation === 'before' ? monday(anchor) - 7 * DAY_MS : relation === 'after' ? monday(anchor) + 7 * DAY_MS : monday(anchor);
    return fullForms(start, 'week of');
  }
  if (unit === 'weekend') {
    // The weekend's Saturday: the last one before the day, the first after it, or the one of its week.
    const saturday = relation === 'before' ? anchor - (((weekday - 6 + 7) % 7 || 7) * DAY_MS) : relation === 'after' ? anchor + (((6 - weekday + 7) % 7 || 7) * DAY_MS) : weekday === 0 ? anchor - DAY_MS : monday(anchor) + 5 * DAY_MS;
    return fullForms(saturday, 'weekend of');
  }
  return [];
}

/** The gold answer as a string (LoCoMo has a few numbers), or null when there is none. */
export function goldText(answer: unknown): string | null {
  if (typeof answer === 'string') return answer;
  if (typeof answer === 'number' && Number.isFinite(answer)) return String(answer);
  return null;
}

/** A gold answer containment can score: at most SHORT_ANSWER_WORDS words once normalized, and not a bare yes or no. */
export function isShortAnswer(gold: string): boolean {
  const normalized = normalizeAnswer(gold);
  if (normalized === '' || UNCHECKABLE.has(normalized)) return false;
  return normalized.split(' ').length <= SHORT_ANSWER_WORDS;
}

/**
 * True when one of the texts holds one of the forms as whole words. Each text is matched on its own, so an
 * answer never spans two results. Links to a period's part ("[[Caroline 2023-05-08]]", navigation) are left
 * out: their date is a file name, not a statement.
 */
export function containsAnswer(texts: readonly string[], forms: readonly string[]): boolean {
  return holdsAnswer(answerHaystacks(texts), forms);
}

/** The texts as containsAnswer matches them: normalized once, so many answers can be looked for in a whole vault. */
export function answerHaystacks(texts: readonly string[]): string[] {
  return texts.map((text) => ` ${normalizeAnswer(text.replace(/\[\[[^\]]*\d{4}-\d{2}(?:-\d{2})?(?: \(\d+\))?(?:\|[^\]]*)?\]\]/gu, ' '))} `);
}

/** True when one haystack (answerHaystacks) holds one of the forms as whole words. */
export function holdsAnswer(haystacks: readonly string[], forms: readonly string[]): boolean {
  return forms.some((form) => haystacks.some((haystack) => haystack.includes(` ${form} `)));
}
