/**
 * Wall-clock times of the vault's time zone as instants: when a local day starts (the daily LLM caps
 * reset at local midnight) and when a daily 'HH:MM' falls (the scheduler's daily windows).
 * (It belongs with core/clock.ts; it lives here until that module takes it.)
 */
import { localStamp } from '../core/clock.js';

const TIME_RE = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DAY_MS = 86_400_000;

/** True for a 24-hour 'HH:MM'. */
export function isLocalTime(value: string): boolean {
  return TIME_RE.test(value);
}

/** The date `days` after (or before) a YYYY-MM-DD date. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** How far the zone's wall clock is ahead of UTC at `instant`, in ms. */
function offsetMs(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(instant));
  const get = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant the zone's clocks show `time` on `date`. A time skipped by a DST change falls the gap's
 * length later (02:30 on a spring-forward night is 03:30); a time shown twice is its first showing.
 */
export function zonedInstant(date: string, time: string, timeZone: string): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const [hh, mm] = time.split(':').map(Number) as [number, number];
  const wall = Date.UTC(y, m - 1, d, hh, mm);
  // The zone's offsets a day either side cover any DST change near this time.
  const before = offsetMs(wall - DAY_MS, timeZone);
  const after = offsetMs(wall + DAY_MS, timeZone);
  const valid = [wall - before, wall - after].filter((instant) => offsetMs(instant, timeZone) === wall - instant);
  // None valid: the time falls in a spring-forward gap, so it is read with the offset before the change.
  return new Date(valid.length === 0 ? wall - before : Math.min(...valid));
}

/** The next local midnight after `now` in the zone: when the local day (and the daily caps) turn over. */
export function nextLocalMidnight(now: Date, timeZone: string): Date {
  const tomorrow = addDays(localStamp(now, timeZone).date, 1);
  return zonedInstant(tomorrow, '00:00', timeZone);
}
