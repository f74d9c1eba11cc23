/**
 * termCoverage: the share of a query's ranking words that a row's own text holds (search's coordination factor);
 * titleCoverage: the share of a page title's words that the query names (search's title factor).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeText } from '../../src/text/normalize.js';
import { parseQuery, termCoverage, titleCoverage } from '../../src/indexer/query.js';

describe('termCoverage', () => {
  it('counts the ranking words a text holds as whole words, after normalizing, never stop words', () => {
    const query = parseQuery('What does Ana grow in the GARDEN?');
    expect(query.terms).toEqual(['ana', 'grow', 'garden']);
    expect(termCoverage('Ana: I grow chard in the garden!', query)).toBe(1);
    // No stemming: "grows" is not "grow"; "Anagram" is not "Ana".
    expect(termCoverage('Anagram grows tomatoes in the garden', query)).toBeCloseTo(1 / 3);
    expect(termCoverage('Bo: how is the community plot doing? [[2026-06-02#^f-ggggggggg0]]', query)).toBe(0);
  });

  it('is 0 for a query with only phrases (nothing ranks by words alone)', () => {
    expect(termCoverage('a red kettle', parseQuery('"red kettle"'))).toBe(0);
  });

  it("is the share of the query's terms among the text's normalized words, for any query and text", () => {
    const byWordSet = (text: string, terms: readonly string[]): number => {
      const words = new Set(normalizeText(text).split(' '));
      return terms.length === 0 ? 0 : terms.filter((term) => words.has(term)).length / terms.length;
    };
    const word = fc.constantFrom('garden', 'Garden', 'grow', 'grows', 'ana', 'Ana:', 'an', 'the', '-', '"', '[[x]]', 'café', 'cafe\u0301', '🙂');
    const text = fc.array(fc.oneof(word, fc.string({ unit: 'grapheme', maxLength: 5 })), { maxLength: 12 }).map((words) => words.join(' '));
    fc.assert(
      fc.property(text, text, (query, row) => {
        fc.pre(query.replace(/"/g, '').trim() !== '');
        let parsed;
        try {
          parsed = parseQuery(query);
        } catch {
          return; // a query of nothing to look for is refused before coverage matters
        }
        expect(termCoverage(row, parsed)).toBe(byWordSet(row, parsed.terms));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('titleCoverage', () => {
  it("counts the title's words the query names, never its numbers or stop words", () => {
    const query = parseQuery('where did Nate go in 2022?');
    expect(titleCoverage('Nate 2022-05', query)).toBe(1);
    expect(titleCoverage('Anytime Nate', query)).toBe(0.5);
    expect(titleCoverage('Joanna 2022-05', query)).toBe(0);
    expect(titleCoverage('The Garden', parseQuery('garden tools'))).toBe(1);
    // A title of nothing but numbers and stop words names nothing.
    expect(titleCoverage('2022-05', query)).toBe(0);
    expect(titleCoverage('', query)).toBe(0);
  });
});
