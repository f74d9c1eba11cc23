/** termCoverage: the share of a query's ranking words that a row's own text holds (search's coordination factor). */
import { describe, expect, it } from 'vitest';
import { parseQuery, termCoverage } from '../../src/indexer/query.js';

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
