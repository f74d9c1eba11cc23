/**
 * A search query's rows as the store reads them: each row's `shown` JSON (not yet parsed) and its score. LanceDB's
 * native query hands its result over as Arrow IPC buffers, one per batch; its JavaScript wraps each in an Arrow table
 * (tableFromIPC), which costs a warm search more than reading the two columns it needs straight from the buffer
 * (docs/benchmarks.md). `readIpc` does that for the plain columns the store's queries return, and says when a buffer
 * is anything else, so the caller decodes it with Arrow (`readBatch`) and the rows come out the same either way.
 */
import type * as Arrow from 'apache-arrow';

type ArrowModule = typeof Arrow;

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
export function readIpc(arrow: ArrowModule, buffer: Uint8Array, rawColumn: string, out: ResultRows): boolean {
  // Rows go straight into `out`; a declined buffer takes back what it added. A buffer the reader cannot make sense
  // of is declined too: Arrow's decoding then says what is wrong with it, as it did before this reader.
  const before = out.raw.length;
  let read = false;
  try {
    read = readMessages(arrow, Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength), rawColumn, out);
  } catch {
    read = false;
  }
  if (!read) {
    out.shown.length = before;
    out.raw.length = before;
  }
  return read;
}

function readMessages(arrow: ArrowModule, bytes: Buffer, rawColumn: string, out: ResultRows): boolean {
  let start = 0;
  if (bytes.subarray(0, FILE_MAGIC.length).equals(FILE_MAGIC)) {
    start = 8;
    // The writer aligns the first message (to 64 bytes): zero words until its continuation marker.
    while (start + 4 <= bytes.length && bytes.readInt32LE(start) === 0) start += 4;
  }
  const reader = new arrow.MessageReader(bytes.subarray(start));
  const schema = reader.readMessage()?.header();
  if (!(schema instanceof arrow.Schema)) return false;
  const layout = columnLayout(arrow, schema, rawColumn);
  if (layout === null) return false;
  for (let message = reader.readMessage(); message !== null; message = reader.readMessage()) {
    if (message.headerType !== arrow.MessageHeader.RecordBatch) return false;
    // Arrow's record batch metadata, whose `length` and `buffers` (offset and length in the body) its one-file build
    // keeps under these names; should a build not, Arrow decodes instead.
    const batch = message.header() as unknown as { length?: unknown; buffers?: unknown };
    const body = reader.readMessageBody(message.bodyLength);
    if (typeof batch.length !== 'number' || !Array.isArray(batch.buffers)) return false;
    const regions = batch.buffers as Array<{ offset?: unknown; length?: unknown }>;
    if (regions.length !== layout.buffers || !regions.every((r) => typeof r.offset === 'number' && typeof r.length === 'number')) return false;
    const region = (i: number): { offset: number; length: number } => regions[i] as { offset: number; length: number };
    const rows = batch.length;
    const view = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    if (!allValid(view, region(layout.shownBuffer), rows) || !allValid(view, region(layout.rawBuffer), rows)) return false;
    // A Utf8 column's buffers: validity, offsets (int32), data; a Float32 column's: validity, values. Each must lie
    // in the body and the strings in their data: Buffer.toString would cut a string short rather than fail.
    const offsets = region(layout.shownBuffer + 1);
    const data = region(layout.shownBuffer + 2);
    const values = region(layout.rawBuffer + 1);
    const within = (r: { offset: number; length: number }, bytes: number): boolean => r.length >= bytes && r.offset >= 0 && r.offset + bytes <= view.length;
    if (!within(offsets, 4 * (rows + 1)) || !within(data, 0) || !within(values, 4 * rows)) return false;
    if (view.readInt32LE(offsets.offset) < 0 || view.readInt32LE(offsets.offset + 4 * rows) > Math.min(data.length, view.length - data.offset)) return false;
    for (let i = 0; i < rows; i++) {
      const from = view.readInt32LE(offsets.offset + 4 * i);
      const to = view.readInt32LE(offsets.offset + 4 * i + 4);
      if (to < from) return false;
      out.shown.push(view.toString('utf8', data.offset + from, data.offset + to));
      out.raw.push(view.readFloatLE(values.offset + 4 * i));
    }
  }
  return true;
}

/** Where the two columns' buffers stand among the batch's, and how many it has; null when a field is of a type read here without Arrow. */
function columnLayout(arrow: ArrowModule, schema: Arrow.Schema, rawColumn: string): { shownBuffer: number; rawBuffer: number; buffers: number } | null {
  let buffers = 0;
  let shownBuffer = -1;
  let rawBuffer = -1;
  for (const field of schema.fields) {
    const type = field.type as Arrow.DataType;
    if (type.typeId === arrow.Type.Utf8) {
      if (field.name === 'shown') shownBuffer = buffers;
      buffers += 3;
    } else if (type.typeId === arrow.Type.Float && (type as Arrow.Float).precision === arrow.Precision.SINGLE) {
      if (field.name === rawColumn) rawBuffer = buffers;
      buffers += 2;
    } else return null;
  }
  return shownBuffer < 0 || rawBuffer < 0 ? null : { shownBuffer, rawBuffer, buffers };
}

/** True when a validity bitmap (none: every value valid) marks each of the first `length` values valid. */
function allValid(view: Buffer, bitmap: { offset: number; length: number }, length: number): boolean {
  if (bitmap.length === 0) return true;
  for (let i = 0; i < length; i++) if (((view[bitmap.offset + (i >> 3)]! >> (i & 7)) & 1) === 0) return false;
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
