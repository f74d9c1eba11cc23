/** The Arrow table the store hands LanceDB: every value reads back as given, ASCII or not, null or not. */
import { createRequire } from 'node:module';
import type * as Arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { columnsTable } from '../../src/indexer/arrow-rows.js';

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
