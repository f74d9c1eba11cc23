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

describe('parsePageMemo across versions', () => {
  const page = (note: string): string => `---\ntitle: "Ivan"\ntype: person\n---\n# Ivan\n\n## Notes\n\n- ${note} [[2024-01-02#^f-0000000001]]\n`;

  it("keeps a path's two newest versions (a run's scratch tree and the vault), and drops the third", () => {
    const rel = '3_Personal/Ivan-versions.md';
    const a = parsePageMemo(rel, page('Ivan likes tea'));
    const b = parsePageMemo(rel, page('Ivan likes coffee'));
    expect(parsePageMemo(rel, page('Ivan likes tea'))).toBe(a);
    expect(parsePageMemo(rel, page('Ivan likes coffee'))).toBe(b);
    parsePageMemo(rel, page('Ivan likes juice'));
    // tea was the older of the two kept when juice came: parsed again, equal but not the kept object.
    const again = parsePageMemo(rel, page('Ivan likes tea'));
    expect(again).not.toBe(a);
    expect(again).toEqual(a);
  });

  it('serves the same bytes object without hashing it, but never for another path', () => {
    const bytes = Buffer.from(page('Ivan likes tea'));
    const first = parsePageMemo('3_Personal/Ivan-bytes.md', bytes);
    expect(parsePageMemo('3_Personal/Ivan-bytes.md', bytes)).toBe(first);
    const other = parsePageMemo('9_Archive/Ivan-bytes.md', bytes);
    expect(other.path).toBe('9_Archive/Ivan-bytes.md');
    expect(parsePageMemo('3_Personal/Ivan-bytes.md', bytes).path).toBe('3_Personal/Ivan-bytes.md');
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
