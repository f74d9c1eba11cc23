/** The `shown` column holds SHOWN_FIELDS' values in their order, whatever their types. */
import { describe, expect, it } from 'vitest';
import { SHOWN_FIELDS, shownJson } from '../../src/indexer/columns.js';
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
