/**
 * The key check on what a model writes (issue 30): the run's API key (and a base URL's password) never lands in
 * the vault — not in a page's text, path or frontmatter, a conflict note, a summary, a run log or a commit
 * message — plainly or in the common encodings: reversed, base64 (also URL-safe), spaced or broken up by
 * punctuation, or split across two writes of one run (any piece of at least 40% of the key is refused, so of
 * two pieces one always is). Letters are compared without case once separators are dropped.
 */

/** A secret shorter than this is not looked for by pieces (a short piece would match ordinary text). */
const MIN_SECRET_CHARS = 8;
/**
 * The shortest piece of a key that counts as the key: 40% of it once separators are dropped (a half of the key as
 * written loses its dashes), never fewer characters than this.
 */
const MIN_PIECE_CHARS = 8;
const PIECE_SHARE = 0.4;

/** Separators a model may put between a key's characters ("s k - a b c", "s.k.a.b.c", zero-width spaces). */
const SEPARATORS = /[\s\u200b-\u200f\u2060\ufeff_\-.,:;·•*`'"|/\\+=()[\]{}<>~^]+/gu;

const squash = (text: string): string => text.normalize('NFKC').replace(SEPARATORS, '').toLowerCase();
const reverse = (text: string): string => [...text].reverse().join('');

export interface KeyCheck {
  /** True when `text` holds one of the secrets, in any of the encodings. */
  holds(text: string): boolean;
}

/** A check for `secrets` (the run's key, a URL's password); empty or short values are ignored. */
export function keyCheck(secrets: readonly (string | undefined)[]): KeyCheck {
  const keys = [...new Set(secrets.filter((s): s is string => s !== undefined && s.length >= MIN_SECRET_CHARS))];
  if (keys.length === 0) return { holds: () => false };
  // Encodings compared as written (base64 is case-sensitive), white space dropped; hex without case.
  const exact: string[] = [];
  const hex: string[] = [];
  // Pieces compared squashed: the key and its reverse, any run of at least half of it.
  const pieces = new Set<string>();
  for (const key of keys) {
    const bytes = Buffer.from(key, 'utf8');
    const reversed = Buffer.from(reverse(key), 'utf8');
    for (const b of [bytes, reversed]) {
      exact.push(b.toString('base64').replace(/=+$/, ''), b.toString('base64url'));
      hex.push(b.toString('hex'));
    }
    for (const form of [squash(key), squash(reverse(key))]) {
      const size = Math.max(MIN_PIECE_CHARS, Math.floor(form.length * PIECE_SHARE));
      if (form.length < size) {
        pieces.add(form);
        continue;
      }
      for (let at = 0; at + size <= form.length; at++) pieces.add(form.slice(at, at + size));
    }
  }
  return {
    holds(text) {
      if (text === '') return false;
      const compact = text.replace(/\s+/g, '');
      if (exact.some((e) => compact.includes(e))) return true;
      const lower = compact.toLowerCase();
      if (hex.some((h) => lower.includes(h))) return true;
      const squashed = squash(text);
      for (const piece of pieces) if (squashed.includes(piece)) return true;
      return false;
    },
  };
}

/**
 * The key check over all a run wrote: each text alone, then all of them joined in order (a key split across two
 * writes, each piece too short alone). Returns the index of the first text that holds it, -1 for the joined texts
 * only, or null when none does.
 */
export function keyIn(check: KeyCheck, texts: readonly string[]): number | null {
  for (let i = 0; i < texts.length; i++) if (check.holds(texts[i]!)) return i;
  return check.holds(texts.join('')) ? -1 : null;
}
