/**
 * fuse: full-text and vector scores become one 0–1 score. The vector list counts at DEFAULT_VECTOR_WEIGHT (0.25,
 * measured with use-lite on LoCoMo, docs/benchmarks.md), so a vector neighbour that shares no word with the query,
 * however close, stays below a plain full-text match, while the vector still orders full-text matches among themselves.
 */
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/indexer/query.js';
import { DEFAULT_VECTOR_WEIGHT, fuse } from '../../src/indexer/search.js';
import type { Hit } from '../../src/indexer/store.js';

const NOW = new Date('2026-06-10T12:00:00Z');

function hit(key: string, text: string, raw: number): Hit {
  return {
    key, kind: 'fact', path: 'logs/2026-06-10.md', line: 5, line_end: 5, section_line: 5, section_end: 5, id: key, date: '2026-06-10',
    category: 'fact', tags: [], title: '', heading: '', heading_path: '', citations: [], text, subject: '', raw,
  };
}

describe('fuse', () => {
  const query = parseQuery('espresso machine');
  const options = { vectorWeight: DEFAULT_VECTOR_WEIGHT, similarityFloor: 0.3, now: NOW, query };

  it('keeps a vector-only neighbour below a plain full-text match, at the default weight', () => {
    expect(DEFAULT_VECTOR_WEIGHT).toBe(0.25);
    // BM25 4 is a middling match (0.5 before fusion); cosine distance 0 is the closest a neighbour can be.
    const scored = fuse([hit('text', 'Bought an espresso machine', 4)], [hit('vector', 'Got a new coffee maker', 0)], options);
    const score = new Map(scored.map((s) => [s.hit.key, s.score]));
    // At most 0.25 / 1.25 = 0.2 (less again for lacking the query's words); the match scores 0.5 × its coverage.
    expect(score.get('vector')!).toBeLessThanOrEqual(0.2);
    expect(score.get('text')!).toBeGreaterThan(score.get('vector')!);
  });

  it('lets the vector order two equal full-text matches, and stays within 0–1', () => {
    const text = [hit('near', 'espresso machine, descaled', 4), hit('far', 'espresso machine, for sale', 4)];
    const vector = [hit('near', 'espresso machine, descaled', 0.1), hit('far', 'espresso machine, for sale', 0.6)];
    const scored = fuse(text, vector, options).sort((a, b) => b.score - a.score);
    expect(scored.map((s) => s.hit.key)).toEqual(['near', 'far']);
    for (const s of scored) {
      expect(s.score).toBeGreaterThan(0);
      expect(s.score).toBeLessThanOrEqual(1);
    }
  });

  it("ranks a small-talk record's line at half the score of a page statement matching as well", () => {
    const page = (key: string, rel: string): Hit => ({ ...hit(key, 'We talked about the espresso machine', 4), kind: 'page', path: rel, id: '', title: rel });
    const scored = fuse([page('content', '3_Personal/Caroline.md'), page('record', '4_Resources/Small talk/Small talk 2026-06.md')], [], options);
    const score = new Map(scored.map((s) => [s.hit.key, s.score]));
    expect(score.get('record')!).toBeCloseTo(score.get('content')! / 2, 6);
  });
});
