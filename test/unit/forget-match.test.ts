/** The forgotten-fact matcher (forget-match.ts): ids, text, word order, similarity, units across lines, frontmatter. */
import { describe, expect, it } from 'vitest';
import { forgetMatcher, nameStatesForgotten, scrubForgotten } from '../../src/dream/forget-match.js';
import { parseTombstones } from '../../src/tombstones/tombstones.js';

const stones = parseTombstones(`${JSON.stringify({ id: 'f-trstpnvt01', text: 'Ana is allergic to peanuts and carries an epipen', at: '2025-07-01T00:00:00Z' })}\n`);

describe('forgetMatcher', () => {
  it('matches the id, the text, a reordering and a near rewording; not a line about something else', () => {
    const m = forgetMatcher(stones);
    expect(m.rule('- see [[2025-07-01#^f-trstpnvt01]]')).toBe('id');
    expect(m.rule('- Ana is allergic to peanuts and carries an epipen.')).toBe('text');
    expect(m.rule('- An epipen she carries, and to peanuts Ana is allergic.')).toBe('order');
    expect(m.rule('- Ana walks the dog every morning [[2025-07-01#^f-trstdg0001]]')).toBeNull();
    expect(m.rule('- Ana plays chess on Thursdays [[2025-07-01#^f-trstchss01]]')).toBeNull();
    expect(m.rule('Ana is allergic to cats.')).toBeNull();
  });

  it('scrubs a reflowed item, frontmatter aliases and summary, and keeps the rest byte for byte', () => {
    const page =
      '---\ntitle: Ana\naliases: ["Ana", "allergic to peanuts, carries an epipen"]\nsummary: Ana, allergic to peanuts, carries an epipen.\n---\n# Ana\n\n' +
      '- Ana is allergic to\n  peanuts and carries an epipen [[2025-07-01#^f-trstdg0001]]\n- Ana walks the dog\r\n- Ana plays chess\n';
    const { content, numbers } = scrubForgotten(page, stones);
    expect(content).toBe('---\ntitle: Ana\naliases: ["Ana"]\n---\n# Ana\n\n- Ana walks the dog\r\n- Ana plays chess\n');
    expect([...numbers].sort((a, b) => a - b)).toEqual([3, 4, 8, 9]);
  });

  it('a page named after the fact, shortened', () => {
    expect(nameStatesForgotten('Allergic to peanuts', stones)).toBe(true);
    expect(nameStatesForgotten('Ana allergic to peanuts', stones)).toBe(true);
    expect(nameStatesForgotten('Ana', stones)).toBe(false);
    expect(nameStatesForgotten('Peanuts', stones)).toBe(false);
    // The page of a person a forgotten fact names stays.
    const sister = parseTombstones(`${JSON.stringify({ id: 'f-sstr000001', text: 'Maria Lopez is my sister', at: '2025-07-01T00:00:00Z' })}\n`);
    expect(nameStatesForgotten('Maria Lopez', sister)).toBe(false);
    // As forget stores it: normalized, lower case. A person's page, archived or made later, is not the fact.
    const stored = parseTombstones(`${JSON.stringify({ id: 'f-pollen0001', text: 'alice chen is allergic to pollen', at: '2025-07-01T00:00:00Z' })}\n`);
    expect(nameStatesForgotten('Alice Chen', stored)).toBe(false);
    expect(nameStatesForgotten('Allergic to pollen', stored)).toBe(true);
    expect(nameStatesForgotten('Alice Chen allergic to pollen', stored)).toBe(true);
  });
});
