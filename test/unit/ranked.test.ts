/**
 * The best rows of a query whose limit cuts a tied run arbitrarily (ranked.ts): fetched by scores and row ids
 * (`rankedByIds`), they are the rows the one-query way (`ranked`) keeps, whichever tied rows the "LanceDB" here
 * hands back, and a take that misses a row (the table changed between the two queries) says so; `rankedEitherWay`
 * reads rows in one query first where the vault's ties are mostly short, and by ids where they run long, as deep
 * as recent ties went (`TieDepths`), never reading a row twice or one it held before.
 */
import { describe, expect, it } from 'vitest';
import { leastFetch, ranked, rankedByIds, rankedEitherWay, TieDepths, TIE_MAX_GROWTH } from '../../src/indexer/ranked.js';
import { createRandom } from '../../bench/random.js';

interface Row {
  id: number;
  key: string;
  raw: number;
}

/** Rows with long runs of equal scores, keys not in id order. */
function table(count: number, seed: number): Row[] {
  const rng = createRandom(seed);
  return Array.from({ length: count }, (_, id) => ({ id, key: `k${(id * 7919) % count}`, raw: [9, 5, 5, 5, 3, 3, 1][rng.int(7)]! }));
}

/** The top `size` by score as LanceDB gives them: a tied run at the cut comes back as an arbitrary subset, in any order. */
function lance(rows: readonly Row[], seed: number): (size: number) => Row[] {
  const rng = createRandom(seed);
  return (size) => {
    const shuffled = rows.map((row) => ({ row, tie: rng.int(1_000_000) })).sort((a, b) => b.row.raw - a.row.raw || a.tie - b.tie);
    return shuffled.slice(0, size).map((s) => s.row).sort(() => rng.int(3) - 1);
  };
}

const parse = (shown: string, raw: number): { key: string; raw: number } => ({ key: shown, raw });

describe('rankedByIds', () => {
  it('keeps the rows ranked keeps, whichever tied rows come back and whatever the start factor', async () => {
    for (const seed of [1, 2, 3]) {
      const rows = table(400, seed);
      const byId = new Map(rows.map((row) => [row.id, row]));
      for (const limit of [5, 20, 50]) {
        const expected = (await ranked(async (size) => {
          const got = lance(rows, seed)(size);
          return { shown: got.map((r) => r.key), raw: got.map((r) => r.raw) };
        }, parse, limit, 'descending', 0)).hits;
        for (const factor of [0, 1, 3]) {
          const fetch = lance(rows, seed * 31 + factor);
          const taken: number[] = [];
          const got = await rankedByIds(
            async (size) => {
              const out = fetch(size);
              return { ids: out.map((r) => r.id), raw: out.map((r) => r.raw) };
            },
            async (ids) => {
              taken.push(ids.length);
              const out = [...ids].reverse().map((id) => byId.get(id)!);
              return { ids: out.map((r) => r.id), shown: out.map((r) => r.key) };
            },
            parse,
            limit,
            'descending',
            limit * factor,
          );
          expect(got?.hits, `seed ${seed}, limit ${limit}, factor ${factor}`).toEqual(expected);
          // The rows' JSON is read once, for the rows at or above the cut only.
          expect(taken.length).toBe(1);
          expect(taken[0]).toBeLessThanOrEqual(rows.filter((r) => r.raw >= expected.at(-1)!.raw).length);
        }
      }
    }
  });

  it('says null when the take misses a row or gives one twice, and reads nothing for a query without rows', async () => {
    const rows = table(100, 7);
    const fetch = async (size: number): Promise<{ ids: number[]; raw: number[] }> => {
      const out = lance(rows, 1)(size);
      return { ids: out.map((r) => r.id), raw: out.map((r) => r.raw) };
    };
    const short = async (ids: readonly number[]): Promise<{ ids: number[]; shown: string[] }> => ({ ids: ids.slice(1), shown: ids.slice(1).map(String) });
    const twice = async (ids: readonly number[]): Promise<{ ids: number[]; shown: string[] }> => ({ ids: [ids[0]!, ...ids.slice(0, -1)], shown: ids.map(String) });
    expect(await rankedByIds(fetch, short, parse, 10, 'descending', 0)).toBeNull();
    expect(await rankedByIds(fetch, twice, parse, 10, 'descending', 0)).toBeNull();
    const none = await rankedByIds(async () => ({ ids: [], raw: [] }), () => Promise.reject(new Error('no take of no rows')), parse, 10, 'descending', 0);
    expect(none?.hits).toEqual([]);
  });
});

describe('rankedEitherWay', () => {
  it('keeps the rows ranked keeps: in one query when the tie ends within the least fetch, by ids when it runs on', async () => {
    // Distinct scores (no tie at the cut), then long runs of equal ones.
    const varied: Row[] = Array.from({ length: 300 }, (_, id) => ({ id, key: `k${(id * 7919) % 300}`, raw: 1000 - id }));
    for (const [rows, tookIds] of [[varied, false], [table(400, 5), true]] as const) {
      const byId = new Map(rows.map((row) => [row.id, row]));
      const fetch = lance(rows, 9);
      const expected = (await ranked(async (size) => {
        const got = lance(rows, 2)(size);
        return { shown: got.map((r) => r.key), raw: got.map((r) => r.raw) };
      }, parse, 50, 'descending', 0)).hits;
      const calls: string[] = [];
      const read: number[] = [];
      const depths = new TieDepths();
      const query = (held: ReadonlyMap<number, string> = new Map()): Promise<Array<{ key: string; raw: number }>> =>
        rankedEitherWay(
          async (size) => {
            calls.push(`rows ${size}`);
            const out = fetch(size);
            read.push(...out.map((r) => r.id));
            return { shown: out.map((r) => r.key), raw: out.map((r) => r.raw), ids: out.map((r) => r.id) };
          },
          async (size) => {
            calls.push(`scores ${size}`);
            const out = fetch(size);
            return { ids: out.map((r) => r.id), raw: out.map((r) => r.raw) };
          },
          async (ids) => {
            calls.push('take');
            read.push(...ids);
            return { ids: [...ids], shown: ids.map((id) => byId.get(id)!.key) };
          },
          parse,
          50,
          { tie: depths, query: 'q' },
          held,
        );
      expect(await query()).toEqual(expected);
      expect(calls[0]).toBe('rows 60');
      expect(calls.includes('take')).toBe(tookIds);
      // No row's JSON is read twice.
      expect(new Set(read).size).toBe(read.length);
      if (!tookIds) continue;
      // A vault whose queries' ties run long starts with scores and ids, as deep as its recent ties went.
      calls.length = 0;
      expect(depths.first(50)).toBeGreaterThan(leastFetch(50));
      expect(await query()).toEqual(expected);
      expect(calls[0]).toBe(`scores ${depths.first(50, 'q')}`);
      // Rows held from before are not read again: with every row held, nothing is taken.
      calls.length = 0;
      expect(await query(new Map(rows.map((r) => [r.id, r.key])))).toEqual(expected);
      expect(calls).not.toContain('take');
    }
  });
});

describe('TieDepths', () => {
  it('starts at the least fetch, then fetches as deep as three in four recent tied runs went, with the margin', () => {
    const depths = new TieDepths();
    expect(depths.first(50)).toBe(60);
    for (const end of [50, 55, 60, 70, 80, 90, 100, 400]) depths.record(end, 50);
    // Of 8 runs the 7th shortest (100 rows): 120 with the margin; for a limit of 10, the same multiple.
    expect(depths.first(50)).toBe(120);
    expect(depths.first(10)).toBe(24);
    // Only the recent runs count, and never past TIE_MAX_GROWTH times the limit.
    for (let i = 0; i < 20; i++) depths.record(5000, 50);
    expect(depths.first(50)).toBe(50 * TIE_MAX_GROWTH);
    for (let i = 0; i < 20; i++) depths.record(50, 50);
    expect(depths.first(50)).toBe(60);
    // A query asked before starts where its own run ended, for its limit.
    depths.record(300, 50, 'coffee');
    expect(depths.first(50, 'coffee')).toBe(360);
    expect(depths.first(50, 'tea')).toBe(60);
    expect(depths.first(20, 'coffee')).toBe(24);
  });
});
