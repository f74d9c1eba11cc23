/**
 * A row's fingerprint, so an unchanged row is never rewritten or re-embedded: the 64-bit xxHash of the row's stored values —
 * its `shown` JSON (every field a hit shows, typed) and the four fields that lacks (page type, status, content,
 * context) — each as its UTF-8 byte length (4 bytes, little-endian) then its bytes. The same bytes are hashed
 * from the row's strings or, for rows already encoded, straight from the column buffers (arrow-rows.ts), so a
 * rebuild hashes its new rows after the table is written without keeping the row objects alive until then
 * (docs/benchmarks.md).
 */
import xxhash from 'xxhash-wasm';
import type { EncodedBatch, EncodedColumn } from './arrow-rows.js';
import { shownJson, tableColumns } from './columns.js';
import type { IndexRow } from './rows.js';

/** The hashed columns, in the order they are hashed. */
const HASHED = ['shown', 'page_type', 'status', 'content', 'context'] as const;

/**
 * xxHash rather than sha256: it tells an edited row from the one before (a 2^-64 chance to miss one), nothing
 * adversarial rests on it, and the 100k rebuild spent ~0.1 s in sha256 calls (docs/benchmarks.md).
 */
let h64Raw: ((input: Uint8Array) => bigint) | undefined;

/**
 * Settles once xxhash-wasm's WebAssembly has loaded: `rowHash` and `batchHashes` need it. A promise rather than
 * a top-level await, which the CLI bundle (CommonJS, scripts/bundle-cli.mjs) cannot hold; the projection's
 * loaders await it (project-chunk.ts).
 */
export const rowHashing: Promise<void> = xxhash().then((hasher) => {
  h64Raw = hasher.h64Raw;
});

function digest(bytes: Uint8Array): string {
  if (h64Raw === undefined) throw new Error('row hashing used before it loaded (await rowHashing)');
  return h64Raw(bytes).toString(36);
}

/** A row's hash from its strings; `shown` when already made. */
export function rowHash(row: IndexRow, shown: string = shownJson(row)): string {
  const values = [shown, row.page_type, row.status, row.content, row.context];
  let size = 0;
  for (const value of values) size += 4 + Buffer.byteLength(value, 'utf8');
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  for (const value of values) {
    const length = bytes.write(value, at + 4, 'utf8');
    bytes.writeUInt32LE(length, at);
    at += 4 + length;
  }
  return digest(bytes);
}

/** The hashes of `count` rows of an encoded batch (the table's columns, tableColumns), from row `start`. */
export function batchHashes(batch: EncodedBatch, start: number, count: number): string[] {
  const names = tableColumns(null).map((column) => column.name);
  const columns = HASHED.map((name) => utf8Column(batch.columns[names.indexOf(name)], name));
  let scratch = Buffer.allocUnsafe(1 << 16);
  const out: string[] = [];
  for (let row = start; row < start + count; row++) {
    let size = 0;
    for (const { offsets } of columns) size += 4 + offsets[row + 1]! - offsets[row]!;
    if (size > scratch.length) scratch = Buffer.allocUnsafe(size * 2);
    let at = 0;
    for (const { offsets, data } of columns) {
      const from = offsets[row]!;
      const to = offsets[row + 1]!;
      scratch.writeUInt32LE(to - from, at);
      scratch.set(data.subarray(from, to), at + 4);
      at += 4 + to - from;
    }
    out.push(digest(scratch.subarray(0, at)));
  }
  return out;
}

function utf8Column(column: EncodedColumn | undefined, name: string): { offsets: Int32Array; data: Uint8Array } {
  if (column?.kind !== 'utf8') throw new Error(`column ${name} is not a string column of the table`);
  return column;
}
