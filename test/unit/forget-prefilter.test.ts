/**
 * The whole-page test forget runs before matching a page unit by unit (tombstones/match.ts `mayStateForgotten`):
 * it may say "maybe" for a page the scrub leaves as it is, never "no" for a page the scrub would change.
 */
import { describe, expect, it } from 'vitest';
import { scrubForgotten } from '../../src/dream/forget-match.js';
import { mayStateForgotten } from '../../src/tombstones/match.js';
import { hashedText, parseTombstones } from '../../src/tombstones/tombstones.js';

const FACT = 'Ana is allergic to peanuts and carries an epipen';
const stones = parseTombstones(`${JSON.stringify({ id: 'f-trstpnvt01', text: FACT, at: '2025-07-01T00:00:00Z' })}\n`);

/** Pages that state the fact in every way the matcher knows, in the body and the frontmatter. */
const STATING = [
  '# Ana\n\n- see [[2025-07-01#^f-trstpnvt01]]\n',
  '# Ana\n\n- Ana is allergic to peanuts and carries an epipen.\n',
  '# Ana\n\n- An epipen she carries, and to peanuts Ana is allergic.\n',
  '# Ana\n\n- Ana is allergic to\n  peanuts and carries an epipen\n',
  '# Ana\n\n- ANA IS ALLERGIC TO PEANUTS, AND CARRIES AN EPIPEN!\n',
  '# Ana\n\nAna, allergic to peanut, carries epipens.\n',
  '---\ntitle: Ana\naliases: ["Ana", "allergic to peanuts, carries an epipen"]\n---\n# Ana\n',
  '---\nsummary: Ana is allergic to peanuts and carries an epipen\n---\n# Ana\n',
  '---\naliases:\n  - Ana\n  - allergic to peanuts and carries an epipen\n---\n# Ana\n',
  '| who | note |\n| --- | --- |\n| Ana | allergic to peanuts, carries an epipen |\n',
];

const UNRELATED = ['# Ana\n\n- Ana walks the dog every morning\n- Ana plays chess on Thursdays\n', '# Kiln\n\n- Cone six glaze came out matte\n', ''];

describe('mayStateForgotten', () => {
  it('says maybe for every page the scrub changes', () => {
    for (const page of STATING) {
      expect(scrubForgotten(page, stones).removed.length, page).toBeGreaterThan(0);
      expect(mayStateForgotten(page, stones), page).toBe(true);
    }
  });

  it('says no for pages without the id or enough of the fact words, which the scrub leaves alone', () => {
    for (const page of UNRELATED) {
      expect(scrubForgotten(page, stones).removed).toEqual([]);
      expect(mayStateForgotten(page, stones), page).toBe(false);
    }
    expect(mayStateForgotten(UNRELATED[0]!, parseTombstones(''))).toBe(false);
  });

  it('leaves to the full match what it cannot tell from the words: escapes, a purged tombstone, a fact of stop words', () => {
    expect(mayStateForgotten('---\naliases: ["\\u0041na"]\n---\n', stones)).toBe(true);
    const purged = parseTombstones(`${JSON.stringify({ id: 'f-prgd000001', ...hashedText(FACT), at: '2025-07-01T00:00:00Z' })}\n`);
    expect(mayStateForgotten(UNRELATED[1]!, purged)).toBe(true);
    const stop = parseTombstones(`${JSON.stringify({ id: 'f-stop000001', text: 'it is what it is', at: '2025-07-01T00:00:00Z' })}\n`);
    expect(mayStateForgotten(UNRELATED[1]!, stop)).toBe(true);
  });

  it('agrees with the scrub on every page made of the fact with one word left out or swapped', () => {
    const words = FACT.split(' ');
    for (let drop = 0; drop < words.length; drop++) {
      for (const swap of ['', 'walnuts', 'inhaler']) {
        const line = words.map((w, i) => (i === drop ? swap : w)).filter((w) => w !== '').join(' ');
        const page = `# Notes\n\n- ${line}\n`;
        if (scrubForgotten(page, stones).removed.length > 0) expect(mayStateForgotten(page, stones), page).toBe(true);
      }
    }
  });

  it('counts the words unit by unit, as the scrub matches: a page spreading them over its units holds none', () => {
    const spread = '# Ana\n\n- Ana is allergic to cats\n- peanuts are in the pantry\n\n- she carries an epipen on hikes\n';
    expect(scrubForgotten(spread, stones).removed).toEqual([]);
    expect(mayStateForgotten(spread, stones)).toBe(false);
    // Frontmatter values and body lines apart, or a heading over a line: still apart.
    const apart = '---\nsummary: Ana is allergic\n---\n# peanuts and carries\nan epipen\n';
    expect(scrubForgotten(apart, stones).removed).toEqual([]);
    expect(mayStateForgotten(apart, stones)).toBe(false);
    // The same words in one unit (reflowed over lines, with other lines around it): maybe, and the scrub agrees.
    const reflowed = '# Ana\n\n- Ana walks the dog\n- Ana is allergic to\n  peanuts and carries an epipen\n\n- chess on Thursdays\n';
    expect(scrubForgotten(reflowed, stones).removed.length).toBeGreaterThan(0);
    expect(mayStateForgotten(reflowed, stones)).toBe(true);
  });

  it('reads a page that is not ASCII as normalizeText folds it (NFKC): no raw-text shortcut misses it', () => {
    // Full-width letters fold to two of the fact's words; as written the page holds too few of them for a match.
    const page = '# Notes\n\n- Ana is allergic to \uff50\uff45\uff41\uff4e\uff55\uff54\uff53 and carries an \uff45\uff50\uff49\uff50\uff45\uff4e\n';
    expect(page.toLowerCase().includes('peanut') || page.toLowerCase().includes('epipen')).toBe(false);
    expect(scrubForgotten(page, stones).removed.length).toBeGreaterThan(0);
    expect(mayStateForgotten(page, stones)).toBe(true);
    const cased = '# ANA\n\n- ANA IS ALLERGIC TO PEANUTS AND CARRIES AN EPIPEN\n';
    expect(mayStateForgotten(cased, stones)).toBe(true);
  });

  it('never says no where the scrub changes a page, on pages put together from pieces of the fact (seeded)', () => {
    const pieces = ['Ana is allergic', 'to peanuts', 'and carries an epipen', 'An epipen she carries', 'peanut', 'walks the dog', 'ANA', 'Epipens, peanuts!'];
    const starts = ['- ', '  ', '# ', '', '> ', '| ', '1. '];
    let seed = 7;
    const next = (n: number): number => (seed = (seed * 48271) % 2147483647) % n;
    let changed = 0;
    for (let page = 0; page < 600; page++) {
      const lines = next(4) === 0 ? ['---', `summary: ${pieces[next(pieces.length)]}`, `  ${pieces[next(pieces.length)]}`, '---'] : [];
      for (let n = 2 + next(6); n > 0; n--) lines.push(`${starts[next(starts.length)]}${pieces[next(pieces.length)]} ${next(2) === 0 ? pieces[next(pieces.length)] : ''}`);
      const text = `${lines.join('\n')}\n`;
      if (scrubForgotten(text, stones).removed.length === 0) continue;
      changed++;
      expect(mayStateForgotten(text, stones), text).toBe(true);
    }
    expect(changed).toBeGreaterThan(50);
  });
});
