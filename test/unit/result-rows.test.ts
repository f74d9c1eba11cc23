/**
 * readIpc reads a query's `shown` strings and scores straight from Arrow IPC buffers, and gives the rows Arrow's
 * own decoding gives; anything else it declines (false, nothing added), so the store decodes it with Arrow.
 * Buffers are written by apache-arrow itself, with the one-file build the store uses and the package's usual build;
 * test/e2e/search-rows.test.ts reads LanceDB's own.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import * as ArrowEsm from 'apache-arrow';
import { readBatch, readIpc, readIpcColumns, type Cell, type ColumnType, type ResultRows } from '../../src/indexer/result-rows.js';

type ArrowModule = typeof ArrowEsm;
const builds: Array<[string, ArrowModule]> = [
  ['one-file build', createRequire(import.meta.url)('apache-arrow/Arrow.esnext.min') as ArrowModule],
  ['ES module build', ArrowEsm],
];

const SHOWN = ['["k1","page","a.md",1]', '["k2","fact","logs/2026-06-01.md",5,"Café 😀 naïve"]', '', '["k3"]'];
const SCORES = [3.25, 1.5, 0.1, 0];

function rowsOf(arrow: ArrowModule, buffer: Uint8Array, rawColumn = '_score'): ResultRows {
  const out: ResultRows = { shown: [], raw: [] };
  for (const batch of arrow.tableFromIPC(buffer).batches) readBatch(batch, rawColumn, out);
  return out;
}

describe.each(builds)('readIpc (%s)', (_name, arrow) => {
  const { Field, Float32, Float64, Int32, Int64, LargeUtf8, RecordBatch, Schema, Table, Utf8, makeData, makeVector, tableToIPC, vectorFromArray } = arrow;
  const shownData = (values: Array<string | null>): ArrowEsm.Data => vectorFromArray(values, new Utf8()).data[0]!;
  const batchOf = (schema: ArrowEsm.Schema, columns: ArrowEsm.Data[]): ArrowEsm.RecordBatch =>
    new RecordBatch(schema, makeData({ type: new arrow.Struct(schema.fields), length: columns[0]!.length, nullCount: 0, children: columns }));
  const plain = new Schema([new Field('shown', new Utf8(), false), new Field('_score', new Float32(), true)]);
  const scores = (values: number[]): ArrowEsm.Data => makeVector(Float32Array.from(values)).data[0]!;

  it('reads the rows Arrow reads, from the stream format and from a file that opens with it (as LanceDB writes)', () => {
    const stream = tableToIPC(new Table(plain, [batchOf(plain, [shownData(SHOWN), scores(SCORES)])]), 'stream');
    // LanceDB's writer (arrow-rs): ARROW1, zeros to a 64-byte boundary, the stream (schema first), then a footer.
    const file = Buffer.concat([Buffer.from('ARROW1'), Buffer.alloc(58), stream, Buffer.from('footer')]);
    for (const buffer of [stream, file]) {
      const out: ResultRows = { shown: [], raw: [] };
      expect(readIpc(buffer, '_score', out)).toBe(true);
      expect(out).toEqual(rowsOf(arrow, stream));
      expect(out.shown).toEqual(SHOWN);
      expect(out.raw).toEqual(SCORES.map((x) => Math.fround(x)));
    }
  });

  it("declines a file whose schema is only in its footer (apache-arrow's own file writer)", () => {
    const out: ResultRows = { shown: [], raw: [] };
    expect(readIpc(tableToIPC(new Table(plain, [batchOf(plain, [shownData(SHOWN), scores(SCORES)])]), 'file'), '_score', out)).toBe(false);
    expect(out).toEqual({ shown: [], raw: [] });
  });

  it('reads every batch, in order, after rows already read, with the columns in either order', () => {
    const swapped = new Schema([new Field('_distance', new Float32(), true), new Field('shown', new Utf8(), false)]);
    const table = new Table(swapped, [batchOf(swapped, [scores([0.5, 0.25]), shownData(['a', 'b'])]), batchOf(swapped, [scores([0.75]), shownData(['c'])])]);
    const out: ResultRows = { shown: ['earlier'], raw: [9] };
    expect(readIpc(tableToIPC(table, 'stream'), '_distance', out)).toBe(true);
    expect(out).toEqual({ shown: ['earlier', 'a', 'b', 'c'], raw: [9, 0.5, 0.25, 0.75] });
  });

  it('declines what it does not read, adding nothing: a null, another type, another column, a missing column', () => {
    const nullable = new Schema([new Field('shown', new Utf8(), true), new Field('_score', new Float32(), true)]);
    const cases: Array<[ArrowEsm.Schema, ArrowEsm.Data[]]> = [
      [nullable, [shownData(['a', null]), scores([1, 2])]],
      [new Schema([new Field('shown', new LargeUtf8(), false), new Field('_score', new Float32(), true)]), [vectorFromArray(['a'], new LargeUtf8()).data[0]!, scores([1])]],
      [new Schema([new Field('shown', new Utf8(), false), new Field('_score', new Float64(), true)]), [shownData(['a']), makeVector(Float64Array.from([1])).data[0]!]],
      [new Schema([new Field('shown', new Utf8(), false), new Field('_score', new Float32(), true), new Field('big', new Int64(), true)]), [shownData(['a']), scores([1]), makeVector(BigInt64Array.from([4n])).data[0]!]],
      [new Schema([new Field('shown', new Utf8(), false)]), [shownData(['a'])]],
    ];
    for (const [schema, columns] of cases) {
      const buffer = tableToIPC(new Table(schema, [batchOf(schema, columns)]), 'stream');
      const out: ResultRows = { shown: ['kept'], raw: [1] };
      expect(readIpc(buffer, '_score', out)).toBe(false);
      expect(out).toEqual({ shown: ['kept'], raw: [1] });
    }
  });

  it('declines a buffer it cannot make sense of (cut short, garbage, a string past its data) without throwing', () => {
    const stream = tableToIPC(new Table(plain, [batchOf(plain, [shownData(SHOWN), scores(SCORES)])]), 'stream');
    const bytes = Buffer.from(stream);
    // The last string's end offset, pointed past the data: the int32 just before the data equals its byte length.
    const total = Buffer.byteLength(SHOWN.join(''));
    const bad = Buffer.from(bytes);
    let patched = 0;
    for (let at = 0; at + 4 <= bad.length; at += 4) {
      if (bad.readInt32LE(at) === total && at >= 4 * SHOWN.length && bad.readInt32LE(at - 4 * SHOWN.length) === 0) {
        bad.writeInt32LE(total + 4096, at);
        patched++;
      }
    }
    expect(patched).toBe(1);
    for (const buffer of [bytes.subarray(0, bytes.length - 40), bytes.subarray(0, 100), Buffer.from('ARROW1\0\0garbage garbage garbage'), Buffer.alloc(16, 0xff), bad]) {
      const out: ResultRows = { shown: ['kept'], raw: [1] };
      expect(readIpc(buffer, '_score', out)).toBe(false);
      expect(out).toEqual({ shown: ['kept'], raw: [1] });
    }
  });

  it('reads the wanted columns of any Utf8, Float32 and Int32 ones, nulls as null, skipping the others', () => {
    const schema = new Schema([
      new Field('line', new Int32(), true),
      new Field('skipped', new Utf8(), true),
      new Field('date', new Utf8(), true),
      new Field('_score', new Float32(), true),
    ]);
    const columns = [makeVector(Int32Array.from([7, -2, 2_000_000])).data[0]!, shownData(['x', null, 'z']), shownData(['2026-06-01', null, 'Café 😀']), scores([1, 2, 3])];
    const buffer = tableToIPC(new Table(schema, [batchOf(schema, columns)]), 'stream');
    const out: Record<string, Cell[]> = { date: ['kept'], line: [0] };
    expect(readIpcColumns(buffer, { date: 'utf8', line: 'int32' }, out)).toBe(true);
    expect(out).toEqual({ date: ['kept', '2026-06-01', null, 'Café 😀'], line: [0, 7, -2, 2_000_000] });
    // A wanted column of another type, or one the schema lacks: declined, nothing added.
    const wants: Array<Record<string, ColumnType>> = [{ date: 'int32' }, { missing: 'utf8' }];
    for (const want of wants) {
      const none: Record<string, Cell[]> = { date: [], missing: [] };
      expect(readIpcColumns(buffer, want, none)).toBe(false);
      expect(none).toEqual({ date: [], missing: [] });
    }
    // readIpc reads shown and the score beside an Int32 column.
    const plainPlus = new Schema([...plain.fields, new Field('line', new Int32(), true)]);
    const rows: ResultRows = { shown: [], raw: [] };
    expect(readIpc(tableToIPC(new Table(plainPlus, [batchOf(plainPlus, [shownData(['a']), scores([1.5]), makeVector(Int32Array.from([4])).data[0]!])]), 'stream'), '_score', rows)).toBe(true);
    expect(rows).toEqual({ shown: ['a'], raw: [1.5] });
  });

  it('reads a UInt64 column (a row id) as numbers, and declines a signed Int64 asked for as one', () => {
    const { Uint64 } = arrow;
    const ids = [0n, 4_294_986_469n, 12_884_908_804n];
    const schema = new Schema([new Field('_score', new Float32(), true), new Field('_rowid', new Uint64(), true)]);
    const buffer = tableToIPC(new Table(schema, [batchOf(schema, [scores([3, 2, 1]), makeVector(BigUint64Array.from(ids)).data[0]!])]), 'stream');
    const out: Record<string, Cell[]> = { _score: [], _rowid: [] };
    expect(readIpcColumns(buffer, { _score: 'float32', _rowid: 'uint64' }, out)).toBe(true);
    expect(out).toEqual({ _score: [3, 2, 1], _rowid: ids.map(Number) });
    const signed = new Schema([new Field('_rowid', new Int64(), true)]);
    const none: Record<string, Cell[]> = { _rowid: [] };
    expect(readIpcColumns(tableToIPC(new Table(signed, [batchOf(signed, [makeVector(BigInt64Array.from(ids)).data[0]!])]), 'stream'), { _rowid: 'uint64' }, none)).toBe(false);
    expect(none).toEqual({ _rowid: [] });
  });

  it('reads or declines, promptly and without throwing, a buffer with any one word set to a huge number', () => {
    const stream = Buffer.from(tableToIPC(new Table(plain, [batchOf(plain, [shownData(SHOWN), scores(SCORES)])]), 'stream'));
    for (let at = 0; at + 4 <= stream.length; at += 4) {
      const damaged = Buffer.from(stream);
      damaged.writeUInt32LE(0xfffffff0, at);
      const out: ResultRows = { shown: ['kept'], raw: [1] };
      const read = readIpc(damaged, '_score', out);
      // What it reads it reads whole; what it declines leaves `out` as it was.
      expect(out.shown.length, `word at ${at}`).toBe(read ? 1 + SHOWN.length : 1);
      expect(out.raw.length, `word at ${at}`).toBe(out.shown.length);
    }
  });

  it('reads a result of no rows as none', () => {
    const out: ResultRows = { shown: [], raw: [] };
    expect(readIpc(tableToIPC(new Table(plain, [batchOf(plain, [shownData([]), scores([])])]), 'stream'), '_score', out)).toBe(true);
    expect(out).toEqual({ shown: [], raw: [] });
  });
});
