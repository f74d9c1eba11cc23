/** Text normalization (DESIGN §5): NFKC, lower case, punctuation to spaces, collapsed white space. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { containsWords, normalizeText, wordTest } from '../../src/text/normalize.js';

describe('normalizeText', () => {
  it.each([
    ['NFKC folds compatibility forms', 'ｆｕｌｌ\u3000ｗｉｄｔｈ ﬁne ①', 'full width fine 1'],
    ['NFKC composes accents', 'Cafe\u0301', 'café'],
    ['lower case', 'Prefers DARK Roast', 'prefers dark roast'],
    ['punctuation becomes spaces', 'dark-roast, (no) sugar!', 'dark roast no sugar'],
    ['symbols become spaces', 'a+b=c $5 #tag @name 🙂 x', 'a b c 5 tag name x'],
    ['keyed facts lose the ::', 'home city:: Lisbon', 'home city lisbon'],
    ['white space collapses and trims', '  a\t\tb\r\n\n c\u00a0d  ', 'a b c d'],
    ['only punctuation is empty', ' --- !!! ', ''],
    ['empty stays empty', '', ''],
  ])('%s', (_name, input, expected) => {
    expect(normalizeText(input)).toBe(expected);
  });

  it('is idempotent and leaves no punctuation, doubled or edge spaces', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 40 }), (a, b) => {
        for (const input of [a, b, `${a} ${b}`]) {
          const once = normalizeText(input);
          expect(normalizeText(once)).toBe(once);
          expect(once).toBe(once.trim());
          expect(once).not.toMatch(/\s\s|[\t\r\n]/u);
          expect(once).not.toMatch(/[\p{P}\p{S}]/u);
          expect(once).toBe(once.toLowerCase());
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('is the three steps of DESIGN §5 done one after the other (one pass over separators is only faster)', () => {
    const stepwise = (text: string): string => text.normalize('NFKC').toLowerCase().replace(/[\p{P}\p{S}]+/gu, ' ').replace(/\s+/gu, ' ').trim();
    const separators = fc.constantFrom(' ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\u2028', '-', ',', '!', '::', '#', '🙂', '$', '_', '—', '«', '»');
    const pieces = fc.array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 6 }), separators), { maxLength: 16 });
    fc.assert(
      fc.property(pieces, (parts) => {
        const input = parts.join('');
        expect(normalizeText(input)).toBe(stepwise(input));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('containsWords', () => {
  const repeats = (text: string, tombstone: string): boolean => containsWords(normalizeText(text), normalizeText(tombstone));

  it('matches a run of whole words, whatever the case and punctuation', () => {
    expect(repeats('Prefers DARK-roast coffee', 'dark roast')).toBe(true);
    expect(repeats('dark roast', 'Dark Roast')).toBe(true);
    expect(repeats('I like (dark) roast.', 'dark roast')).toBe(true);
    expect(repeats('the wifi password is hunter2', 'WiFi password')).toBe(true);
  });

  it('does not match inside words or across a gap', () => {
    expect(repeats('Prefers darkroast coffee', 'dark roast')).toBe(false);
    expect(repeats('Prefers dark roasted coffee', 'dark roast')).toBe(false);
    expect(repeats('Prefers extradark roast', 'dark roast')).toBe(false);
    expect(repeats('dark and roast', 'dark roast')).toBe(false);
  });

  it('finds a whole-word match after a partial one', () => {
    expect(containsWords('dark ark', 'ark')).toBe(true);
    expect(containsWords('darkark', 'ark')).toBe(false);
  });

  it('never matches an empty needle', () => {
    expect(containsWords('anything', '')).toBe(false);
    expect(containsWords('', '')).toBe(false);
  });

  it('a normalized text contains itself and each of its words', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 8 }), (words) => {
        const text = normalizeText(words.join(' '));
        fc.pre(text !== '');
        expect(containsWords(text, text)).toBe(true);
        for (const word of text.split(' ')) expect(containsWords(text, word)).toBe(true);
        // A needle that is not a substring can never match.
        expect(containsWords(text, `${text} zzzqqq`)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});

describe('wordTest', () => {
  const normalizedWords = (text: string): Set<string> => new Set(normalizeText(text).split(' ').filter((word) => word !== ''));

  it('finds a word of the normalized text in ASCII text without normalizing it, and in any other text by normalizing', () => {
    const holds = wordTest('Prefers DARK-roast coffee; (no) sugar!');
    expect(['prefers', 'dark', 'roast', 'coffee', 'no', 'sugar'].map(holds)).toEqual([true, true, true, true, true, true]);
    expect(['dar', 'roas', 'offee', 'sugars', ''].map(holds)).toEqual([false, false, false, false, false]);
    // Control characters are not separators: normalizing keeps them inside a word.
    expect(wordTest('a\u0001b c')('a')).toBe(false);
    expect(wordTest('Café au lait')('café')).toBe(true);
    expect(wordTest('ｆｕｌｌ width')('full')).toBe(true);
  });

  it("says of every word what the normalized text's set of words says, for ASCII and any text", () => {
    const ascii = fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((code) => String.fromCharCode(code)), maxLength: 40 });
    const pieces = fc.array(fc.oneof(ascii, fc.constantFrom('Dark', 'roast', 'a1', 'x_y', 'é', '🙂', ' ', '-', '\t', '::')), { maxLength: 10 });
    fc.assert(
      fc.property(fc.oneof(ascii, pieces.map((parts) => parts.join('')), fc.string({ unit: 'grapheme', maxLength: 30 })), fc.string({ maxLength: 6 }), (text, other) => {
        const words = normalizedWords(text);
        const holds = wordTest(text);
        for (const word of [...words, ...normalizedWords(other), normalizeText(other).replace(/ /g, ''), 'dark', 'a', '']) {
          if (word.includes(' ')) continue;
          expect(holds(word), JSON.stringify({ text, word })).toBe(words.has(word));
        }
      }),
      { numRuns: 3000 },
    );
  });
});
