import { describe, expect, it } from 'vitest';
import { linkTarget } from '../../src/dream/memory.js';
import { parsePage } from '../../src/pages/parse.js';
import { parsePageMemo } from '../../src/pages/parse-memo.js';

describe('parsePageMemo', () => {
  const page = (note: string): string => `---\ntitle: "Ivan"\ntype: person\naliases: ["Vanya"]\n---\n# Ivan\n\n## Notes\n\n- ${note} [[2024-01-02#^f-0000000001]]\n`;

  it('gives what parsePage gives, once per path and bytes', () => {
    const text = page('Ivan likes tea');
    const first = parsePageMemo('3_Personal/Ivan.md', text);
    expect(first).toEqual(parsePage('3_Personal/Ivan.md', text));
    expect(parsePageMemo('3_Personal/Ivan.md', text)).toBe(first);
    const bytes = parsePageMemo('3_Personal/Ivan.md', Buffer.from(text));
    expect(bytes).toEqual(first);
    expect(parsePageMemo('3_Personal/Ivan.md', Buffer.from(text))).toBe(bytes);
  });

  it('parses again when the bytes or the path change', () => {
    const before = parsePageMemo('3_Personal/Ivan.md', page('Ivan likes tea'));
    const edited = parsePageMemo('3_Personal/Ivan.md', page('Ivan likes coffee'));
    expect(edited).not.toBe(before);
    expect(edited.chunks.map((c) => c.text).join('\n')).toContain('coffee');
    const moved = parsePageMemo('9_Archive/Ivan.md', page('Ivan likes tea'));
    expect(moved).not.toBe(before);
    expect(moved.path).toBe('9_Archive/Ivan.md');
  });
});

describe('linkTarget', () => {
  it('names a page by its file name, by its path only when another page shares the name', () => {
    const all = [{ rel: '3_Personal/Ivan.md', title: 'Ivan' }, { rel: '2_Areas/Tea.md', title: 'Tea' }, { rel: '9_Archive/tea.md', title: 'tea' }];
    expect(linkTarget('3_Personal/Ivan.md', all)).toBe('Ivan');
    expect(linkTarget('2_Areas/Tea.md', all)).toBe('2_Areas/Tea');
    expect(linkTarget('9_Archive/tea.md', all)).toBe('9_Archive/tea');
    // A list that grew since its names were counted is counted again.
    all.push({ rel: '1_Projects/Ivan.md', title: 'Ivan' });
    expect(linkTarget('3_Personal/Ivan.md', all)).toBe('3_Personal/Ivan');
  });
});
