/**
 * A SQLite write-ahead log applied to a copy of its database in memory. Cursor keeps state.vscdb in WAL mode:
 * its latest chats sit in state.vscdb-wal until SQLite checkpoints them, and sql.js reads the main file alone.
 * Only frames up to the last commit whose salts and running checksum match the WAL header are applied, as
 * SQLite itself would (sqlite.org/fileformat2.html#walformat); a torn or stale tail is left out. Nothing is
 * written to either file.
 */
const WAL_HEADER = 32;
const FRAME_HEADER = 24;

/** The database as a reader that honours the WAL sees it; the bytes unchanged when the WAL holds nothing to apply. */
export function applyWal(db: Uint8Array, wal: Uint8Array): Uint8Array {
  if (wal.length < WAL_HEADER) return db;
  const view = new DataView(wal.buffer, wal.byteOffset, wal.byteLength);
  const magic = view.getUint32(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return db;
  const bigEndian = magic === 0x377f0683;
  const pageSize = view.getUint32(8) === 1 ? 65536 : view.getUint32(8);
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return db;
  const salt1 = view.getUint32(16);
  const salt2 = view.getUint32(20);
  let sum = checksum(wal, 0, 24, bigEndian, [0, 0]);
  if (sum[0] !== view.getUint32(24) || sum[1] !== view.getUint32(28)) return db;

  const pages = new Map<number, Uint8Array>();
  let committed = new Map<number, Uint8Array>();
  let size = 0;
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= wal.length; at += FRAME_HEADER + pageSize) {
    if (view.getUint32(at + 8) !== salt1 || view.getUint32(at + 12) !== salt2) break;
    sum = checksum(wal, at, 8, bigEndian, sum);
    sum = checksum(wal, at + FRAME_HEADER, pageSize, bigEndian, sum);
    if (sum[0] !== view.getUint32(at + 16) || sum[1] !== view.getUint32(at + 20)) break;
    pages.set(view.getUint32(at), wal.subarray(at + FRAME_HEADER, at + FRAME_HEADER + pageSize));
    const commitSize = view.getUint32(at + 4);
    if (commitSize !== 0) {
      committed = new Map(pages);
      size = commitSize;
    }
  }
  if (committed.size === 0) return db;
  const out = new Uint8Array(size * pageSize);
  out.set(db.subarray(0, Math.min(db.length, out.length)));
  for (const [page, bytes] of committed) if (page >= 1 && page <= size) out.set(bytes, (page - 1) * pageSize);
  return out;
}

/** SQLite's WAL checksum over `length` bytes (a multiple of 8), continuing from `sum`. */
function checksum(bytes: Uint8Array, from: number, length: number, bigEndian: boolean, [s0, s1]: readonly [number, number] | number[]): [number, number] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let a = s0!;
  let b = s1!;
  for (let i = from; i < from + length; i += 8) {
    a = (a + view.getUint32(i, !bigEndian) + b) >>> 0;
    b = (b + view.getUint32(i + 4, !bigEndian) + a) >>> 0;
  }
  return [a, b];
}
