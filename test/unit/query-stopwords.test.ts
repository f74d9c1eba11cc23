import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { onlyStopWords, onlyStopWordsNormalized } from '../../src/indexer/query.js';
import { normalizeText } from '../../src/text/normalize.js';

/** The definition: every word of the whole normalized text is a stop word. onlyStopWords normalizes piece by piece. */
function byWholeText(text: string): boolean {
  return normalizeText(text).split(' ').every((word) => word === '' || onlyStopWords(word));
}

describe('onlyStopWords', () => {
  test('says whether a statement has a word to rank by', () => {
    expect(onlyStopWords('of the')).toBe(true);
    expect(onlyStopWords('Part of')).toBe(false);
    expect(onlyStopWords('  - [[Ana 2026-05]]  ')).toBe(false);
    expect(onlyStopWords(' , ; ')).toBe(true);
    expect(onlyStopWords('what is the ﬁrst')).toBe(false);
    expect(onlyStopWords('ＩＴ ＩＳ')).toBe(true);
  });

  // Characters NFKC or lower-casing treats specially (ligatures, full width, no-break and wide spaces,
  // combining marks after a space, Greek final sigma, dotted I), so a split at spaces is put to the test.
  const pieces = [' ', '  ', '\u00a0', '\u2003', '\u0301', '\u00b4', 'ﬁ', 'Ａ', 'ＩＳ', 'Σ', 'ΟΔΟΣ', 'İ', 'ǅ', '①', '™', '.', ',', '-', "'", 'the', 'of', 'is', 'it', 'a', 'coffee', 'Lisbon', 'x'];
  test('gives what normalizing the whole text gives', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ unit: 'binary', maxLength: 3 })), { maxLength: 30 }), (parts) => {
        const text = parts.join('');
        expect(onlyStopWords(text)).toBe(byWholeText(text));
        expect(onlyStopWords(text)).toBe(onlyStopWordsNormalized(text));
      }),
      { numRuns: 5000 },
    );
  });

  // The ASCII path reads characters itself: every ASCII character, stop words in any case, and now and then a
  // character past ASCII (the text then goes to the normalizing path), against the normalizing reading.
  const ascii = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));
  const words = ['the', 'The', 'THE', 'of', 'Of', 'is', 'it', 'a', 'I', 'me', "user's", 'coffee', 'Lisbon', 'x', 'l', 're', 've', 'don', 't'];
  test('reads ASCII text as the normalizing reading does', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...ascii), fc.constantFrom(...words), fc.constantFrom('é', 'ﬁ', '\u00a0', '\u0301', 'İ')), { maxLength: 24 }), (parts) => {
        const text = parts.join('');
        expect(onlyStopWords(text)).toBe(onlyStopWordsNormalized(text));
        expect(onlyStopWords(text)).toBe(byWholeText(text));
      }),
      { numRuns: 20000 },
    );
    expect(onlyStopWords("- If it's..., it is!")).toBe(true);
    expect(onlyStopWords('- [[Ana]] of')).toBe(false);
  });
});
