/** Month sections of a long Notes (src/dream/sections.ts): grouped, stable, and hands off a person's writing. */
import { describe, expect, it } from 'vitest';
import { Page } from '../../src/dream/page.js';
import { MONTH_SECTIONS_FROM, sectionNotes, type Subjects } from '../../src/dream/sections.js';

/** No fact known: one subject, so notes group by month. */
const NONE: Subjects = { of: () => null, titles: new Set() };
const sectionNotesByMonth = (page: Page): void => sectionNotes(page, NONE);

const note = (date: string, n: number): string => `- Note ${n} [[${date}#^f-${String(n).padStart(10, '0')}]]`;
const pageWith = (notes: readonly string[], after: readonly string[] = ['', '## Related', '', '- [[Bob]]']): Page =>
  new Page('3_Personal/Alice.md', ['---', 'type: person', '---', '# Alice', '', '## Notes', '', ...notes, ...after], false, '');

const many = Array.from({ length: MONTH_SECTIONS_FROM }, (_, i) => note(i % 2 === 0 ? '2026-02-10' : '2026-01-05', i));

describe('sectionNotesByMonth', () => {
  it('groups notes under month headings, oldest month first, each in its order, and the rest of the page stays', () => {
    const page = pageWith(many);
    sectionNotesByMonth(page);
    const text = page.text();
    expect(text.match(/^### .+$/gm)).toEqual(['### January 2026', '### February 2026']);
    expect(text).toContain(`### January 2026\n\n${many.filter((_, i) => i % 2 === 1).join('\n')}\n\n### February 2026\n\n${many.filter((_, i) => i % 2 === 0).join('\n')}\n\n## Related\n\n- [[Bob]]\n`);
  });

  it('gives the same lines when run again, and puts a note of a new month under its own heading', () => {
    const page = pageWith(many);
    sectionNotesByMonth(page);
    const once = [...page.lines];
    sectionNotesByMonth(page);
    expect(page.lines).toEqual(once);
    page.append('Notes', note('2026-03-01', 99));
    sectionNotesByMonth(page);
    expect(page.text()).toMatch(/### March 2026\n\n- Note 99 .+\n\n## Related/);
  });

  it('keeps a short Notes flat, and one month alone has no heading', () => {
    const short = pageWith(many.slice(0, MONTH_SECTIONS_FROM - 1));
    sectionNotesByMonth(short);
    expect(short.text()).not.toContain('###');
    const oneMonth = pageWith(Array.from({ length: 20 }, (_, i) => note('2026-05-02', i)));
    sectionNotesByMonth(oneMonth);
    expect(oneMonth.text()).not.toContain('###');
  });

  it('leaves Notes holding a line a person wrote exactly as they are', () => {
    const page = pageWith([...many.slice(0, 6), 'A paragraph I wrote about Alice.', ...many.slice(6)]);
    const before = [...page.lines];
    sectionNotesByMonth(page);
    expect(page.lines).toEqual(before);
  });
});

describe('sectionNotes by subject', () => {
  // Twelve notes over two months: 5 about health, 4 about work, 3 lunches (a moment with no tag).
  const SUBJECT = ['Health', 'Health', 'Work', 'Moments', 'Health', 'Work', 'Health', 'Moments', 'Work', 'Health', 'Work', 'Moments'];
  const bySubject: Subjects = {
    of: (line) => SUBJECT[Number(/Note (\d+)/.exec(line)?.[1] ?? -1)] ?? null,
    titles: new Set(['Health', 'Work', 'Moments']),
  };

  it("groups an entity page's notes under subject headings, most notes first, each in its order; the same bytes again", () => {
    const page = pageWith(many);
    sectionNotes(page, bySubject);
    const text = page.text();
    expect(text.match(/^### .+$/gm)).toEqual(['### Health', '### Work', '### Moments']);
    // Oldest first within a subject (the notes alternate 2026-02-10 and 2026-01-05).
    const pick = (s: string): string => [...many.filter((_, i) => SUBJECT[i] === s && i % 2 === 1), ...many.filter((_, i) => SUBJECT[i] === s && i % 2 === 0)].join('\n');
    expect(text).toContain(`## Notes\n\n### Health\n\n${pick('Health')}\n\n### Work\n\n${pick('Work')}\n\n### Moments\n\n${pick('Moments')}\n\n## Related`);
    const once = [...page.lines];
    sectionNotes(page, bySubject);
    expect(page.lines).toEqual(once);
    // A month-grouped page from an earlier run is regrouped by subject when a rule touches it.
    const monthly = pageWith(many);
    sectionNotesByMonth(monthly);
    sectionNotes(monthly, bySubject);
    expect(monthly.lines).toEqual(once);
  });

  it('groups by month when one subject holds most notes, and on a topic page', () => {
    const mostlyHealth: Subjects = { of: (line) => (/Note (0|1)\b/.test(line) ? 'Work' : 'Health'), titles: new Set(['Health', 'Work']) };
    const person = pageWith(many);
    sectionNotes(person, mostlyHealth);
    expect(person.text().match(/^### .+$/gm)).toEqual(['### January 2026', '### February 2026']);
    const topic = new Page('2_Areas/Coffee.md', ['---', 'type: topic', '---', '# Coffee', '', '## Notes', '', ...many], false, '');
    sectionNotes(topic, bySubject);
    expect(topic.text().match(/^### .+$/gm)).toEqual(['### January 2026', '### February 2026']);
  });
});
