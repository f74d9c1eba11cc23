import { describe, expect, test } from 'vitest';
import { buildBm25, tokenize } from '../../bench/bm25.js';
import { score as scoreLoop } from '../../bench/loop.js';
import { aggregate, aggregateByCategory, scoreRanking } from '../../bench/metrics.js';
import { replaceSection } from '../../bench/report.js';
import { markdownTable, parseTimeVerbose, percentile, summarize } from '../../bench/stats.js';

describe('scoreRanking', () => {
  test('recall counts the share of gold items found, MRR the first hit', () => {
    const ranked = ['a', 'x', 'b', null, 'y', 'z', 'c', 'q', 'r', 's', 'd'];
    expect(scoreRanking(ranked, ['b', 'c', 'd'])).toEqual({ recall5: 1 / 3, recall10: 2 / 3, rr: 1 / 3 });
    expect(scoreRanking(ranked, ['a'])).toEqual({ recall5: 1, recall10: 1, rr: 1 });
  });
  test('nothing found scores zero, also beyond rank 10', () => {
    expect(scoreRanking(['x', 'y'], ['a'])).toEqual({ recall5: 0, recall10: 0, rr: 0 });
    expect(scoreRanking([...'abcdefghij'.split(''), 'k'], ['k']).rr).toBe(0);
  });
  test('duplicate gold or ranked ids count once', () => {
    expect(scoreRanking(['a', 'a'], ['a', 'a', 'b']).recall5).toBe(0.5);
  });
  test('a question without evidence is an error', () => {
    expect(() => scoreRanking(['a'], [])).toThrow(RangeError);
  });
});

describe('the loop score', () => {
  test('a budget takes whole results in order while they fit; via --max-chars counts what the bounded search returned', () => {
    const ranked = {
      items: [new Set(['x']), new Set(['a', 'y']), new Set(['b'])],
      chars: [600, 900, 100],
      // Per budget (700, 1,400, 3,000): the dialog ids of the answer to the search bounded by that many characters.
      viaMaxChars: [new Set(['x', 'a']), new Set(['x', 'a', 'b']), new Set(['x', 'a', 'y', 'b'])],
    };
    const s = scoreLoop(ranked, ['a', 'b']);
    // 700 and 1,400 hold only the first result (600 + 900 > 1,400); 3,000 holds all three.
    expect(s.budgets).toEqual([0, 0, 1]);
    expect(s.viaMaxChars).toEqual([0.5, 1, 1]);
    expect(s.chars10).toBe(1600);
    expect(s.rr).toBe(0.5);
  });
});

describe('aggregate', () => {
  test('means per category and overall', () => {
    const s = (r: number) => ({ recall5: r, recall10: r, rr: r });
    const by = aggregateByCategory([
      { category: 2, score: s(1) },
      { category: 1, score: s(0) },
      { category: 1, score: s(0.5) },
    ]);
    expect(Object.keys(by)).toEqual(['1', '2', 'all']);
    expect(by['1']).toEqual({ n: 2, recall5: 0.25, recall10: 0.25, mrr: 0.25 });
    expect(by.all!.mrr).toBeCloseTo(0.5);
    expect(aggregate([]).n).toBe(0);
    expect(aggregate([]).mrr).toBeNaN();
  });
});

describe('bm25', () => {
  test('ranks by term rarity and frequency', () => {
    const index = buildBm25([
      { id: 'd1', text: 'Caroline: I went to a support group yesterday' },
      { id: 'd2', text: 'Melanie: I painted a sunrise by the lake' },
      { id: 'd3', text: 'Caroline: the support group was so inspiring, the group helped' },
    ]);
    expect(index.search('support group', 10)).toEqual(['d3', 'd1']);
    expect(index.search('sunrise painting', 10)).toEqual(['d2']);
    expect(index.search('nothing matches', 10)).toEqual([]);
    expect(tokenize("Mel's café, 2023!")).toEqual(['mel', 's', 'café', '2023']);
    expect(tokenize('When did the group meet?')).toEqual(['group', 'meet']);
  });
});

describe('stats', () => {
  test('percentiles interpolate between ranks', () => {
    expect(percentile([3, 1, 2], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([10], 95)).toBe(10);
    expect(percentile(Array.from({ length: 101 }, (_, i) => i), 95)).toBe(95);
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(summarize([1, 2, 3])).toEqual({ n: 3, p50: 2, p95: 2.9, max: 3, mean: 2 });
  });

  test('reads GNU time -v', () => {
    const report = [
      '\tCommand being timed: "node x.js"',
      '\tUser time (seconds): 1.25',
      '\tSystem time (seconds): 0.50',
      '\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:02.50',
      '\tMaximum resident set size (kbytes): 204800',
    ].join('\n');
    expect(parseTimeVerbose(report)).toEqual({ maxRssBytes: 204800 * 1024, wallSeconds: 62.5, cpuSeconds: 1.75 });
    expect(parseTimeVerbose('nothing')).toEqual({ maxRssBytes: null, wallSeconds: null, cpuSeconds: null });
  });

  test('markdown tables', () => {
    expect(markdownTable([['a', 'b'], ['1', '2']])).toBe('| a | b |\n| --- | --- |\n| 1 | 2 |');
  });
});

describe('replaceSection', () => {
  test('replaces only between its markers', () => {
    const doc = '# Benchmarks\n\nintro\n\n<!-- bench:start -->\nold\n<!-- bench:end -->\n\nafter\n';
    expect(replaceSection(doc, 'bench', 'new')).toBe('# Benchmarks\n\nintro\n\n<!-- bench:start -->\nnew\n<!-- bench:end -->\n\nafter\n');
  });
  test('appends a missing section, and starts a new document', () => {
    expect(replaceSection('# B\n', 'eval', 'x')).toBe('# B\n\n<!-- eval:start -->\nx\n<!-- eval:end -->\n');
    expect(replaceSection('', 'eval', 'x')).toMatch(/^# Benchmarks\n[\s\S]*<!-- eval:start -->\nx\n<!-- eval:end -->\n$/);
  });
});
