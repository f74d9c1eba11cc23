import { createHash } from 'node:crypto';

/** Crockford's base32 (no i, l, o, u), lower case: ids read well and are valid Obsidian block ids. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export const FACT_ID_RE = /^f-[0-9a-hjkmnp-tv-z]{10}$/;

/**
 * A fact's id (DESIGN §3): `f-` + 10 base32 characters of sha256(date, time, source, text, ordinal).
 * The ordinal counts earlier facts of the same file with the same time, source and text, so ids stay
 * unique when the same text is appended twice in one minute.
 */
export function factId(date: string, time: string, source: string, text: string, ordinal: number): string {
  const digest = createHash('sha256').update([date, time, source, text, String(ordinal)].join('\u0000')).digest();
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 10) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length === 10) break;
  }
  return `f-${out}`;
}
