/**
 * The best `limit` rows of a LanceDB query, by score then key, the same every time. LanceDB cuts a run of equal
 * scores at its limit arbitrarily: which of the tied rows come back varies from run to run and between two builds of
 * the same files. So more rows are fetched than kept, and when a tied run at the cut goes on past what was fetched,
 * the fetch grows until it ends; the cut then falls in key order (store.ts runs the queries, this file decides).
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
    if (done !== null) return { hits: done.hits, enough: enoughFor(done.end, leastFetch(limit)) };
  }
}

/**
 * One fetch of `size` rows cut as `ranked` cuts it, with the rank past the tied run at the cut (`end`), or null when
 * the tied run may go on past the fetch.
 */
function cutRows<Hit extends Keyed>(
  { shown, raw }: ResultRows,
  size: number,
  parse: (shown: string, raw: number) => Hit,
  limit: number,
  order: 'descending' | 'ascending',
): { hits: Hit[]; end: number } | null {
  const sign = order === 'descending' ? -1 : 1;
  const parsed: Array<Hit | undefined> = [];
  const hit = (i: number): Hit => (parsed[i] ??= parse(shown[i]!, raw[i]!));
  // Rows not yet in the full-text index come back unsorted (lance#5062): sorting here orders them too.
  const byRank = Array.from(raw.keys()).sort((a, b) => sign * (raw[a]! - raw[b]!) || byCodeUnit(hit(a).key, hit(b).key));
  const cut = cutOf(byRank.map((i) => raw[i]!), limit, size);
  return cut === null ? null : { hits: byRank.slice(0, limit).map(hit), end: cut.end };
}

/** A query's rows with their ids (`_rowid`): the first fetch of `rankedEitherWay`. */
export interface ShownIds extends ResultRows {
  ids: number[];
}

/**
 * `ranked`, the cheaper of two ways: the rows of the least fetch in one query (rows, scores and row ids) usually settle
 * a query of a vault of varied texts (a process holding rows from earlier searches asks for scores and ids alone).
 * Where the tied run at the cut runs on (a vault of templated facts at scale: at 1M facts the tied run at the 50th
 * candidate ended anywhere from the 51st to the 637th row), the fetches that find
 * where it ends read scores and row ids alone, each DEEPER times the last (each costs LanceDB's whole query again:
 * ~15 ms CPU at 1M, against ~0.02 ms a row more in one deeper fetch), and then the rows at or above the cut by id
 * (`rankedByIds`): reading a row's `shown`, in the query or by id, costs LanceDB ~0.1–0.2 ms at 1M, so only the rows
 * the cut needs are read, each once, and none a warm process read before (`held`). The one-query way again when the
 * table changed between the queries (docs/benchmarks.md).
 *
 * The fetches are always the same sizes, the least fetch and then DEEPER times the last, up to TIE_MAX_GROWTH times
 * the limit: LanceDB's score of a row can differ in its last bits from one fetch size to another (`SettledFetches`),
 * and the cut compares scores exactly, so a query's answer is the answer at the first of those sizes that settles
 * it. A query that settled past the least fetch at this table state before (`settled`) starts at the size it
 * settled at, which answers as the way up to it would.
 */
export async function rankedEitherWay<Hit extends Keyed>(
  rows: (size: number) => Promise<ShownIds>,
  scores: (size: number) => Promise<ScoredIds>,
  take: (ids: readonly number[]) => Promise<{ ids: number[]; shown: string[] }>,
  parse: (shown: string, raw: number) => Hit,
  limit: number,
  settled: { fetches: SettledFetches; query: string } | null,
  held: ReadonlyMap<number, string> = new Map(),
): Promise<Hit[]> {
  const least = leastFetch(limit);
  const asked = settled?.fetches.settledAt(limit, settled.query);
  let from = asked ?? least;
  // A new query, where this process's recent queries mostly settled past the least fetch: the next size is asked for
  // beside it rather than after it, the same fetch either way, so the same answer (a warm server's new question at
  // 1M: 0.85× the time).
  const ahead = new Map<number, Promise<ScoredIds>>();
  if (asked === undefined && settled?.fetches.mostlyDeeper() === true) {
    const next = scores(deeper(least));
    next.catch(() => undefined); // unused when the least fetch settles it
    ahead.set(deeper(least), next);
  }
  const scoresOf = (size: number): Promise<ScoredIds> => ahead.get(size) ?? scores(size);
  // A row id names the same row for as long as it is in the table: rows read before (`held`, shown-by-id.ts, and a
  // first query's) are not read again.
  const known = new Map<number, string>();
  // A process that holds rows asks for scores and ids and takes only the rows it lacks; one that holds none reads the
  // rows in the query. A row's score is the same whatever the query selects (docs/benchmarks.md), so either answers alike.
  if (from <= least && held.size === 0) {
    const got = await rows(least);
    const done = cutRows(got, least, parse, limit, 'descending');
    if (done !== null) {
      settled?.fetches.record(least, limit, settled.query);
      return done.hits;
    }
    got.ids.forEach((id, i) => known.set(id, got.shown[i]!));
    from = deeper(least);
  }
  const shownOf = (id: number): string | undefined => known.get(id) ?? held.get(id);
  const takeRest = async (ids: readonly number[]): Promise<{ ids: number[]; shown: string[] }> => {
    const had = ids.filter((id) => shownOf(id) !== undefined);
    const rest = ids.filter((id) => shownOf(id) === undefined);
    const taken = rest.length === 0 ? { ids: [], shown: [] } : await take(rest);
    return { ids: [...had, ...taken.ids], shown: [...had.map((id) => shownOf(id)!), ...taken.shown] };
  };
  const byIds = await rankedByIds(scoresOf, takeRest, parse, limit, 'descending', from);
  if (byIds !== null) {
    settled?.fetches.record(byIds.size, limit, settled.query);
    return byIds.hits;
  }
  return (await ranked(rows, parse, limit, 'descending', from / limit)).hits;
}

/**
 * How much deeper each fetch past the first goes (rankedEitherWay): one deeper fetch costs less than two, and a query
 * asked again starts at the size it settled at, so the steps are not much deeper than the tied runs they must hold.
 * For the bench's 40 queries at 100k and 1M templated facts the runs at the 50th candidate ended at the 52nd to the
 * 154th row: 2.5 times the least fetch (150) holds nearly all, and a longer run takes a third fetch; four times (240)
 * cost a warm search at 1M 1.15× the time (docs/benchmarks.md).
 */
const DEEPER = 2.5;

/** The fetch after one of `size` rows. */
const deeper = (size: number): number => Math.ceil(size * DEEPER);

/** How many queries' settled fetches a store keeps (a few tens of KB). */
const SETTLED_QUERIES = 1_000;
/** How many recent queries say whether the next one likely settles past the least fetch (`mostlyDeeper`). */
const RECENT_QUERIES = 20;

/**
 * The fetch size each query settled at, at one table state: where the same query starts next time
 * (`rankedEitherWay`). Only the query's own: LanceDB's full-text score of a row can differ in its last bits from
 * one fetch size to another (at 1M facts, 115 of 2,000 rows' scores moved between fetches of 60 to 2,000; its scorer
 * sums a row's terms in another order when it skips, lance-format/lance#8666), so starting a query deeper than its
 * own way went, as deep as other queries' ties went, answered it differently: a warm process gave 1 of the 40
 * bench queries at 1M another answer than the CLI, and another on its second asking (docs/benchmarks.md). At one
 * table state the same query at the same size gets the same scores, so the size it settled at answers it as before.
 * `query` names the table state, the words, the filters and the weights.
 */
export class SettledFetches {
  private readonly settled = new Map<string, number>();
  /** Whether each of the recent queries settled past the least fetch. */
  private readonly recent: boolean[] = [];

  /** The size `query` for `limit` rows settled at when it was asked before at this state (undefined: not asked). */
  settledAt(limit: number, query: string): number | undefined {
    return this.settled.get(`${limit}\u0000${query}`);
  }

  /**
   * True when most recent queries settled past the least fetch (a vault of templated facts at scale): a new one likely
   * will too. It decides only whether the next fetch starts early, never where a query is answered.
   */
  mostlyDeeper(): boolean {
    return this.recent.length > 0 && this.recent.filter(Boolean).length * 2 > this.recent.length;
  }

  /** `query` for `limit` rows settled at a fetch of `size` rows. */
  record(size: number, limit: number, query: string): void {
    this.recent.push(size > leastFetch(limit));
    if (this.recent.length > RECENT_QUERIES) this.recent.shift();
    const key = `${limit}\u0000${query}`;
    this.settled.delete(key);
    this.settled.set(key, size);
    if (this.settled.size > SETTLED_QUERIES) this.settled.delete(this.settled.keys().next().value!);
  }

  /** Forgets every query's (the table changed under a search). */
  clear(): void {
    this.settled.clear();
    this.recent.length = 0;
  }
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
 * asks again the one-query way. The first fetch is `from` rows (at least the least fetch), each next one DEEPER
 * times that, up to TIE_MAX_GROWTH times the limit.
 */
export async function rankedByIds<Hit extends Keyed>(
  fetch: (size: number) => Promise<ScoredIds>,
  take: (ids: readonly number[]) => Promise<{ ids: number[]; shown: string[] }>,
  parse: (shown: string, raw: number) => Hit,
  limit: number,
  order: 'descending' | 'ascending',
  from: number,
): Promise<{ hits: Hit[]; end: number; size: number } | null> {
  const sign = order === 'descending' ? -1 : 1;
  const most = limit * TIE_MAX_GROWTH;
  for (let size = Math.min(most, Math.max(leastFetch(limit), Math.ceil(from))); ; size = Math.min(most, deeper(size))) {
    const { ids, raw } = await fetch(size);
    const byScore = Array.from(raw.keys()).sort((a, b) => sign * (raw[a]! - raw[b]!));
    const cut = cutOf(byScore.map((i) => raw[i]!), limit, size);
    if (cut === null) continue;
    // The rows at or above the cut: the ones kept, and the rest of the tied run, whose keys say which are kept.
    const wanted = byScore.slice(0, cut.end);
    if (wanted.length === 0) return { hits: [], end: 0, size };
    const score = new Map(wanted.map((i) => [ids[i]!, raw[i]!]));
    const taken = await take(wanted.map((i) => ids[i]!));
    if (taken.ids.length !== wanted.length || new Set(taken.ids).size !== wanted.length || taken.ids.some((id) => !score.has(id))) return null;
    const hits = taken.ids.map((id, i) => ({ hit: parse(taken.shown[i]!, score.get(id)!), raw: score.get(id)! }));
    hits.sort((a, b) => sign * (a.raw - b.raw) || byCodeUnit(a.hit.key, b.hit.key));
    return { hits: hits.slice(0, limit).map((h) => h.hit), end: cut.end, size };
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
