/** The key check on what a model writes (key-check.ts): plain, reversed, base64, hex, spaced, in pieces; not ordinary text. */
import { describe, expect, it } from 'vitest';
import { keyCheck, keyIn } from '../../src/dream/key-check.js';

const KEY = 'sk-unit-A8f3Lq7Zr2Wx5Nc9Vb4T';
const check = keyCheck([KEY, undefined, '']);

describe('keyCheck', () => {
  it('finds the key plainly and in the common encodings', () => {
    expect(check.holds(`a page with ${KEY} in it`)).toBe(true);
    expect(check.holds([...KEY].reverse().join(''))).toBe(true);
    expect(check.holds(Buffer.from(KEY).toString('base64'))).toBe(true);
    expect(check.holds(Buffer.from(KEY).toString('base64url'))).toBe(true);
    expect(check.holds(Buffer.from(KEY).toString('hex').toUpperCase())).toBe(true);
    expect(check.holds([...KEY].join(' '))).toBe(true);
    expect(check.holds([...KEY].join('.'))).toBe(true);
    expect(check.holds(`2_Areas/${KEY}.md`)).toBe(true);
  });

  it('finds either half of a key split in two, and the two halves of a split taken together', () => {
    const at = Math.floor(KEY.length / 2);
    expect(check.holds(KEY.slice(0, at))).toBe(true);
    expect(check.holds(KEY.slice(at))).toBe(true);
    expect(keyIn(check, ['nothing here', `tail ${KEY.slice(at)}`])).toBe(1);
  });

  it('leaves ordinary text, a short piece and other keys alone', () => {
    expect(check.holds('Ana walks the dog every morning; sk-unit is a prefix')).toBe(false);
    expect(check.holds(KEY.slice(0, 6))).toBe(false);
    expect(check.holds('sk-other-Q1w2e3r4t5y6u7i8o9p0')).toBe(false);
    expect(keyCheck(['short']).holds('short')).toBe(false);
  });
});
