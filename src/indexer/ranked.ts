/**
 * The best `limit` rows of a LanceDB query, by score then key, the same every time. LanceDB cuts a run of equal
 * scores at its limit arbitrarily: which of the tied rows come back varies from run to run and between two builds of
 * the same files. So more rows are fetched than kept, and when a tied run at the cut goes on past what was fetched,
 * the fetch doubles until it ends; the cut then falls in key order (store.ts runs the queries, this file decides).
 */
import { byCodeUnit } from '../text/compare.js';
import type { ResultRows } from './result-rows.js';

/**
 * At least this share more candidates are fetched than kept, so a run of equal scores at the cut is usually whole
 * in one query (on the Dendron vault a tie at the 50th hit ran at most 7 further, docs/benchmarks.md).
 */
export const TIE_MARGIN = 0.2;
/** However long a tie at the cut runs, fetching stops at this many times the limit. */
export const TIE_MAX_GROWTH = 16;

/** A row as the caller makes it from its `shown` JSON and score: `key` breaks ties. */
export interface Keyed {
  key: string;
}

/**
 * The best `limit` rows of `fetch`, by score (`raw`) then key: more rows are fetched than kept (`factor` times the
 * limit, at least TIE_MARGIN more); when the last fetched still ties with the last kept, the tied run may go on past
 * what was fetched, and the fetch doubles until it ends. The cut then falls in key order, and the hits are the same
 * every time, whatever the factor (up to TIE_MAX_GROWTH times the limit). `enough`: the fetch that would have held
 * this query's tied run with the margin to spare, where the next query may start. A row's JSON is parsed only when
 * it is kept or its key breaks a tie: the rows fetched past the cut are there for their scores.
 */
export async function ranked<Hit extends Keyed>(
  fetch: (size: number) => Promise<ResultRows>,
  parse: (shown: string, raw: number) => Hit,
  limit: number,
  order: 'descending' | 'ascending',
  factor: number,
): Promise<{ hits: Hit[]; enough: number }> {
  for (let size = Math.max(leastFetch(limit), Math.ceil(limit * factor)); ; size *= 2) {
    const done = cutRows(await fetch(size), size, parse, limit, order);
    if (done !== null) return done;
  }
}

/** One fetch of `size` rows cut as `ranked` cuts it, or null when the tied run at the cut may go on past it. */
function cutRows<Hit extends Keyed>(
  { shown, raw }: ResultRows,
  size: number,
  parse: (shown: string, raw: number) => Hit,
  limit: number,
  order: 'descending' | 'ascending',
): { hits: Hit[]; enough: number } | null {
  const sign = order === 'descending' ? -1 : 1;
  const parsed: Array<Hit | undefined> = [];
  const hit = (i: number): Hit => (parsed[i] ??= parse(shown[i]!, raw[i]!));
  // Rows not yet in the full-text index come back unsorted (lance#5062): sorting here orders them too.
  const byRank = Array.from(raw.keys()).sort((a, b) => sign * (raw[a]! - raw[b]!) || byCodeUnit(hit(a).key, hit(b).key));
  const cut = cutOf(byRank.map((i) => raw[i]!), limit, size);
  return cut === null ? null : { hits: byRank.slice(0, limit).map(hit), enough: enoughFor(cut.end, leastFetch(limit)) };
}

/**
 * `ranked`, the cheaper of two ways for the query's vault. Where queries' tied runs at the cut mostly end within the
 * least fetch (a vault of varied texts: `oneQueryFirst`), one query of rows and scores (`rows`) usually settles it,
 * as `ranked` does. Otherwise (a vault of templated facts at scale: at 1M facts the tied run at the 50th candidate
 * ended at the 51st to 637th row), that first query would mostly be wasted: the fetches that find where the run ends
 * read scores and row ids alone (`rankedByIds`), then the kept rows by id; and the one-query way again when the
 * table changed between the two (docs/benchmarks.md).
 */
export async function rankedEitherWay<Hit extends Keyed>(
  rows: (size: number) => Promise<ResultRows>,
  scores: (size: number) => Promise<ScoredIds>,
  take: (ids: readonly number[]) => Promise<{ ids: number[]; shown: string[] }>,
  parse: (shown: string, raw: number) => Hit,
  limit: number,
  factor: number,
  oneQueryFirst: boolean,
): Promise<{ hits: Hit[]; enough: number }> {
  const least = leastFetch(limit);
  let from = factor;
  if (oneQueryFirst) {
    const done = cutRows(await rows(least), least, parse, limit, 'descending');
    if (done !== null) return done;
    from = Math.max(factor, (2 * least) / limit);
  }
  return (await rankedByIds(scores, take, parse, limit, 'descending', from)) ?? ranked(rows, parse, limit, 'descending', from);
}

/** The least fetch for `limit` rows: TIE_MARGIN more. */
export function leastFetch(limit: number): number {
  return limit + Math.max(1, Math.ceil(limit * TIE_MARGIN));
}

/** A query's scores and row ids (`_rowid`), in the order LanceDB returned them. */
export interface ScoredIds {
  ids: number[];
  raw: number[];
}

/**
 * `ranked` for a query that can hand over its rows' ids: the fetches that find where a tied run at the cut ends ask
 * for scores and row ids only, and `take` then reads the `shown` JSON of the rows at or above the cut alone, by id.
 * The rows are the same as `ranked`'s: every row scoring better than the cut, and the tied run at it in key order.
 * Reading a row's JSON costs LanceDB about as much as scoring 30 more (at 1M rows, 0.03 ms; docs/benchmarks.md), and
 * a tied run at the cut of a vault of templated facts runs to hundreds of rows: those fetches read the scores alone.
 * Null when `take` did not give back every row asked for (the table changed between the two queries): the caller
 * asks again the one-query way.
 */
export async function rankedByIds<Hit extends Keyed>(
  fetch: (size: number) => Promise<ScoredIds>,
  take: (ids: readonly number[]) => Promise<{ ids: number[]; shown: string[] }>,
  parse: (shown: string, raw: number) => Hit,
  limit: number,
  order: 'descending' | 'ascending',
  factor: number,
): Promise<{ hits: Hit[]; enough: number } | null> {
  const sign = order === 'descending' ? -1 : 1;
  const least = leastFetch(limit);
  for (let size = Math.max(least, Math.ceil(limit * factor)); ; size *= 2) {
    const { ids, raw } = await fetch(size);
    const byScore = Array.from(raw.keys()).sort((a, b) => sign * (raw[a]! - raw[b]!));
    const cut = cutOf(byScore.map((i) => raw[i]!), limit, size);
    if (cut === null) continue;
    // The rows at or above the cut: the ones kept, and the rest of the tied run, whose keys say which are kept.
    const wanted = byScore.slice(0, cut.end);
    if (wanted.length === 0) return { hits: [], enough: least };
    const score = new Map(wanted.map((i) => [ids[i]!, raw[i]!]));
    const taken = await take(wanted.map((i) => ids[i]!));
    if (taken.ids.length !== wanted.length || new Set(taken.ids).size !== wanted.length || taken.ids.some((id) => !score.has(id))) return null;
    const hits = taken.ids.map((id, i) => ({ hit: parse(taken.shown[i]!, score.get(id)!), raw: score.get(id)! }));
    hits.sort((a, b) => sign * (a.raw - b.raw) || byCodeUnit(a.hit.key, b.hit.key));
    return { hits: hits.slice(0, limit).map((h) => h.hit), enough: enoughFor(cut.end, least) };
  }
}

/**
 * Where the cut falls in a fetch of `size` rows whose scores are `sorted` (best first): null when the tie at the
 * `limit`th row may run on past what was fetched (fetch more); else `end`, the rank past the tied run's last row
 * fetched. At TIE_MAX_GROWTH times the limit the fetch stops, tie or not.
 */
function cutOf(sorted: readonly number[], limit: number, size: number): { end: number } | null {
  const cut = sorted[limit - 1];
  const whole = sorted.length < size || sorted[size - 1] !== cut;
  if (!whole && size < limit * TIE_MAX_GROWTH) return null;
  let end = Math.min(limit, sorted.length);
  while (end < sorted.length && sorted[end] === cut) end++;
  return { end };
}

/** The fetch that holds a tied run ending at `end` with the margin to spare (never below `least`). */
function enoughFor(end: number, least: number): number {
  return Math.max(least, Math.ceil(end * (1 + TIE_MARGIN)));
}
