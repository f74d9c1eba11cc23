/** The Arrow table the store hands LanceDB: every value reads back as given, ASCII or not, null or not. */
import { createRequire } from 'node:module';
import type * as Arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { arrowTable, columnsTable, encodeColumns, joinBatches } from '../../src/indexer/arrow-rows.js';
import type { ColumnKind } from '../../src/indexer/columns.js';

const arrow = createRequire(import.meta.url)('apache-arrow') as typeof Arrow;
const { Field, Utf8, Int32, Bool, List, Float32, FixedSizeList, Schema } = arrow;

const schema = new Schema([
  new Field('text', new Utf8(), false),
  new Field('date', new Utf8(), true),
  new Field('line', new Int32(), false),
  new Field('archived', new Bool(), false),
  new Field('tags', new List(new Field('item', new Utf8(), true)), false),
  new Field('vector', new FixedSizeList(2, new Field('item', new Float32(), true)), false),
]);

function readBack(table: Arrow.Table, name: string): unknown[] {
  const column = table.getChild(name)!;
  return Array.from({ length: table.numRows }, (_, i) => {
    const value: unknown = column.get(i);
    if (value === null || typeof value !== 'object') return value;
    return Array.from(value as Iterable<unknown>);
  });
}

function build(columns: Record<string, unknown[]>): Arrow.Table {
  const length = columns.text!.length;
  return columnsTable(arrow, schema, length, (name) => columns[name]!);
}

describe('columnsTable', () => {
  it('reads back ASCII strings, nulls, numbers, flags, lists and vectors as given', () => {
    const columns = {
      text: ['alpha', '', 'gamma delta', 'x'],
      date: ['2026-06-01', null, null, '2026-06-04'],
      line: [1, 20, 300, 4_000],
      archived: [false, true, false, true],
      tags: [['a', 'b'], [], ['coffee'], ['']],
      vector: [new Float32Array([0.5, -1]), new Float32Array([0, 0]), new Float32Array([1, 2]), new Float32Array([3, 4])],
    };
    const table = build(columns);
    expect(table.numRows).toBe(4);
    for (const name of ['text', 'date', 'line', 'archived', 'tags']) expect(readBack(table, name)).toEqual(columns[name as keyof typeof columns]);
    expect(readBack(table, 'vector')).toEqual(columns.vector.map((v) => Array.from(v)));
  });

  it('reads back strings of several UTF-8 widths, in a column where some are ASCII and some are not', () => {
    // One-, two-, three- and four-byte characters, at the start, the middle and the end of a column.
    const text = ['naïve café', 'plain', '東京 とうきょう', '', 'emoji 😀 and 🎉', 'Ωmega', 'ascii again', 'ü'];
    const table = build({
      text,
      date: text.map((value, i) => (i % 3 === 0 ? null : `${value}!`)),
      line: text.map((_, i) => i),
      archived: text.map(() => false),
      tags: text.map((value) => value.split(' ')),
      vector: text.map(() => [0, 1]),
    });
    expect(readBack(table, 'text')).toEqual(text);
    expect(readBack(table, 'date')).toEqual(text.map((value, i) => (i % 3 === 0 ? null : `${value}!`)));
    expect(readBack(table, 'tags')).toEqual(text.map((value) => value.split(' ')));
  });

  it('refuses a column whose length is not the row count', () => {
    expect(() =>
      build({ text: ['a', 'b'], date: [null], line: [1, 2], archived: [false, false], tags: [[], []], vector: [[0, 0], [0, 0]] }),
    ).toThrow(/column date holds 1 values for 2 rows/);
  });
});

describe('joinBatches', () => {
  const specs = schema.fields.map((field): { name: string; kind: ColumnKind } => {
    const kinds: Record<string, ColumnKind> = { text: 'utf8', date: 'utf8?', line: 'int32', archived: 'bool', tags: 'utf8-list', vector: 'vector' };
    return { name: field.name, kind: kinds[field.name]! };
  });
  // Batches of uneven sizes (bit-packed flags and nulls cross byte boundaries), some with nulls and some without, ASCII or not.
  const rows = Array.from({ length: 45 }, (_, i) => ({
    text: i % 7 === 0 ? `café ${i} 😀` : `row ${i}`,
    date: i % 5 === 0 || (i > 20 && i < 30) ? null : `2026-06-${String((i % 28) + 1).padStart(2, '0')}`,
    line: i * 3,
    archived: i % 3 === 0,
    tags: i % 4 === 0 ? [] : [`t${i}`, i % 6 === 0 ? 'ü' : 'x'],
    vector: new Float32Array([i, -i]),
  }));
  const encode = (part: typeof rows) =>
    encodeColumns(specs, part.length, (name) => part.map((row) => row[name as keyof (typeof rows)[number]] as never), 2);

  it('gives the batch that encoding all the rows at once gives', () => {
    const cuts = [0, 3, 11, 12, 21, 30, 45];
    const parts = cuts.slice(1).map((end, i) => encode(rows.slice(cuts[i], end)));
    expect(joinBatches(parts)).toEqual(encode(rows));
    const table = arrowTable(arrow, schema, [joinBatches(parts)]);
    expect(readBack(table, 'text')).toEqual(rows.map((row) => row.text));
    expect(readBack(table, 'date')).toEqual(rows.map((row) => row.date));
    expect(readBack(table, 'archived')).toEqual(rows.map((row) => row.archived));
    expect(readBack(table, 'tags')).toEqual(rows.map((row) => row.tags));
    expect(readBack(table, 'vector')).toEqual(rows.map((row) => Array.from(row.vector)));
  });

  it('keeps one batch as it is', () => {
    const one = encode(rows);
    expect(joinBatches([one])).toBe(one);
  });
});
