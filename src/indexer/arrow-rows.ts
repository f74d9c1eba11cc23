/**
 * Index rows as Arrow data, built column by column for LanceDB's add. Handed row objects, LanceDB
 * infers a schema and transposes every row, and apache-arrow's builders encode string by string; a
 * profile of the 100k-fact rebuild spent most of its time there. Here each string column is encoded
 * into one buffer at once with its offsets.
 *
 * In two steps: `encodeColumns` makes plain typed arrays without Arrow, so a projection worker can encode
 * its rows and hand the buffers over without copying (project-worker.ts); `arrowTable` wraps encoded
 * batches as one Arrow table of the store's schema, in the Arrow instance LanceDB uses (store.ts).
 */
import type * as Arrow from 'apache-arrow';
import type { ColumnKind, ColumnSpec } from './columns.js';

type ArrowModule = typeof Arrow;
type Value = unknown;

interface EncodedUtf8 {
  kind: 'utf8';
  offsets: Int32Array;
  data: Uint8Array;
  /** Validity bits (1 = a value), only when some value is null. */
  nulls?: Uint8Array;
  nullCount: number;
}

export type EncodedColumn =
  | EncodedUtf8
  | { kind: 'int32'; data: Int32Array }
  | { kind: 'bool'; length: number; data: Uint8Array }
  | { kind: 'utf8-list'; offsets: Int32Array; child: EncodedUtf8 }
  | { kind: 'vector'; size: number; data: Float32Array };

/** Some rows' columns, in the order of the specs they were encoded with. */
export interface EncodedBatch {
  length: number;
  columns: EncodedColumn[];
}

/**
 * `column(name)` gives, for every spec, its `length` values of the spec's kind: string (or null where the
 * kind allows it), integer, boolean, list of strings, or a vector (Float32Array or numbers) of `dimensions`.
 */
export function encodeColumns(specs: readonly ColumnSpec[], length: number, column: (name: string) => readonly Value[], dimensions: number | null = null): EncodedBatch {
  const columns = specs.map((spec): EncodedColumn => {
    const values = column(spec.name);
    if (values.length !== length) throw new Error(`column ${spec.name} holds ${values.length} values for ${length} rows`);
    switch (spec.kind) {
      case 'utf8':
      case 'utf8?':
        return encodeUtf8(values as Array<string | null>);
      case 'int32':
        return { kind: 'int32', data: Int32Array.from(values as number[]) };
      case 'bool':
        return { kind: 'bool', length, data: encodeBool(values as boolean[]) };
      case 'utf8-list':
        return encodeList(values as string[][]);
      case 'vector':
        return encodeVectors(values as Array<ArrayLike<number>>, dimensions ?? 0);
    }
  });
  return { length, columns };
}

/** The buffers of a batch, to transfer to another thread (each owns its whole ArrayBuffer: see encodeUtf8). */
export function batchBuffers(batch: EncodedBatch): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  const add = (array: ArrayBufferView | undefined): void => {
    if (array !== undefined) out.push(array.buffer as ArrayBuffer);
  };
  for (const column of batch.columns) {
    if (column.kind === 'utf8') [column.offsets, column.data, column.nulls].forEach(add);
    else if (column.kind === 'utf8-list') [column.offsets, column.child.offsets, column.child.data, column.child.nulls].forEach(add);
    else add(column.data);
  }
  return out;
}

/**
 * Batches of the same specs as one batch, rows in order. LanceDB spreads an add of several record batches over
 * its writer threads, each writing a fragment, so the table's order followed their timing (the 100k vault's rows
 * came back in another order from one rebuild to the next); one batch is written as one fragment, in order.
 */
export function joinBatches(batches: readonly EncodedBatch[]): EncodedBatch {
  if (batches.length === 1) return batches[0]!;
  const length = batches.reduce((sum, batch) => sum + batch.length, 0);
  const columns = (batches[0]?.columns ?? []).map((_, i) => joinColumns(batches.map((batch) => batch.columns[i]!)));
  return { length, columns };
}

function joinColumns(parts: readonly EncodedColumn[]): EncodedColumn {
  const first = parts[0]!;
  switch (first.kind) {
    case 'utf8':
      return joinUtf8(parts as EncodedUtf8[]);
    case 'int32':
      return { kind: 'int32', data: concat(Int32Array, parts.map((part) => (part as typeof first).data)) };
    case 'bool': {
      const length = parts.reduce((sum, part) => sum + (part as typeof first).length, 0);
      const data = new Uint8Array((length + 7) >> 3);
      let at = 0;
      for (const part of parts as Array<typeof first>) {
        for (let i = 0; i < part.length; i++, at++) if ((part.data[i >> 3]! >> (i & 7)) & 1) data[at >> 3]! |= 1 << (at & 7);
      }
      return { kind: 'bool', length, data };
    }
    case 'utf8-list': {
      const lists = parts as Array<typeof first>;
      return { kind: 'utf8-list', offsets: joinOffsets(lists.map((part) => part.offsets)), child: joinUtf8(lists.map((part) => part.child)) };
    }
    case 'vector':
      return { kind: 'vector', size: first.size, data: concat(Float32Array, parts.map((part) => (part as typeof first).data)) };
  }
}

function joinUtf8(parts: readonly EncodedUtf8[]): EncodedUtf8 {
  const length = parts.reduce((sum, part) => sum + part.offsets.length - 1, 0);
  const nullCount = parts.reduce((sum, part) => sum + part.nullCount, 0);
  let nulls: Uint8Array | undefined;
  if (nullCount > 0) {
    nulls = new Uint8Array((length + 7) >> 3).fill(0xff);
    let at = 0;
    for (const part of parts) {
      const rows = part.offsets.length - 1;
      if (part.nulls !== undefined) for (let i = 0; i < rows; i++) if (!((part.nulls[i >> 3]! >> (i & 7)) & 1)) nulls[(at + i) >> 3]! &= ~(1 << ((at + i) & 7));
      at += rows;
    }
  }
  return { kind: 'utf8', offsets: joinOffsets(parts.map((part) => part.offsets)), data: concat(Uint8Array, parts.map((part) => part.data)), ...(nulls === undefined ? {} : { nulls }), nullCount };
}

/** Offsets of consecutive parts as one run: each part's shifted by where the one before ended. */
function joinOffsets(parts: readonly Int32Array[]): Int32Array {
  const out = new Int32Array(parts.reduce((sum, part) => sum + part.length - 1, 0) + 1);
  let row = 0;
  let base = 0;
  for (const part of parts) {
    for (let i = 1; i < part.length; i++) out[row + i] = base + part[i]!;
    row += part.length - 1;
    base += part[part.length - 1]!;
  }
  return out;
}

function concat<T extends Uint8Array | Int32Array | Float32Array>(type: { new (length: number): T }, parts: readonly T[]): T {
  const out = new type(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part as never, at);
    at += part.length;
  }
  return out;
}

/** Encoded batches as one Arrow table of `schema` (the specs' columns, in order), one record batch each, in order. */
export function arrowTable(arrow: ArrowModule, schema: Arrow.Schema, batches: readonly EncodedBatch[]): Arrow.Table {
  const records = batches.map((batch) => {
    const children = batch.columns.map((column, i) => arrowData(arrow, schema.fields[i]!.type as Arrow.DataType, column));
    const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length: batch.length, nullCount: 0, children });
    return new arrow.RecordBatch(schema, struct);
  });
  return new arrow.Table(schema, records);
}

/** One batch of `length` rows as an Arrow table of `schema`; `column(name)` as for encodeColumns. */
export function columnsTable(arrow: ArrowModule, schema: Arrow.Schema, length: number, column: (name: string) => readonly Value[]): Arrow.Table {
  const specs = schema.fields.map((field) => ({ name: field.name, kind: kindOf(arrow, field) }));
  const vector = schema.fields.find((field) => arrow.DataType.isFixedSizeList(field.type));
  const dimensions = vector === undefined ? null : (vector.type as Arrow.FixedSizeList).listSize;
  return arrowTable(arrow, schema, [encodeColumns(specs, length, column, dimensions)]);
}

function kindOf(arrow: ArrowModule, field: Arrow.Field): ColumnKind {
  const { DataType } = arrow;
  const type = field.type as Arrow.DataType;
  if (DataType.isUtf8(type)) return field.nullable ? 'utf8?' : 'utf8';
  if (DataType.isInt(type)) return 'int32';
  if (DataType.isBool(type)) return 'bool';
  if (DataType.isList(type)) return 'utf8-list';
  if (DataType.isFixedSizeList(type)) return 'vector';
  throw new Error(`no Arrow conversion for column ${field.name} of type ${String(type)}`);
}

function arrowData(arrow: ArrowModule, type: Arrow.DataType, column: EncodedColumn): Arrow.Data {
  switch (column.kind) {
    case 'utf8':
      return utf8Data(arrow, column);
    case 'int32':
      return arrow.makeData({ type: new arrow.Int32(), length: column.data.length, nullCount: 0, data: column.data });
    case 'bool':
      return arrow.makeData({ type: new arrow.Bool(), length: column.length, nullCount: 0, data: column.data });
    case 'utf8-list':
      return arrow.makeData({ type: type as Arrow.List<Arrow.Utf8>, length: column.offsets.length - 1, nullCount: 0, valueOffsets: column.offsets, child: utf8Data(arrow, column.child) });
    case 'vector': {
      const child = arrow.makeData({ type: new arrow.Float32(), length: column.data.length, nullCount: 0, data: column.data });
      return arrow.makeData({ type: type as Arrow.FixedSizeList<Arrow.Float32>, length: column.size === 0 ? 0 : column.data.length / column.size, nullCount: 0, child });
    }
  }
}

function utf8Data(arrow: ArrowModule, column: EncodedUtf8): Arrow.Data<Arrow.Utf8> {
  return arrow.makeData({
    type: new arrow.Utf8(),
    length: column.offsets.length - 1,
    nullCount: column.nullCount,
    ...(column.nulls === undefined ? {} : { nullBitmap: column.nulls }),
    valueOffsets: column.offsets,
    data: column.data,
  });
}

function encodeUtf8(values: ReadonlyArray<string | null>): EncodedUtf8 {
  const offsets = new Int32Array(values.length + 1);
  let nulls: Uint8Array | undefined;
  let nullCount = 0;
  const strings: string[] = [];
  values.forEach((value, i) => {
    if (value === null) {
      nulls ??= new Uint8Array((values.length + 7) >> 3).fill(0xff);
      nulls[i >> 3]! &= ~(1 << (i & 7));
      nullCount++;
    } else {
      strings.push(value);
    }
  });
  // One encode per column: a write per string was most of this function's time. When the bytes are as many
  // as the characters (all ASCII, the usual case) each string's offset follows from its length; else
  // from its UTF-8 byte length.
  const joined = strings.join('');
  const bytes = Buffer.from(joined, 'utf8');
  const ascii = bytes.length === joined.length;
  let at = 0;
  values.forEach((value, i) => {
    if (value !== null) at += ascii ? value.length : Buffer.byteLength(value, 'utf8');
    offsets[i + 1] = at;
  });
  // A short string's bytes are a slice of Node's shared pool: copied, so the buffer can be transferred alone.
  const whole = bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length;
  const data = whole ? new Uint8Array(bytes.buffer, 0, bytes.length) : new Uint8Array(bytes);
  return { kind: 'utf8', offsets, data, ...(nulls === undefined ? {} : { nulls }), nullCount };
}

function encodeList(lists: ReadonlyArray<readonly string[]>): EncodedColumn {
  const offsets = new Int32Array(lists.length + 1);
  const items: string[] = [];
  lists.forEach((list, i) => {
    for (const item of list) items.push(item);
    offsets[i + 1] = items.length;
  });
  return { kind: 'utf8-list', offsets, child: encodeUtf8(items) };
}

function encodeBool(values: readonly boolean[]): Uint8Array {
  const bits = new Uint8Array((values.length + 7) >> 3);
  values.forEach((value, i) => {
    if (value) bits[i >> 3]! |= 1 << (i & 7);
  });
  return bits;
}

function encodeVectors(vectors: ReadonlyArray<ArrayLike<number>>, size: number): EncodedColumn {
  const data = new Float32Array(vectors.length * size);
  vectors.forEach((vector, i) => data.set(vector, i * size));
  return { kind: 'vector', size, data };
}
