/**
 * The embedding cache: vectors keyed by (model, sha256(text)), kept outside the index under
 * `.vaultkeeper/cache/embeddings/` so that rebuilding the index re-embeds nothing it has seen.
 *
 * One append-only file per model: a header line (`VKEMB1 {"model","dimensions",...}`, padded to a
 * multiple of 4 bytes) then fixed-size records: 4 magic bytes, the 32-byte text hash, `dimensions`
 * float32s (little-endian), and a CRC-32 of hash and vector.
 *
 * Several processes (the CLI, the daemon, MCP) may append at once. There is no lock: each append is
 * whole records in single write(2) calls on an O_APPEND descriptor, which local filesystems place
 * at the end of the file without interleaving. Where that does not hold (a crash mid-write, a full
 * disk, a network filesystem) a record can be torn; the magic and the CRC let the reader skip it and
 * resynchronize on the next record. A lost record only costs one re-embedding, while a lock would
 * make every embedding wait on the slowest writer and need stale-lock recovery.
 */
import { createHash, randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { link, open, rename, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { VaultkeeperError } from '../core/errors.js';
import { confinedPath } from '../vault/confine.js';
import { mkdirConfined } from '../vault/confined-write.js';

export const EMBEDDING_CACHE_DIR = '.vaultkeeper/cache/embeddings';

const FORMAT = 'VKEMB1';
const RECORD_MAGIC = Buffer.from([0xf7, 0x1c, 0xe9, 0x3d]);
const MAGIC_U32 = RECORD_MAGIC.readUInt32LE(0);
const HASH_BYTES = 32;
const VECTOR_AT = RECORD_MAGIC.length + HASH_BYTES;
// Bounded so one write stays one syscall's worth of whole records.
const MAX_WRITE_BYTES = 1 << 20;

export interface EmbeddingCacheStats {
  /** Records read from the file (including repeats of the same text). */
  records: number;
  /** Bytes skipped because they did not form a whole, valid record. */
  skippedBytes: number;
}

export class EmbeddingCache {
  private readonly vectors = new Map<string, Float32Array>();
  private readonly recordBytes: number;
  /** File offset of the first byte not yet parsed. */
  private offset: number;
  private loaded = false;
  private readonly counts: EmbeddingCacheStats = { records: 0, skippedBytes: 0 };

  private constructor(
    /** The cache file; null for a cache kept in memory only. */
    readonly file: string | null,
    readonly model: string,
    readonly dimensions: number,
    private readonly headerBytes: number,
  ) {
    this.recordBytes = VECTOR_AT + dimensions * 4 + 4;
    this.offset = headerBytes;
  }

  /**
   * Opens (creating if needed) the cache of `model` in the vault at `root`. Records are read by the
   * first refresh(), so a process that never looks anything up never reads the file.
   */
  static async open(root: string, model: string, dimensions: number): Promise<EmbeddingCache> {
    if (!Number.isInteger(dimensions) || dimensions < 1) throw new RangeError(`dimensions must be a positive integer, got ${dimensions}`);
    await mkdirConfined(root, EMBEDDING_CACHE_DIR);
    // A linked cache folder or file is refused; appends below use O_NOFOLLOW for a link swapped in later.
    const file = await confinedPath(root, `${EMBEDDING_CACHE_DIR}/${cacheFileName(model, dimensions)}`);
    const header = headerFor(model, dimensions);
    await ensureFile(file, header);
    return new EmbeddingCache(file, model, dimensions, header.length);
  }

  /** A cache that keeps nothing on disk: for a vault that cannot be written (read-only, full). */
  static inMemory(model: string, dimensions: number): EmbeddingCache {
    const cache = new EmbeddingCache(null, model, dimensions, 0);
    cache.loaded = true;
    return cache;
  }

  /** Distinct texts held (as of the last refresh). */
  get size(): number {
    this.assertLoaded();
    return this.vectors.size;
  }

  get stats(): Readonly<EmbeddingCacheStats> {
    return { ...this.counts };
  }

  get(text: string): Float32Array | undefined {
    this.assertLoaded();
    return this.vectors.get(textKey(text));
  }

  /** Reads the file the first time, then what other processes appended since the last read. */
  async refresh(): Promise<void> {
    if (this.file === null) return;
    this.loaded = true;
    let handle;
    try {
      handle = await open(this.file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // Deleted under us (a person cleared the cache): start a new file, keep what is in memory.
      await ensureFile(this.file, headerFor(this.model, this.dimensions));
      this.offset = this.headerBytes;
      return;
    }
    try {
      const { size } = await handle.stat();
      if (size < this.offset) {
        // Replaced by a fresh file (e.g. moved aside after corruption): read it from the start.
        this.offset = this.headerBytes;
      }
      if (size - this.offset < this.recordBytes) return;
      const chunk = Buffer.allocUnsafeSlow(size - this.offset);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, this.offset);
      this.offset += this.scan(chunk.subarray(0, bytesRead));
    } finally {
      await handle.close();
    }
  }

  /** Appends vectors (one per text), then serves them from memory. */
  async put(entries: readonly (readonly [text: string, vector: Float32Array])[]): Promise<void> {
    if (entries.length === 0) return;
    // Not from the shared pool: the cached vectors are aligned views into this buffer.
    const records = Buffer.allocUnsafeSlow(entries.length * this.recordBytes);
    const wrong = entries.find(([, vector]) => vector.length !== this.dimensions);
    if (wrong !== undefined) throw new RangeError(`vector of ${wrong[1].length} dimensions for a ${this.dimensions}-dimension cache`);
    entries.forEach(([text, vector], i) => {
      const at = i * this.recordBytes;
      const digest = createHash('sha256').update(text).digest();
      RECORD_MAGIC.copy(records, at);
      digest.copy(records, at + RECORD_MAGIC.length);
      Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(records, at + VECTOR_AT);
      const body = records.subarray(at + RECORD_MAGIC.length, at + this.recordBytes - 4);
      records.writeUInt32LE(crc32(body), at + this.recordBytes - 4);
      this.vectors.set(digest.toString('latin1'), floats(records, at + VECTOR_AT, this.dimensions));
    });
    if (this.file === null) return;
    const perWrite = Math.max(1, Math.floor(MAX_WRITE_BYTES / this.recordBytes)) * this.recordBytes;
    const handle = await this.openForAppend(this.file);
    try {
      const before = (await handle.stat()).size;
      for (let start = 0; start < records.length; ) {
        const { bytesWritten } = await handle.write(records, start, Math.min(perWrite, records.length - start));
        start += bytesWritten;
      }
      // Nobody else wrote in between and nothing was left unread: skip re-reading our own records.
      if (before === this.offset && (await handle.stat()).size === before + records.length) this.offset += records.length;
    } finally {
      await handle.close();
    }
  }

  /** O_APPEND without O_CREAT, so a file deleted under us is recreated with its header, never without. */
  private async openForAppend(file: string): Promise<FileHandle> {
    const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW;
    try {
      return await open(file, flags);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await ensureFile(file, headerFor(this.model, this.dimensions));
      this.offset = this.headerBytes;
      return open(file, flags);
    }
  }

  private assertLoaded(): void {
    if (!this.loaded) throw new Error('EmbeddingCache: call refresh() before reading');
  }

  /** Parses records from `chunk`; returns the bytes consumed (a trailing partial record is left for later). */
  private scan(chunk: Buffer): number {
    const size = this.recordBytes;
    let pos = 0;
    while (chunk.length - pos >= size) {
      if (chunk.readUInt32LE(pos) === MAGIC_U32) {
        const body = chunk.subarray(pos + RECORD_MAGIC.length, pos + size - 4);
        if (crc32(body) === chunk.readUInt32LE(pos + size - 4)) {
          const key = chunk.toString('latin1', pos + RECORD_MAGIC.length, pos + VECTOR_AT);
          this.vectors.set(key, floats(chunk, pos + VECTOR_AT, this.dimensions));
          this.counts.records++;
          pos += size;
          continue;
        }
      }
      // A torn or garbled record: skip to the next magic (or keep the last bytes, a magic may straddle).
      const next = chunk.indexOf(RECORD_MAGIC, pos + 1);
      const resume = next >= 0 ? next : Math.max(pos + 1, chunk.length - RECORD_MAGIC.length + 1);
      this.counts.skippedBytes += resume - pos;
      pos = resume;
    }
    return pos;
  }
}

/** `<model, made safe>-<hash>.vkemb`: readable for a person, unique per model, size and file format. */
function cacheFileName(model: string, dimensions: number): string {
  const slug = model.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 48);
  const id = createHash('sha256').update(`${FORMAT}\n${os.endianness()}\n${model}\n${dimensions}`).digest('hex').slice(0, 16);
  return `${slug}-${id}.vkemb`;
}

function textKey(text: string): string {
  return createHash('sha256').update(text).digest().toString('latin1');
}

function floats(buffer: Buffer, at: number, count: number): Float32Array {
  const start = buffer.byteOffset + at;
  // A view when aligned (always, unless garbled bytes were skipped); a copy otherwise.
  if (start % 4 === 0) return new Float32Array(buffer.buffer, start, count);
  return new Float32Array(buffer.buffer.slice(start, start + count * 4));
}

function headerFor(model: string, dimensions: number): Buffer {
  const line = Buffer.from(`${FORMAT} ${JSON.stringify({ model, dimensions, endianness: os.endianness() })}`);
  // Padded with spaces so records, and the float32s in them, start 4-byte aligned.
  const padding = (4 - ((line.length + 1) % 4)) % 4;
  return Buffer.concat([line, Buffer.alloc(padding, ' '), Buffer.from('\n')]);
}

/**
 * Makes sure `file` exists with `header`. A new file appears whole (written aside, then hard-linked
 * into place, which fails if another process won the race); a file whose header is not this
 * model's is moved aside and replaced, since the cache is only ever a copy.
 */
async function ensureFile(file: string, header: Buffer): Promise<void> {
  const existing = await readHeader(file, header.length);
  if (existing?.equals(header)) return;
  if (existing !== undefined) await rename(file, `${file}.bad-${Date.now()}`).catch(() => undefined);
  const temp = `${file}.${process.pid}-${randomUUID()}.tmp`;
  await writeFile(temp, header);
  try {
    await link(temp, file);
  } catch (error) {
    // EEXIST: another process created it first. Anything else: no hard links on this filesystem
    // (some network and FUSE ones), and a rename is atomic too.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') await rename(temp, file);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  const now = await readHeader(file, header.length);
  if (!now?.equals(header)) {
    throw new VaultkeeperError('VK_EMBED_CACHE', `the embedding cache ${file} does not start with the expected header`, {
      hint: `delete ${path.dirname(file)}; it is only a cache and is rebuilt as texts are embedded`,
    });
  }
}

async function readHeader(file: string, length: number): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
