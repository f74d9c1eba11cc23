/**
 * The best rows of a query whose limit cuts a tied run arbitrarily (ranked.ts): fetched by scores and row ids
 * (`rankedByIds`), they are the rows the one-query way (`ranked`) keeps, whichever tied rows the "LanceDB" here
 * hands back, and a take that misses a row (the table changed between the two queries) says so; `rankedEitherWay`
 * reads rows in one query first, and by ids where the tie runs on, never reading a row twice or one it held before;
 * its fetches are always of the same sizes, so a "LanceDB" whose scores move in their last bits with the fetch size
 * answers a query the same whatever was asked before (`SettledFetches`).
 */
import { describe, expect, it } from 'vitest';
import { leastFetch, ranked, rankedByIds, rankedEitherWay, SettledFetches, TIE_MAX_GROWTH } from '../../src/indexer/ranked.js';
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

/** The three fetches `rankedEitherWay` is given, over `fetch`, logging each call and every row whose JSON is read. */
function ways(rows: readonly Row[], fetch: (size: number) => Row[]) {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const calls: string[] = [];
  const read: number[] = [];
  const query = (settled: { fetches: SettledFetches; query: string } | null, held: ReadonlyMap<number, string> = new Map()): Promise<Array<{ key: string; raw: number }>> =>
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
      settled,
      held,
    );
  return { calls, read, query };
}

describe('rankedEitherWay', () => {
  it('keeps the rows ranked keeps: in one query when the tie ends within the least fetch, by ids when it runs on', async () => {
    // Distinct scores (no tie at the cut), then long runs of equal ones.
    const varied: Row[] = Array.from({ length: 300 }, (_, id) => ({ id, key: `k${(id * 7919) % 300}`, raw: 1000 - id }));
    for (const [rows, tookIds] of [[varied, false], [table(400, 5), true]] as const) {
      const expected = (await ranked(async (size) => {
        const got = lance(rows, 2)(size);
        return { shown: got.map((r) => r.key), raw: got.map((r) => r.raw) };
      }, parse, 50, 'descending', 0)).hits;
      const { calls, read, query } = ways(rows, lance(rows, 9));
      const fetches = new SettledFetches();
      expect(await query({ fetches, query: 'q' })).toEqual(expected);
      expect(calls[0]).toBe('rows 60');
      expect(calls.includes('take')).toBe(tookIds);
      // No row's JSON is read twice.
      expect(new Set(read).size).toBe(read.length);
      if (!tookIds) {
        expect(fetches.settledAt(50, 'q')).toBe(leastFetch(50));
        // A process holding rows asks for scores and ids at the same size, and takes none it holds: the same answer.
        calls.length = 0;
        expect(await query({ fetches, query: 'q' }, new Map(rows.map((r) => [r.id, r.key])))).toEqual(expected);
        expect(calls).toEqual(['scores 60']);
        continue;
      }
      // Asked again, the query starts with scores and ids at the size it settled at.
      expect(fetches.settledAt(50, 'q')).toBeGreaterThan(leastFetch(50));
      calls.length = 0;
      expect(await query({ fetches, query: 'q' })).toEqual(expected);
      expect(calls[0]).toBe(`scores ${fetches.settledAt(50, 'q')}`);
      // Rows held from before are not read again: with every row held, nothing is taken.
      calls.length = 0;
      expect(await query({ fetches, query: 'q' }, new Map(rows.map((r) => [r.id, r.key])))).toEqual(expected);
      expect(calls).not.toContain('take');
    }
  });

  it('answers a query the same whatever was asked before, where scores move in their last bits with the fetch size', async () => {
    // LanceDB's full-text score of a row can differ by an ulp or two between fetch sizes (its scorer sums in another
    // order when it skips): here a row's score at a fetch of n rows is its own plus 1e-6 or not, by the row and n.
    const rows = table(400, 11);
    const rng = createRandom(3);
    const bump = new Map<string, number>();
    const moved = (row: Row, size: number): number => {
      const key = `${row.id} ${size}`;
      if (!bump.has(key)) bump.set(key, rng.int(2) * 1e-6);
      return row.raw + bump.get(key)!;
    };
    const fetch = (size: number): Row[] => rows.map((row) => ({ ...row, raw: moved(row, size) })).sort((a, b) => b.raw - a.raw || a.id - b.id).slice(0, size);
    const fresh = ways(rows, fetch);
    const answer = await fresh.query(null);
    // The fetches a fresh process makes: the least fetch, then DEEPER times it.
    expect(fresh.calls.filter((call) => call !== 'take')).toEqual(['rows 60', 'scores 150']);
    // Starting deeper than the query's own way, at a size other queries' ties reached, answers differently here:
    // what the sizes below guard against.
    const deeper = await rankedByIds(async (size) => {
      const out = fetch(size);
      return { ids: out.map((r) => r.id), raw: out.map((r) => r.raw) };
    }, async (ids) => ({ ids: [...ids], shown: ids.map((id) => rows[id]!.key) }), parse, 50, 'descending', 100);
    expect(deeper?.hits).not.toEqual(answer);

    const fetches = new SettledFetches();
    // Other queries settled deep; this one starts at the least fetch all the same, and answers as a fresh process. (As
    // most recent queries went past the least fetch, the next size is asked for beside it: the same two sizes.)
    fetches.record(800, 50, 'state 1\u0000other words');
    fetches.record(100, 50, 'state 1\u0000more words');
    expect(fetches.mostlyDeeper()).toBe(true);
    const warm = ways(rows, fetch);
    expect(await warm.query({ fetches, query: 'state 1\u0000q' })).toEqual(answer);
    expect(warm.calls.filter((call) => call !== 'take').sort()).toEqual(['rows 60', 'scores 150']);
    // Asked again at the same state it starts where it settled, with the same answer; at another state, from the start.
    warm.calls.length = 0;
    expect(await warm.query({ fetches, query: 'state 1\u0000q' })).toEqual(answer);
    expect(warm.calls[0]).toBe('scores 150');
    expect(fetches.settledAt(50, 'state 2\u0000q')).toBeUndefined();
  });
});

describe('SettledFetches', () => {
  it('keeps the size each query settled at, for its limit, forgets the oldest past its bound, and clears', () => {
    const fetches = new SettledFetches();
    expect(fetches.settledAt(50, 'coffee')).toBeUndefined();
    fetches.record(240, 50, 'coffee');
    expect(fetches.settledAt(50, 'coffee')).toBe(240);
    expect(fetches.settledAt(50, 'tea')).toBeUndefined();
    expect(fetches.settledAt(20, 'coffee')).toBeUndefined();
    fetches.record(60, 50, 'coffee');
    expect(fetches.settledAt(50, 'coffee')).toBe(60);
    for (let i = 0; i <= 1_000; i++) fetches.record(50 * TIE_MAX_GROWTH, 50, `q${i}`);
    expect(fetches.settledAt(50, 'q0')).toBeUndefined();
    expect(fetches.settledAt(50, 'q1000')).toBe(800);
    fetches.clear();
    expect(fetches.settledAt(50, 'q1000')).toBeUndefined();
    expect(fetches.mostlyDeeper()).toBe(false);
  });

  it('says whether most recent queries settled past the least fetch', () => {
    const fetches = new SettledFetches();
    expect(fetches.mostlyDeeper()).toBe(false);
    fetches.record(150, 50, 'a');
    expect(fetches.mostlyDeeper()).toBe(true);
    fetches.record(60, 50, 'b');
    expect(fetches.mostlyDeeper()).toBe(false);
    // The last twenty count.
    for (let i = 0; i < 20; i++) fetches.record(60, 50, `short ${i}`);
    for (let i = 0; i < 11; i++) fetches.record(375, 50, `long ${i}`);
    expect(fetches.mostlyDeeper()).toBe(true);
  });

  it('asks for the next size beside the least fetch only where recent queries went past it, and answers alike', async () => {
    const rows = table(400, 5);
    const fetch = lance(rows, 9);
    const expected = (await ways(rows, fetch).query(null));
    // A vault whose queries settle at the least fetch: one query, nothing ahead.
    const short = new SettledFetches();
    short.record(60, 50, 'x');
    const plain = ways(rows, fetch);
    expect(await plain.query({ fetches: short, query: 'q' })).toEqual(expected);
    expect(plain.calls[0]).toBe('rows 60');
    // Nor for a query asked before, which starts where it settled, even where most queries went past the least fetch.
    const distinct: Row[] = Array.from({ length: 300 }, (_, id) => ({ id, key: `k${id}`, raw: 1000 - id }));
    const mostly = new SettledFetches();
    mostly.record(150, 50, 'y');
    mostly.record(60, 50, 'q');
    mostly.record(375, 50, 'z');
    expect(mostly.mostlyDeeper()).toBe(true);
    const again = ways(distinct, lance(distinct, 3));
    expect((await again.query({ fetches: mostly, query: 'q' })).map((hit) => hit.key)).toEqual(distinct.slice(0, 50).map((r) => r.key));
    expect(again.calls).toEqual(['rows 60']);
    // An unused fetch ahead is harmless: its answer is the least fetch's, and a failure of it is no failure of the search.
    const varied: Row[] = Array.from({ length: 300 }, (_, id) => ({ id, key: `k${id}`, raw: 1000 - id }));
    const deep = new SettledFetches();
    deep.record(150, 50, 'y');
    const rowsOf = new Map(varied.map((row) => [row.id, row]));
    const got = await rankedEitherWay(
      async (size) => {
        const out = varied.slice(0, size);
        return { shown: out.map((r) => r.key), raw: out.map((r) => r.raw), ids: out.map((r) => r.id) };
      },
      () => Promise.reject(new Error('the fetch ahead failed')),
      async (ids) => ({ ids: [...ids], shown: ids.map((id) => rowsOf.get(id)!.key) }),
      parse,
      50,
      { fetches: deep, query: 'q' },
    );
    expect(got.map((hit) => hit.key)).toEqual(varied.slice(0, 50).map((r) => r.key));
  });
});
