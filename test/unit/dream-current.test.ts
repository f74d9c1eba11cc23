/** The newest value of each keyed subject (src/dream/current.ts): the rules the runner holds `## Current` to. */
import { describe, expect, it } from 'vitest';
import { isDisputed, newestValues } from '../../src/dream/current.js';
import type { Category, Fact } from '../../src/logs/factlog.js';

let counter = 0;
const fact = (date: string, line: number, text: string, category: Category = 'fact'): Fact => ({
  id: `f-${String(++counter).padStart(10, '0')}`,
  date,
  time: '09:00',
  batch: 3,
  source: 'cli',
  category,
  text,
  tags: [],
  line,
  explicitId: true,
});

describe('newestValues', () => {
  it('takes the latest date, then the later line, whatever order the facts come in; plain facts are not keyed', () => {
    const berlin = fact('2026-01-05', 4, 'home city:: Berlin');
    const lisbon = fact('2026-03-01', 4, 'Home City:: Lisbon');
    const porto = fact('2026-02-01', 9, '[home city:: Porto]');
    const newest = newestValues([lisbon, fact('2026-04-01', 4, 'Moved boxes to the attic'), berlin, porto]);
    expect([...newest.keys()]).toEqual(['home city']);
    expect(newest.get('home city')).toMatchObject({ subject: 'Home City', value: 'Lisbon', factId: lisbon.id, date: '2026-03-01', disputedBy: [] });
  });

  it('the same value again stays current and gathers its facts; a later value starts its own list', () => {
    const a = fact('2026-01-05', 4, 'employer:: Acme');
    const b = fact('2026-01-09', 4, 'employer:: acme');
    const c = fact('2026-02-01', 4, 'employer:: Globex');
    expect(newestValues([a, b]).get('employer')!.sameValue.map((f) => f.id)).toEqual([a.id, b.id]);
    expect(newestValues([a, b, c]).get('employer')!.sameValue.map((f) => f.id)).toEqual([c.id]);
  });

  it('two values on one day are disputed, unless the second is a correction; a statement after the dispute starts over', () => {
    const lisbon = fact('2026-06-04', 4, 'home city:: Lisbon');
    const porto = fact('2026-06-04', 5, 'home city:: Porto');
    const disputed = newestValues([porto, lisbon]).get('home city')!;
    expect(isDisputed(disputed)).toBe(true);
    expect(disputed.value).toBe('Lisbon');
    expect(disputed.disputedBy.map((f) => f.id)).toEqual([porto.id]);
    expect(isDisputed(newestValues([lisbon, fact('2026-06-04', 5, 'home city:: Porto', 'correction')]).get('home city')!)).toBe(false);
    // A new day settles it; so does the next statement the same day, as in the offline consolidator.
    expect(newestValues([lisbon, porto, fact('2026-06-05', 2, 'home city:: Madrid')]).get('home city')).toMatchObject({ value: 'Madrid', disputedBy: [] });
    expect(newestValues([lisbon, porto, fact('2026-06-04', 6, 'home city:: Lisbon')]).get('home city')).toMatchObject({ value: 'Lisbon', disputedBy: [] });
    // A value on a later day than an older dispute is not disputed.
    expect(isDisputed(newestValues([fact('2026-06-01', 4, 'home city:: Faro'), lisbon]).get('home city')!)).toBe(false);
  });
});
