/** Month sections of a long Notes (src/dream/sections.ts): grouped, stable, and hands off a person's writing. */
import { describe, expect, it } from 'vitest';
import { Page } from '../../src/dream/page.js';
import { MONTH_SECTIONS_FROM, sectionNotesByMonth } from '../../src/dream/sections.js';

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
