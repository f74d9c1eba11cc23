/**
 * The parser budget's shortcut for small pages (src/pages/budget.ts): a page small enough is within every limit
 * without its characters being read, so the shortcut must give what reading them gives, right up to its bound.
 */
import { describe, expect, test } from 'vitest';
import { exceedsParserBudget, scanParserBudget } from '../../src/pages/budget.js';
import { prng } from '../helpers/update-stream.js';

const SMALL_PAGE = Math.floor(Math.sqrt(50_000_000));

describe('the parser budget', () => {
  test('3,000 generated pages around the small-page bound, dense with marks and nesting: the same answer as reading every character', () => {
    const random = prng(20261124);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const answers = new Set<string>();
    let small = 0;
    for (let i = 0; i < 3000; i++) {
      // Pages of about the bound's size (half to twice it), of lines of costly marks, nesting prefixes and words.
      const target = Math.floor(SMALL_PAGE * (0.5 + random() * 1.5));
      // Each page its own mix: without blank lines its marks form one long run; with deep lines, deep nesting.
      const deep = pick([0, 0, 0.02]);
      const blank = pick([0, 0.01, 0.1]);
      const lines: string[] = [];
      let size = 0;
      while (size < target) {
        const kind = random();
        const length = Math.floor(random() * (kind < deep ? 1_200 : 120));
        const line =
          kind < deep ? ' '.repeat(length) + 'x' // a line nested past MAX_LINE_NESTING when long enough
          : kind < deep + blank ? ''
          : Array.from({ length }, () => pick(['[', ']', '*', '_', '>', ' ', 'a', 'b', '\t'])).join('');
        lines.push(line);
        size += line.length + 1;
      }
      const firstLine = 1 + Math.floor(random() * 3);
      const expected = scanParserBudget(lines, firstLine);
      expect(exceedsParserBudget(lines, firstLine), `page ${i}`).toBe(expected);
      answers.add(String(expected));
      if (size <= SMALL_PAGE) small++;
    }
    // Both sides of the bound were met, and pages within and over the limits.
    expect(small).toBeGreaterThan(300);
    expect(answers.size).toBeGreaterThanOrEqual(3);
  });

  test('the bound itself: a page of brackets one character under it passes; past it, one of the same kind is read and refused', () => {
    const under = ['['.repeat(SMALL_PAGE - 1)];
    expect(exceedsParserBudget(under)).toBeNull();
    expect(scanParserBudget(under)).toBeNull();
    const over = ['['.repeat(SMALL_PAGE + 200)];
    expect(exceedsParserBudget(over)).toMatch(/brackets/u);
  });

  test('a small page with a line nested past a thousand columns is still refused', () => {
    expect(exceedsParserBudget([`${' '.repeat(1_001)}- deep`])).toMatch(/nests/u);
  });
});
