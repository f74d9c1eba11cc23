/**
 * Index rows as an Arrow table, built column by column for LanceDB's add. Handed row objects, LanceDB
 * infers a schema and transposes every row, and apache-arrow's builders encode string by string; a
 * profile of the 100k-fact rebuild spent most of its time there. Here each string column is encoded
 * into one buffer at once with its offsets. The table has exactly the schema the store creates (store.ts).
 */
import type * as Arrow from 'apache-arrow';

type ArrowModule = typeof Arrow;
type Value = unknown;

/**
 * `column(name)` gives, for every field of `schema` (the store's), its `length` values of the field's type:
 * string (or null where the field allows it), integer, boolean, list of strings, or a vector (Float32Array
 * or numbers).
 */
export function columnsTable(arrow: ArrowModule, schema: Arrow.Schema, length: number, column: (name: string) => readonly Value[]): Arrow.Table {
  const { DataType } = arrow;
  const columns: Arrow.Data[] = schema.fields.map((field) => {
    const values = column(field.name);
    if (values.length !== length) throw new Error(`column ${field.name} holds ${values.length} values for ${length} rows`);
    const type = field.type as Arrow.DataType;
    if (DataType.isUtf8(type)) return utf8Data(arrow, values as Array<string | null>);
    if (DataType.isInt(type)) return arrow.makeData({ type: new arrow.Int32(), length: values.length, nullCount: 0, data: Int32Array.from(values as number[]) });
    if (DataType.isBool(type)) return boolData(arrow, values as boolean[]);
    if (DataType.isList(type)) return listData(arrow, type as Arrow.List<Arrow.Utf8>, values as string[][]);
    if (DataType.isFixedSizeList(type)) return vectorData(arrow, type as Arrow.FixedSizeList<Arrow.Float32>, values as Array<ArrayLike<number>>);
    throw new Error(`no Arrow conversion for column ${field.name} of type ${String(type)}`);
  });
  const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length, nullCount: 0, children: columns });
  return new arrow.Table(new arrow.RecordBatch(schema, struct));
}

function utf8Data(arrow: ArrowModule, values: ReadonlyArray<string | null>): Arrow.Data<Arrow.Utf8> {
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
  return arrow.makeData({
    type: new arrow.Utf8(),
    length: values.length,
    nullCount,
    ...(nulls === undefined ? {} : { nullBitmap: nulls }),
    valueOffsets: offsets,
    data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length),
  });
}

function listData(arrow: ArrowModule, type: Arrow.List<Arrow.Utf8>, lists: ReadonlyArray<readonly string[]>): Arrow.Data<Arrow.List<Arrow.Utf8>> {
  const offsets = new Int32Array(lists.length + 1);
  const items: string[] = [];
  lists.forEach((list, i) => {
    for (const item of list) items.push(item);
    offsets[i + 1] = items.length;
  });
  return arrow.makeData({ type, length: lists.length, nullCount: 0, valueOffsets: offsets, child: utf8Data(arrow, items) });
}

function boolData(arrow: ArrowModule, values: readonly boolean[]): Arrow.Data<Arrow.Bool> {
  const bits = new Uint8Array((values.length + 7) >> 3);
  values.forEach((value, i) => {
    if (value) bits[i >> 3]! |= 1 << (i & 7);
  });
  return arrow.makeData({ type: new arrow.Bool(), length: values.length, nullCount: 0, data: bits });
}

function vectorData(arrow: ArrowModule, type: Arrow.FixedSizeList<Arrow.Float32>, vectors: ReadonlyArray<ArrayLike<number>>): Arrow.Data<Arrow.FixedSizeList<Arrow.Float32>> {
  const size = type.listSize;
  const values = new Float32Array(vectors.length * size);
  vectors.forEach((vector, i) => values.set(vector, i * size));
  const child = arrow.makeData({ type: new arrow.Float32(), length: values.length, nullCount: 0, data: values });
  return arrow.makeData({ type, length: vectors.length, nullCount: 0, child });
}
