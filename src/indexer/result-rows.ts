/**
 * A search query's rows as the store reads them: each row's `shown` JSON (not yet parsed) and its score. LanceDB's
 * native query hands its result over as Arrow IPC buffers, one per batch; its JavaScript wraps each in an Arrow table
 * (tableFromIPC), which costs a warm search more than reading the two columns it needs straight from the buffer
 * (docs/benchmarks.md). `readIpc` does that for the plain columns the store's queries return, without apache-arrow
 * (ipc-messages.ts reads the messages' headers), and says when a buffer is anything else, so the caller decodes it
 * with Arrow (`readBatch`) and the rows come out the same either way.
 */
import type * as Arrow from 'apache-arrow';
import { ARROW_TYPE, SINGLE_PRECISION, ipcMessages, type IpcField, type Region } from './ipc-messages.js';

/** One query's rows, in the order LanceDB returned them. */
export interface ResultRows {
  shown: string[];
  raw: number[];
}

/** "ARROW1": LanceDB writes each batch in the IPC file format, whose stream of messages follows this and padding. */
const FILE_MAGIC = Buffer.from('ARROW1');

/**
 * Appends the rows of one IPC buffer (file or stream format) to `out` and returns true; returns false, adding
 * nothing, when the buffer holds anything but a schema and record batches whose `shown` column is non-null Utf8 and
 * whose `rawColumn` is non-null Float32 (the columns as the table and LanceDB make them).
 */
export function readIpc(buffer: Uint8Array, rawColumn: string, out: ResultRows): boolean {
  const columns = { shown: [] as Cell[], [rawColumn]: [] as Cell[] };
  if (!readIpcColumns(buffer, { shown: 'utf8', [rawColumn]: 'float32' }, columns)) return false;
  const shown = columns.shown;
  const raw = columns[rawColumn]!;
  if (shown.includes(null) || raw.includes(null)) return false;
  for (let i = 0; i < shown.length; i++) {
    out.shown.push(shown[i] as string);
    out.raw.push(raw[i] as number);
  }
  return true;
}

/** The column types read without Arrow: Utf8, 32-bit float, 32-bit integer, 64-bit unsigned integer (a row id, read as a number). */
export type ColumnType = 'utf8' | 'float32' | 'int32' | 'uint64';
/** A column's buffers in a record batch: a Utf8 column's validity, offsets and data; a number column's validity and values. */
const BUFFERS: Readonly<Record<ColumnType, number>> = { utf8: 3, float32: 2, int32: 2, uint64: 2 };
/** A value read: null where the column holds a null. */
export type Cell = string | number | null;

/**
 * Appends the values of the `want`ed columns of one IPC buffer to `out` (a list a column, a value a row) and returns
 * true; returns false, adding nothing, when the buffer holds anything but a schema and record batches of Utf8, Float32,
 * Int32 and UInt64 columns among which each wanted one is, of its type. A buffer it cannot make sense of is declined
 * too: Arrow's decoding then says what is wrong with it, as it did before this reader.
 */
export function readIpcColumns(buffer: Uint8Array, want: Readonly<Record<string, ColumnType>>, out: Record<string, Cell[]>): boolean {
  const names = Object.keys(want);
  const before = names.map((name) => out[name]!.length);
  let read = false;
  try {
    read = readMessages(Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength), want, out);
  } catch {
    read = false;
  }
  if (!read) names.forEach((name, i) => (out[name]!.length = before[i]!));
  return read;
}

function readMessages(bytes: Buffer, want: Readonly<Record<string, ColumnType>>, out: Record<string, Cell[]>): boolean {
  let start = 0;
  if (bytes.subarray(0, FILE_MAGIC.length).equals(FILE_MAGIC)) {
    start = 8;
    // The writer aligns the first message (to 64 bytes): zero words until its continuation marker.
    while (start + 4 <= bytes.length && bytes.readInt32LE(start) === 0) start += 4;
  }
  let layout: Layout | null = null;
  for (const message of ipcMessages(bytes, start)) {
    if (layout === null) {
      // The schema comes first, and once.
      if (message.kind !== 'schema' || message.bigEndian) return false;
      layout = columnLayout(message.fields, want);
      if (layout === null) return false;
      continue;
    }
    if (message.kind !== 'batch' || message.compressed) return false;
    const { length: rows, buffers: regions, body } = message;
    if (regions.length !== layout.buffers || rows < 0) return false;
    for (const column of layout.columns) {
      if (!readColumn(body, column.type, regions.slice(column.buffer, column.buffer + BUFFERS[column.type]), rows, out[column.name]!)) return false;
    }
  }
  return layout !== null;
}

/** Where each wanted column's buffers start among a batch's, and how many buffers a batch has. */
interface Layout {
  columns: Array<{ name: string; type: ColumnType; buffer: number }>;
  buffers: number;
}

/** The layout of a schema of Utf8, Float32, Int32 and UInt64 fields only (null for any other, or without a wanted column). */
function columnLayout(fields: readonly IpcField[], want: Readonly<Record<string, ColumnType>>): Layout | null {
  const columns: Layout['columns'] = [];
  let buffers = 0;
  for (const field of fields) {
    if (field.children > 0 || field.dictionary) return null;
    const type = columnType(field);
    if (type === null) return null;
    if (want[field.name] !== undefined) {
      if (want[field.name] !== type) return null;
      columns.push({ name: field.name, type, buffer: buffers });
    }
    buffers += BUFFERS[type];
  }
  return columns.length === Object.keys(want).length ? { columns, buffers } : null;
}

function columnType(field: IpcField): ColumnType | null {
  if (field.typeId === ARROW_TYPE.Utf8) return 'utf8';
  if (field.typeId === ARROW_TYPE.FloatingPoint && field.precision === SINGLE_PRECISION) return 'float32';
  if (field.typeId === ARROW_TYPE.Int && field.bitWidth === 32 && field.signed) return 'int32';
  if (field.typeId === ARROW_TYPE.Int && field.bitWidth === 64 && !field.signed) return 'uint64';
  return null;
}

/**
 * Appends a column's `rows` values from its buffers in the batch's body: a Utf8 column's are validity, offsets
 * (int32) and data; a Float32 or Int32 column's validity and values. Each must lie in the body and the strings in
 * their data (Buffer.toString would cut a string short rather than fail); false when they do not.
 */
function readColumn(body: Buffer, type: ColumnType, regions: readonly Region[], rows: number, out: Cell[]): boolean {
  const within = (r: Region, bytes: number): boolean => r.length >= bytes && r.offset >= 0 && r.offset + bytes <= body.length;
  const [validity, values, data] = regions as [Region, Region, Region | undefined];
  if (validity.length > 0 && !within(validity, Math.ceil(rows / 8))) return false;
  const valid = (i: number): boolean => validity.length === 0 || ((body[validity.offset + (i >> 3)]! >> (i & 7)) & 1) === 1;
  if (type === 'uint64') {
    // A row id is a fragment's number shifted 32 bits left plus an offset: far below 2^53 for any table, so exact as a number.
    if (!within(values, 8 * rows)) return false;
    for (let i = 0; i < rows; i++) out.push(valid(i) ? Number(body.readBigUInt64LE(values.offset + 8 * i)) : null);
    return true;
  }
  if (type !== 'utf8') {
    if (!within(values, 4 * rows)) return false;
    for (let i = 0; i < rows; i++) out.push(!valid(i) ? null : type === 'float32' ? body.readFloatLE(values.offset + 4 * i) : body.readInt32LE(values.offset + 4 * i));
    return true;
  }
  if (data === undefined || !within(values, 4 * (rows + 1)) || !within(data, 0)) return false;
  if (body.readInt32LE(values.offset) < 0 || body.readInt32LE(values.offset + 4 * rows) > Math.min(data.length, body.length - data.offset)) return false;
  for (let i = 0; i < rows; i++) {
    const from = body.readInt32LE(values.offset + 4 * i);
    const to = body.readInt32LE(values.offset + 4 * i + 4);
    if (to < from) return false;
    out.push(valid(i) ? body.toString('utf8', data.offset + from, data.offset + to) : null);
  }
  return true;
}

/** Appends an Arrow batch's rows to `out` (Arrow's decoding: the way for any buffer `readIpc` declines). */
export function readBatch(batch: Arrow.RecordBatch, rawColumn: string, out: ResultRows): void {
  // No rows: LanceDB may return a batch without the selected columns.
  if (batch.numRows === 0) return;
  const scores = batch.getChild(rawColumn)!;
  for (let i = 0; i < batch.numRows; i++) out.raw.push(Number(scores.get(i)));
  utf8Values(batch.getChild('shown')!, out.shown);
}

/**
 * The strings of a Utf8 column, appended to `out`. They are decoded from the column's buffers with Node's Buffer,
 * which is about twice as fast as Arrow's per-value decoding (docs/benchmarks.md).
 */
function utf8Values(column: Arrow.Vector, out: string[]): void {
  let at = 0;
  for (const data of column.data) {
    const offsets = data.valueOffsets as Int32Array | BigInt64Array | undefined;
    if (data.nullCount > 0 || !(offsets instanceof Int32Array) || data.values === undefined) {
      // Not the plain Utf8 column the table is made with: Arrow's own decoding.
      for (let i = 0; i < data.length; i++) out.push(String(column.get(at + i)));
      at += data.length;
      continue;
    }
    at += data.length;
    const bytes = Buffer.from(data.values.buffer, data.values.byteOffset, data.values.byteLength);
    for (let i = data.offset; i < data.offset + data.length; i++) out.push(bytes.toString('utf8', offsets[i], offsets[i + 1]));
  }
}
