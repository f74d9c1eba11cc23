/**
 * The session watcher's core, for the daemon to call on a timer: one pass over the transcripts the
 * configured globs name (`extract.sessions`). A session counts as ended once its file has gone
 * `extract.idle_minutes` without a change; then only the bytes not extracted before are read, by the
 * offsets kept in `.vaultkeeper/extract-state.json` (so a restart extracts nothing twice). A file that
 * shrank or was replaced starts over (the same transcript's facts already in the log are not appended
 * again). Reading stops at the last complete line, so a line still being written waits for the next pass.
 */
import { createHash } from 'node:crypto';
import { open, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { errorMessage, VaultkeeperError } from '../core/errors.js';
import { withLock } from '../core/lock.js';
import { writeConfined } from '../vault/confined-write.js';
import type { Vault } from '../vault/vault.js';
import { addCounts, createExtractor, emptyCounts, type ExtractionCounts, type ExtractorOptions } from './extractor.js';
import { globFiles } from './glob.js';
import { decode, ingestTranscript, sourceFor } from './ingest.js';
import { parseTranscript } from './transcript.js';
import { byText } from '../text/compare.js';

export const EXTRACT_STATE_FILE = '.vaultkeeper/extract-state.json';
/** Bytes at the start of a file whose hash tells a replaced file from a grown one. */
const HEAD_BYTES = 1024;

const FileStateSchema = z.object({
  /** Bytes extracted so far (always at a line boundary). */
  offset: z.number().int().nonnegative(),
  size: z.number().int().nonnegative(),
  mtime_ms: z.number(),
  ino: z.number(),
  /** sha256 of the first min(offset, HEAD_BYTES) bytes. */
  head: z.string(),
  source: z.string(),
  facts: z.number().int().nonnegative(),
  extracted_at: z.string(),
});
type FileState = z.infer<typeof FileStateSchema>;

const StateSchema = z.object({ version: z.literal(1), files: z.record(z.string(), FileStateSchema) });
type ExtractState = z.infer<typeof StateSchema>;

export interface SessionScanOptions extends ExtractorOptions {
  now?: Date | undefined;
  onProgress?: ((event: { file: string; source: string; facts: number }) => void) | undefined;
}

export interface SessionReport {
  file: string;
  source: string;
  /** Byte range read this pass. */
  from: number;
  to: number;
  /** True when the file shrank or was replaced and was read from the start again. */
  restarted: boolean;
  turns: number;
  candidates: number;
  facts: number;
  duplicates: number;
}

export interface SessionScanResult {
  /** Files the globs name. */
  files: number;
  /** Files still being written (changed within `extract.idle_minutes`). */
  active: number;
  /** Files with nothing new since the last pass. */
  unchanged: number;
  sessions: SessionReport[];
  turns: number;
  candidates: number;
  facts: number;
  skipped_lines: number;
  llm_calls: number;
  tokens: number;
  /** Files that could not be extracted this pass; they are tried again on the next. */
  errors: Array<{ file: string; message: string }>;
  /** Why the rules took over from the LLM this pass (it could not be used; llm.fallback: offline), else null. */
  fallback: string | null;
}

/** One pass of the session watcher. Safe to run from several processes: passes take turns. */
export async function scanSessions(vault: Vault, options: SessionScanOptions = {}): Promise<SessionScanResult> {
  const { ctx } = vault;
  const now = options.now ?? new Date();
  const idleMs = ctx.config.extract.idle_minutes * 60_000;
  const home = ctx.env.HOME !== undefined && ctx.env.HOME !== '' ? ctx.env.HOME : os.homedir();
  return withLock(ctx.root, 'extract', async () => {
    const state = await readState(ctx.root);
    const matched = new Set<string>();
    for (const pattern of ctx.config.extract.sessions) for (const file of await globFiles(pattern, ctx.root, home)) matched.add(file);
    const result: SessionScanResult = { files: matched.size, active: 0, unchanged: 0, sessions: [], turns: 0, candidates: 0, facts: 0, skipped_lines: 0, llm_calls: 0, tokens: 0, errors: [], fallback: null };
    const counts: ExtractionCounts = emptyCounts();
    const extractor = createExtractor(ctx, options);

    const files: Array<{ file: string; info: Awaited<ReturnType<typeof stat>> }> = [];
    for (const file of matched) {
      const info = await stat(file).catch(() => null);
      if (info?.isFile()) files.push({ file, info });
    }
    // Oldest first: a long first pass makes steady progress through the backlog.
    files.sort((a, b) => Number(a.info.mtimeMs) - Number(b.info.mtimeMs) || byText(a.file, b.file));
    for (const [file] of Object.entries(state.files)) if (!matched.has(file)) delete state.files[file];

    for (const { file, info } of files) {
      const size = Number(info.size);
      const mtimeMs = Number(info.mtimeMs);
      const ino = Number(info.ino);
      const previous = state.files[file];
      if (previous !== undefined && previous.size === size && previous.mtime_ms === mtimeMs && previous.ino === ino) {
        result.unchanged++;
        continue;
      }
      if (now.getTime() - mtimeMs < idleMs) {
        result.active++;
        continue;
      }
      try {
        const report = await extractFile(vault, file, { size, mtimeMs, ino, mtime: new Date(mtimeMs) }, previous, extractor, now, state);
        if (report === null) {
          result.unchanged++;
        } else {
          result.sessions.push(report.session);
          result.turns += report.session.turns;
          result.candidates += report.session.candidates;
          result.facts += report.session.facts;
          result.skipped_lines += report.skippedLines;
          addCounts(counts, report.counts);
          options.onProgress?.({ file, source: report.session.source, facts: report.session.facts });
        }
        await writeState(ctx.root, state);
      } catch (error) {
        result.errors.push({ file, message: errorMessage(error) });
        // An unreachable endpoint fails every file alike: stop, and try again on the next pass.
        if (error instanceof VaultkeeperError && (error.code === 'VK_LLM_REQUEST' || error.code === 'VK_LLM_CONFIG')) break;
      }
    }
    await writeState(ctx.root, state);
    result.fallback = extractor.fallback;
    result.llm_calls = counts.llm_calls;
    result.tokens = counts.tokens;
    return result;
  });
}

interface FileInfo {
  size: number;
  mtimeMs: number;
  ino: number;
  mtime: Date;
}

/** Extracts the new complete lines of one file and records how far it got; null when there were none. */
async function extractFile(
  vault: Vault,
  file: string,
  info: FileInfo,
  previous: FileState | undefined,
  extractor: ReturnType<typeof createExtractor>,
  now: Date,
  state: ExtractState,
): Promise<{ session: SessionReport; counts: ExtractionCounts; skippedLines: number } | null> {
  const handle = await open(file, 'r');
  let bytes: Buffer;
  let start = 0;
  let restarted = false;
  // A JSON document (not JSON lines) cannot be read from the middle: it is read whole each time it
  // changes, and what it already gave is not appended again.
  const whole = path.extname(file).toLowerCase() === '.json';
  try {
    if (previous !== undefined && !whole) {
      const same = previous.ino === info.ino && info.size >= previous.offset && (await headHash(handle, previous.offset)) === previous.head;
      if (same) start = previous.offset;
      else restarted = true;
    }
    bytes = await readRange(handle, start, info.size);
  } finally {
    await handle.close();
  }
  const complete = whole ? (isJson(bytes) ? bytes : Buffer.alloc(0)) : completeLines(bytes);
  const end = start + complete.length;
  const record = async (source: string, facts: number): Promise<void> => {
    const head = await readHead(file, end);
    state.files[file] = { offset: end, size: info.size, mtime_ms: info.mtimeMs, ino: info.ino, head, source, facts, extracted_at: now.toISOString() };
  };
  if (complete.length === 0) {
    await record(previous !== undefined && !restarted ? previous.source : sourceFor(file, parseTranscript('', file)), restarted ? 0 : (previous?.facts ?? 0));
    return null;
  }
  const transcript = parseTranscript(decode(complete), file);
  // A later chunk of a Claude Code session may hold no line naming the session: keep the name it had.
  const source = previous !== undefined && !restarted && transcript.sessionId === undefined ? previous.source : sourceFor(file, transcript);
  const report = await ingestTranscript(vault, transcript, { source, fallbackAt: info.mtime, extractor });
  const facts = (restarted ? 0 : (previous?.facts ?? 0)) + report.appended.length;
  await record(source, facts);
  return {
    session: { file, source, from: start, to: end, restarted, turns: report.turns, candidates: report.candidates, facts: report.appended.length, duplicates: report.duplicates },
    counts: report.counts,
    skippedLines: report.skipped_lines,
  };
}

/** The bytes up to and including the last newline; a trailing line that is a whole JSON value counts too (the session is idle). */
export function completeLines(bytes: Buffer): Buffer {
  const last = bytes.lastIndexOf(0x0a);
  const tail = bytes.subarray(last + 1);
  return tail.length > 0 && isJson(tail) ? bytes : bytes.subarray(0, last + 1);
}

function isJson(bytes: Buffer): boolean {
  try {
    JSON.parse(decode(bytes));
    return true;
  } catch {
    return false; // still being written
  }
}

async function readRange(handle: Awaited<ReturnType<typeof open>>, start: number, end: number): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.max(0, end - start));
  let read = 0;
  while (read < buffer.length) {
    const { bytesRead } = await handle.read(buffer, read, buffer.length - read, start + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return buffer.subarray(0, read);
}

async function headHash(handle: Awaited<ReturnType<typeof open>>, offset: number): Promise<string> {
  return hash(await readRange(handle, 0, Math.min(offset, HEAD_BYTES)));
}

async function readHead(file: string, offset: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    return await headHash(handle, offset);
  } finally {
    await handle.close();
  }
}

function hash(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 32);
}

async function readState(root: string): Promise<ExtractState> {
  let text: string;
  try {
    text = await readFile(path.join(root, EXTRACT_STATE_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, files: {} };
    throw error;
  }
  try {
    const parsed = StateSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // unreadable: start over below
  }
  // A damaged state file costs a re-read of every session, not duplicates: the log already holds
  // what was extracted, and facts already there from the same transcript are not appended again.
  return { version: 1, files: {} };
}

async function writeState(root: string, state: ExtractState): Promise<void> {
  await writeConfined(root, EXTRACT_STATE_FILE, `${JSON.stringify(state, null, 2)}\n`);
}
