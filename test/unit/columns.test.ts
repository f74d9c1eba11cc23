/** The `shown` column holds SHOWN_FIELDS' values in their order, whatever their types; a row's hash covers every field. */
import { describe, expect, it } from 'vitest';
import { SHOWN_FIELDS, rowHash, shownJson } from '../../src/indexer/columns.js';
import type { IndexRow } from '../../src/indexer/rows.js';

describe('shownJson', () => {
  it('writes every field of SHOWN_FIELDS, in order, as JSON.stringify of the list would', () => {
    const rows: IndexRow[] = [
      {
        key: 'p:2_Areas/Café "x".md#12', kind: 'page', path: '2_Areas/Café "x".md', line: 12, line_end: 14, section_line: 10, section_end: 20, id: '',
        date: null, category: '', tags: ['a', 'ü'], title: 'Café', heading: 'Notes\\n', heading_path: 'Café > Notes', page_type: 'topic', status: '',
        archived: true, citations: ['f-aaaaaaaaa1'], text: 'line\twith 😀', content: 'c', context: 'x', subject: '',
      },
      {
        key: 'f:logs/2026-06-01.md#f-aaaaaaaaa1', kind: 'fact', path: 'logs/2026-06-01.md', line: 5, line_end: 5, section_line: 5, section_end: 5, id: 'f-aaaaaaaaa1',
        date: '2026-06-01', category: 'fact', tags: [], title: '', heading: '', heading_path: '', page_type: '', status: '', archived: false, citations: [],
        text: 'home city:: Lisbon', content: 'c', context: 'x', subject: 'home city',
      },
    ];
    for (const row of rows) {
      expect(shownJson(row)).toBe(JSON.stringify(SHOWN_FIELDS.map((field) => row[field])));
      expect((JSON.parse(shownJson(row)) as unknown[]).length).toBe(SHOWN_FIELDS.length);
    }
  });
});

describe('rowHash', () => {
  const base: IndexRow = {
    key: 'p:2_Areas/a.md#3', kind: 'page', path: '2_Areas/a.md', line: 3, line_end: 3, section_line: 2, section_end: 4, id: '', date: null, category: '',
    tags: ['a'], title: 'A', heading: 'H', heading_path: 'A > H', page_type: 'topic', status: 'active', archived: false, citations: [],
    text: 'some text', content: 'some text a', context: 'A H some text', subject: '',
  };
  const other: { [K in keyof IndexRow]: IndexRow[K] } = {
    key: 'p:2_Areas/a.md#4', kind: 'fact', path: '2_Areas/b.md', line: 4, line_end: 5, section_line: 1, section_end: 5, id: 'f-aaaaaaaaa1', date: '2026-06-01',
    category: 'fact', tags: ['a', 'b'], title: 'B', heading: 'G', heading_path: 'A > G', page_type: 'person', status: 'done', archived: true,
    citations: ['f-aaaaaaaaa1'], text: 'other text', content: 'other', context: 'other context', subject: 'x',
  };

  it('changes when any one field changes, and only then', () => {
    expect(rowHash({ ...base })).toBe(rowHash(base));
    expect(rowHash(base, shownJson(base))).toBe(rowHash(base));
    const seen = new Set([rowHash(base)]);
    for (const field of Object.keys(other) as Array<keyof IndexRow>) {
      const changed = rowHash({ ...base, [field]: other[field] });
      expect(seen.has(changed), field).toBe(false);
      seen.add(changed);
    }
    expect(seen.size).toBe(Object.keys(base).length + 1);
  });

  it('tells apart fields whose joined text is the same', () => {
    const a = rowHash({ ...base, page_type: 'topic', status: '' });
    const b = rowHash({ ...base, page_type: '', status: 'topic' });
    const c = rowHash({ ...base, content: 'x\n1:y', context: 'z' });
    const d = rowHash({ ...base, content: 'x', context: '1:y\nz' });
    expect(new Set([a, b, c, d]).size).toBe(4);
    expect(rowHash({ ...base, date: null })).not.toBe(rowHash({ ...base, date: 'null' as string }));
  });
});
