/** Fact ids (DESIGN §3): `f-` + 10 lowercase base32 characters of sha256(date, time, source, text, ordinal). */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FACT_ID_RE, factId } from '../../src/logs/ids.js';

/** An independent reading of the spec: the first 50 bits of the digest in Crockford's base32. */
function referenceId(date: string, time: string, source: string, text: string, ordinal: number): string {
  const digest = createHash('sha256').update([date, time, source, text, String(ordinal)].join('\u0000')).digest();
  const bits = BigInt(`0x${digest.subarray(0, 7).toString('hex')}`) >> 6n; // 56 bits → the top 50
  let out = '';
  for (let shift = 45n; shift >= 0n; shift -= 5n) out += '0123456789abcdefghjkmnpqrstvwxyz'[Number((bits >> shift) & 31n)];
  return `f-${out}`;
}

describe('factId', () => {
  it('follows the spec and is a valid Obsidian block id', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), fc.string({ unit: 'binary' }), fc.nat(1000), (date, time, source, text, ordinal) => {
        const id = factId(date, time, source, text, ordinal);
        expect(id).toMatch(FACT_ID_RE);
        expect(id).toMatch(/^[A-Za-z0-9-]+$/);
        expect(id).toBe(referenceId(date, time, source, text, ordinal));
        expect(factId(date, time, source, text, ordinal)).toBe(id);
      }),
      { numRuns: 1000 },
    );
  });

  it('changes with each of its inputs', () => {
    const base = factId('2026-06-09', '14:32', 'cli', 'Prefers dark roast coffee', 0);
    const variants = [
      factId('2026-06-10', '14:32', 'cli', 'Prefers dark roast coffee', 0),
      factId('2026-06-09', '14:33', 'cli', 'Prefers dark roast coffee', 0),
      factId('2026-06-09', '14:32', 'mcp', 'Prefers dark roast coffee', 0),
      factId('2026-06-09', '14:32', 'cli', 'Prefers dark roast coffee.', 0),
      factId('2026-06-09', '14:32', 'cli', 'Prefers dark roast coffee', 1),
    ];
    expect(new Set([base, ...variants]).size).toBe(6);
  });

  it('does not confuse where one field ends and the next begins', () => {
    expect(factId('2026-06-09', '14:32', 'a b', 'c', 0)).not.toBe(factId('2026-06-09', '14:32', 'a', 'b c', 0));
  });

  it('gives thousands of ordinals of one text distinct ids', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => factId('2026-06-09', '14:32', 'cli', 'same text', i));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('FACT_ID_RE refuses the letters Crockford base32 leaves out, upper case and wrong lengths', () => {
    for (const bad of ['f-0123456789a', 'f-012345678', 'f-0123456i89', 'f-0123456l89', 'f-0123456o89', 'f-0123456u89', 'f-0123456A89', 'x-0123456789']) {
      expect(bad).not.toMatch(FACT_ID_RE);
    }
    expect('f-7k2m9q0a1b').toMatch(FACT_ID_RE);
  });
});
