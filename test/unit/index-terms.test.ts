/**
 * The index terms (terms.ts) of known words, and the hand-cut words against the Unicode classes. That the
 * terms are LanceDB's own is checked against LanceDB in test/e2e/index-terms.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexTerms, termOf } from '../../src/indexer/terms.js';

/** The terms by the Unicode classes alone, as the general path cuts any text. */
function byClasses(text: string): string {
  return [...text.matchAll(/[\p{Alphabetic}\p{N}]+/gu)].map((match) => termOf(match[0])).filter((term) => term !== '').join(' ');
}

describe('index terms', () => {
  it('stems, lower-cases and drops stop words checked on the stem', () => {
    expect(indexTerms('Running to the Lisbon markets, being early!')).toBe('run lisbon market earli');
    expect(indexTerms("Ana's cat: it's 3 years-old")).toBe('ana s cat s 3 year old');
    expect(termOf('being')).toBe(''); // "be" after stemming
    expect(termOf('Its')).toBe('');
    expect(indexTerms('the of and')).toBe('');
  });

  it('drops words of 40 UTF-8 bytes or more, counted before lower case', () => {
    expect(termOf('x'.repeat(39))).toBe('x'.repeat(39));
    expect(termOf('x'.repeat(40))).toBe('');
    expect(termOf('é'.repeat(19))).toBe('é'.repeat(19)); // 38 bytes
    expect(termOf('é'.repeat(20))).toBe(''); // 40 bytes
  });

  it('lower-cases a capital sigma as sigma everywhere, as tantivy does', () => {
    expect(termOf('ΟΔΟΣ')).toBe('οδοσ');
    expect('ΟΔΟΣ'.toLowerCase()).toBe('οδος'); // what JavaScript alone would give
  });

  it('cuts words at whatever is not a letter or a digit, in any script', () => {
    expect(indexTerms('café—naïve/東京 ٣ apples')).toBe('café naïv 東京 ٣ appl');
    expect(indexTerms('pour-over ratio 1:15')).toBe('pour over ratio 1 15');
  });

  it('cuts text by hand as the Unicode classes cut it, whatever the script, pairs of surrogates or lone ones', () => {
    const piece = fc.constantFrom(
      'Running', 'the', 'be', 'Lisbon', "'s", ' ', '\n', '-', '.', '#tag', '42', 'café', 'ΟΔΟΣ', '東京', '😀', 'x'.repeat(40), '_', '`', '—', '“',
      '𝐀𝐁ing', '𐐷', '\ud835', '\udc00', '٣', '\u00a0',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        expect(indexTerms(text)).toBe(byClasses(text));
      }),
      { numRuns: 2_000 },
    );
  });
});
