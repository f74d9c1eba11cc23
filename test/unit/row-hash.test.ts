/** A row's hash covers every field, unambiguously, and is the same from the row's strings and from its encoded bytes. */
import { describe, expect, it } from 'vitest';
import { encodeColumns } from '../../src/indexer/arrow-rows.js';
import { columnsOf, shownJson, tableColumns } from '../../src/indexer/columns.js';
import { batchHashes, rowHash, rowHashing } from '../../src/indexer/row-hash.js';
import type { IndexRow } from '../../src/indexer/rows.js';

await rowHashing;

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

  it('is the same from the row and from its encoded columns, ASCII or not', () => {
    const rows: IndexRow[] = [base, { ...base, ...other }, { ...base, text: 'café 東京 😀', content: 'naïve ü', context: 'Ωmega 🎉', page_type: 'ü', status: '' }, { ...other, content: '', context: '' }];
    const batch = encodeColumns(tableColumns(null), rows.length, columnsOf(rows, null));
    expect(batchHashes(batch, 0, rows.length)).toEqual(rows.map((row) => rowHash(row)));
    expect(batchHashes(batch, 1, 2)).toEqual(rows.slice(1, 3).map((row) => rowHash(row)));
    // A row longer than the scratch buffer.
    const long = { ...base, context: 'word '.repeat(30_000) + 'ü' };
    expect(batchHashes(encodeColumns(tableColumns(null), 1, columnsOf([long], null)), 0, 1)).toEqual([rowHash(long)]);
  });
});
