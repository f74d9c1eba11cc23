/**
 * termCoverage: the share of a query's ranking words that a row's own text holds (search's coordination factor);
 * titleCoverage: the share of a page title's words that the query names (search's title factor).
 */
import { describe, expect, it } from 'vitest';
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
