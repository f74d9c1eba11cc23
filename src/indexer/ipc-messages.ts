/**
 * The messages of an Arrow IPC stream, read without apache-arrow: a search reads LanceDB's results from here, and
 * a CLI search that never loads Arrow starts ~10 ms sooner (docs/benchmarks.md). Only what result-rows.ts needs of
 * the format (format/Message.fbs and Schema.fbs of the Arrow specification): a schema's fields (name, nullability,
 * type, and a floating-point type's precision) and a record batch's length, buffers and body. Each message is
 * framed as the stream format has it: an optional 0xFFFFFFFF continuation marker, the flatbuffer's length (int32),
 * the flatbuffer, then the body; a length of 0 ends the stream. Anything malformed throws.
 */

/** Arrow's `Type` union ids for the types read here (Schema.fbs). */
export const ARROW_TYPE = { Int: 2, FloatingPoint: 3, Utf8: 5 } as const;
/** FloatingPoint's `precision` (Schema.fbs): SINGLE is a 32-bit float. */
export const SINGLE_PRECISION = 1;

export interface IpcField {
  name: string;
  nullable: boolean;
  /** The `Type` union's id (ARROW_TYPE), 0 when none. */
  typeId: number;
  /** A FloatingPoint's precision, else null. */
  precision: number | null;
  /** An Int's width in bits and signedness, else 0 and false. */
  bitWidth: number;
  signed: boolean;
  /** Child fields (a nested type): none for the columns read here. */
  children: number;
  /** Dictionary-encoded: not read here. */
  dictionary: boolean;
}

/** Where one of a record batch's buffers lies in its body, in bytes. */
export interface Region {
  offset: number;
  length: number;
}

export type IpcMessage =
  | { kind: 'schema'; fields: IpcField[]; bigEndian: boolean }
  | { kind: 'batch'; length: number; buffers: Region[]; compressed: boolean; body: Buffer }
  | { kind: 'other' };

/** MessageHeader union ids (Message.fbs). */
const HEADER_SCHEMA = 1;
const HEADER_RECORD_BATCH = 3;
const CONTINUATION = -1;

/** Every message of `bytes` from `start`, in order, until the end-of-stream marker or the end of the bytes. */
export function* ipcMessages(bytes: Buffer, start = 0): Generator<IpcMessage> {
  let at = start;
  while (at + 4 <= bytes.length) {
    let size = bytes.readInt32LE(at);
    at += 4;
    if (size === CONTINUATION) {
      size = bytes.readInt32LE(at);
      at += 4;
    }
    if (size === 0) return;
    if (size < 0 || at + size > bytes.length) throw new Error('an IPC message runs past the buffer');
    const flat = bytes.subarray(at, at + size);
    const meta = new Table(flat, flat.readUInt32LE(0));
    at += size;
    const bodyLength = meta.long(3);
    if (bodyLength < 0 || at + bodyLength > bytes.length) throw new Error("an IPC message's body runs past the buffer");
    const body = bytes.subarray(at, at + bodyLength);
    at += bodyLength;
    const type = meta.uint8(1);
    const header = meta.table(2);
    if (type === HEADER_SCHEMA && header !== null) yield schemaOf(header);
    else if (type === HEADER_RECORD_BATCH && header !== null) yield batchOf(header, body);
    else yield { kind: 'other' };
  }
}

function schemaOf(schema: Table): IpcMessage {
  const fields = schema.tables(1).map((field): IpcField => {
    const typeId = field.uint8(2);
    const type = field.table(3);
    return {
      name: field.string(0) ?? '',
      nullable: field.uint8(1) !== 0,
      typeId,
      precision: typeId === ARROW_TYPE.FloatingPoint ? (type?.int16(0) ?? 0) : null,
      // Int { bitWidth: int; is_signed: bool } (Schema.fbs).
      bitWidth: typeId === ARROW_TYPE.Int ? (type?.int32(0) ?? 0) : 0,
      signed: typeId === ARROW_TYPE.Int && (type?.uint8(1) ?? 0) !== 0,
      children: field.vectorLength(5),
      dictionary: field.table(4) !== null,
    };
  });
  return { kind: 'schema', fields, bigEndian: schema.int16(0) === 1 };
}

function batchOf(batch: Table, body: Buffer): IpcMessage {
  const buffers: Region[] = [];
  const vector = batch.vector(2, 16); // struct Buffer { offset: long; length: long }
  if (vector !== null) {
    for (let i = 0; i < vector.length; i++) buffers.push({ offset: batch.longAt(vector.start + 16 * i), length: batch.longAt(vector.start + 16 * i + 8) });
  }
  return { kind: 'batch', length: batch.long(0), buffers, compressed: batch.table(3) !== null, body };
}

/** A flatbuffers table: `at` is its position in `bytes`; fields are read through its vtable (absent ones as their default, 0). */
class Table {
  private readonly vtable: number;
  private readonly vtableSize: number;

  constructor(
    private readonly bytes: Buffer,
    private readonly at: number,
  ) {
    this.vtable = at - bytes.readInt32LE(at);
    this.vtableSize = bytes.readUInt16LE(this.vtable);
  }

  /** Where field `id` is, or 0 when absent. */
  private field(id: number): number {
    const slot = 4 + 2 * id;
    if (slot + 2 > this.vtableSize) return 0;
    const offset = this.bytes.readUInt16LE(this.vtable + slot);
    return offset === 0 ? 0 : this.at + offset;
  }

  /** The position an offset field points to, or 0 when absent. */
  private target(id: number): number {
    const at = this.field(id);
    return at === 0 ? 0 : at + this.bytes.readUInt32LE(at);
  }

  uint8(id: number): number {
    const at = this.field(id);
    return at === 0 ? 0 : this.bytes.readUInt8(at);
  }

  int32(id: number): number {
    const at = this.field(id);
    return at === 0 ? 0 : this.bytes.readInt32LE(at);
  }

  int16(id: number): number {
    const at = this.field(id);
    return at === 0 ? 0 : this.bytes.readInt16LE(at);
  }

  long(id: number): number {
    const at = this.field(id);
    return at === 0 ? 0 : this.longAt(at);
  }

  /** An int64 at a position, as a number (exact for the sizes of a query's result). */
  longAt(at: number): number {
    return Number(this.bytes.readBigInt64LE(at));
  }

  table(id: number): Table | null {
    const at = this.target(id);
    return at === 0 ? null : new Table(this.bytes, at);
  }

  string(id: number): string | null {
    const at = this.target(id);
    if (at === 0) return null;
    const length = this.bytes.readUInt32LE(at);
    if (at + 4 + length > this.bytes.length) throw new Error('a string runs past its message');
    return this.bytes.toString('utf8', at + 4, at + 4 + length);
  }

  /** A vector field of elements of `size` bytes: where they start and how many there are; null when absent. */
  vector(id: number, size: number): { start: number; length: number } | null {
    const at = this.target(id);
    if (at === 0) return null;
    const length = this.bytes.readUInt32LE(at);
    // A length read from a damaged message could be billions: its elements must fit in the message.
    if (at + 4 + size * length > this.bytes.length) throw new Error('a vector runs past its message');
    return { start: at + 4, length };
  }

  vectorLength(id: number): number {
    return this.vector(id, 4)?.length ?? 0;
  }

  /** A vector of tables. */
  tables(id: number): Table[] {
    const vector = this.vector(id, 4);
    if (vector === null) return [];
    return Array.from({ length: vector.length }, (_, i) => {
      const element = vector.start + 4 * i;
      return new Table(this.bytes, element + this.bytes.readUInt32LE(element));
    });
  }
}
