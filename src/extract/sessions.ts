/**
 * The session watcher's core, for the daemon to call on a timer: one pass over the transcripts a person
 * named (`vaultkeeper capture add`, capture.ts, and the globs of `extract.sessions`); nothing else is read. A session counts as ended once its file has gone
 * `extract.idle_minutes` without a change; then only the bytes not extracted before are read, by the
 * offsets kept in `.vaultkeeper/extract-state.json` (so a restart extracts nothing twice). A file that
 * shrank or was replaced starts over (the same transcript's facts already in the log are not appended
 * again). Reading stops at the last complete line, so a line still being written waits for the next pass.
 */
import { createHash } from 'node:crypto';
import { open, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { errorMessage, VaultkeeperError } from '../core/errors.js';
import { withLock } from '../core/lock.js';
import { writeConfined } from '../vault/confined-write.js';
import type { Vault } from '../vault/vault.js';
import { addCounts, createExtractor, emptyCounts, type ExtractionCounts, type ExtractorOptions } from './extractor.js';
import { globFiles, globMatches } from './glob.js';
import { decode, ingestTranscript, sourceFor } from './ingest.js';
import { captureState, captureTargets, EXTRACT_STATE_FILE, LEGACY_NOTICE, markLegacyNoticed, readCaptureList } from './capture.js';
import { withinProject } from './agents.js';
import { readTranscript, UnknownTranscriptError, type Transcript } from './transcript.js';
import { byText } from '../text/compare.js';

export { EXTRACT_STATE_FILE };
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
  /** Set when the file was left unread on purpose: another project's session, or no transcript format. */
  passed: z.string().optional(),
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
  /** Sessions of the agents named that belong to another project than the one captured. */
  outside: number;
  /** The one-time notice for a vault that relied on the old default (every Claude Code project); null after. */
  notice: string | null;
}

/** One pass of the session watcher. Safe to run from several processes: passes take turns. */
export async function scanSessions(vault: Vault, options: SessionScanOptions = {}): Promise<SessionScanResult> {
  const { ctx } = vault;
  const now = options.now ?? new Date();
  const idleMs = ctx.config.extract.idle_minutes * 60_000;
  const home = ctx.env.HOME !== undefined && ctx.env.HOME !== '' ? ctx.env.HOME : os.homedir();
  return withLock(ctx.root, 'extract', async () => {
    const state = await readState(ctx.root);
    const list = await readCaptureList(ctx.root);
    const result: SessionScanResult = { files: 0, active: 0, unchanged: 0, sessions: [], turns: 0, candidates: 0, facts: 0, skipped_lines: 0, llm_calls: 0, tokens: 0, errors: [], fallback: null, outside: 0, notice: null };
    const capture = captureState(list, ctx.config.extract.sessions, Object.keys(state.files), home);
    if (capture.legacy !== null) {
      // Nothing is read until the person names what to capture; they are told once.
      if (capture.legacy.noticed_at === null) {
        await markLegacyNoticed(ctx.root, now);
        result.notice = LEGACY_NOTICE;
      }
      return result;
    }
    /** File → the project its session must belong to (null: any; the glob itself narrowed it). */
    const matched = new Map<string, string | null>();
    for (const target of captureTargets(list, ctx.config.extract.sessions)) {
      for (const file of await globFiles(target.glob, ctx.root, home)) {
        if (matched.get(file) === null) continue;
        matched.set(file, target.cwdFilter);
      }
    }
    result.files = matched.size;
    // A file passed over for its project is looked at again when what is captured changes.
    const captureKey = hash(Buffer.from(JSON.stringify(captureTargets(list, ctx.config.extract.sessions))));
    const counts: ExtractionCounts = emptyCounts();
    const extractor = createExtractor(ctx, options);

    const files: Array<{ file: string; info: Awaited<ReturnType<typeof stat>> }> = [];
    for (const file of matched.keys()) {
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
      const passedBefore = previous?.passed !== undefined && previous.passed !== `project:${captureKey}` && previous.passed !== 'format';
      if (previous !== undefined && !passedBefore && previous.size === size && previous.mtime_ms === mtimeMs && previous.ino === ino) {
        result.unchanged++;
        continue;
      }
      if (now.getTime() - mtimeMs < idleMs) {
        result.active++;
        continue;
      }
      try {
        const report = await extractFile(vault, file, { size, mtimeMs, ino, mtime: new Date(mtimeMs) }, passedBefore ? undefined : previous, extractor, now, state, matched.get(file) ?? null, captureKey);
        if (report === 'outside') {
          result.outside++;
        } else if (report === null) {
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

export interface SessionFileResult {
  /** 'read' when the file's new lines were extracted; otherwise why it was not read. */
  outcome: 'read' | 'unchanged' | 'not-captured' | 'outside';
  session: SessionReport | null;
  fallback: string | null;
}

/**
 * Extracts one session file now, without waiting for it to go idle (an agent's hook says the session
 * ended or is about to be compacted), from where the watcher left off. Only a file a person named for
 * capture is read.
 */
export async function scanSessionFile(vault: Vault, file: string, options: SessionScanOptions = {}): Promise<SessionFileResult> {
  const { ctx } = vault;
  const now = options.now ?? new Date();
  const home = ctx.env.HOME !== undefined && ctx.env.HOME !== '' ? ctx.env.HOME : os.homedir();
  const absolute = path.resolve(file);
  return withLock(ctx.root, 'extract', async () => {
    const list = await readCaptureList(ctx.root);
    const targets = captureTargets(list, ctx.config.extract.sessions).filter((t) => globMatches(absolute, t.glob, ctx.root, home));
    if (targets.length === 0) return { outcome: 'not-captured', session: null, fallback: null };
    const project = targets.some((t) => t.cwdFilter === null) ? null : targets[0]!.cwdFilter;
    const info = await stat(absolute);
    const state = await readState(ctx.root);
    const captureKey = hash(Buffer.from(JSON.stringify(captureTargets(list, ctx.config.extract.sessions))));
    const previous = state.files[absolute];
    const usable = previous?.passed === undefined ? previous : undefined;
    const extractor = createExtractor(ctx, options);
    const report = await extractFile(vault, absolute, { size: Number(info.size), mtimeMs: Number(info.mtimeMs), ino: Number(info.ino), mtime: info.mtime }, usable, extractor, now, state, project, captureKey);
    await writeState(ctx.root, state);
    if (report === 'outside') return { outcome: 'outside', session: null, fallback: extractor.fallback };
    return { outcome: report === null ? 'unchanged' : 'read', session: report?.session ?? null, fallback: extractor.fallback };
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
  project: string | null,
  captureKey: string,
): Promise<{ session: SessionReport; counts: ExtractionCounts; skippedLines: number } | null | 'outside'> {
  const handle = await open(file, 'r');
  let bytes: Buffer;
  let start = 0;
  let restarted = false;
  // A JSON document, a markdown chat or a SQLite store cannot be read from the middle: it is read whole
  // each time it changes, and what it already gave is not appended again.
  const whole = WHOLE_EXTENSIONS.has(path.extname(file).toLowerCase());
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
  const ext = path.extname(file).toLowerCase();
  const complete = whole ? (ext !== '.json' || isJson(bytes) ? bytes : Buffer.alloc(0)) : completeLines(bytes);
  const end = start + complete.length;
  const record = async (source: string, facts: number, passed?: string): Promise<void> => {
    const head = await readHead(file, end);
    state.files[file] = { offset: end, size: info.size, mtime_ms: info.mtimeMs, ino: info.ino, head, source, facts, extracted_at: now.toISOString(), ...(passed === undefined ? {} : { passed }) };
  };
  if (complete.length === 0) {
    await record(previous !== undefined && !restarted ? previous.source : sourceFor(file, { format: 'empty', turns: [], skippedLines: 0 }), restarted ? 0 : (previous?.facts ?? 0));
    return null;
  }
  let transcript: Transcript;
  try {
    transcript = await readTranscript(complete, file);
  } catch (error) {
    // No format: said once, in the pass's errors, and not read again until the file changes.
    if (error instanceof UnknownTranscriptError) await record(previous?.source ?? `ingest/${path.basename(file)}`, previous?.facts ?? 0, 'format');
    throw error;
  }
  if (project !== null && !withinProject(transcript.cwd ?? (await sessionCwd(file)), project)) {
    await record(previous?.source ?? sourceFor(file, transcript), previous?.facts ?? 0, `project:${captureKey}`);
    return 'outside';
  }
  // A later chunk of a Claude Code session may hold no line naming the session: keep the name it had.
  const source = previous !== undefined && !restarted && transcript.sessionId === undefined ? previous.source : sourceFor(file, transcript);
  const report = await ingestTranscript(vault, transcript, { source, fallbackAt: transcript.startedAt ?? info.mtime, extractor });
  const facts = (restarted ? 0 : (previous?.facts ?? 0)) + report.appended.length;
  await record(source, facts);
  return {
    session: { file, source, from: start, to: end, restarted, turns: report.turns, candidates: report.candidates, facts: report.appended.length, duplicates: report.duplicates },
    counts: report.counts,
    skippedLines: report.skipped_lines,
  };
}

const WHOLE_EXTENSIONS = new Set(['.json', '.md', '.markdown', '.txt', '.vscdb']);

/** The working folder a session names in its first lines (a later chunk of JSON lines does not repeat it), or the folder a Cursor workspace store is for. */
async function sessionCwd(file: string): Promise<string | undefined> {
  if (path.basename(file) === 'state.vscdb') {
    try {
      const workspace = JSON.parse(await readFile(path.join(path.dirname(file), 'workspace.json'), 'utf8')) as { folder?: unknown };
      return typeof workspace.folder === 'string' && workspace.folder.startsWith('file://') ? fileURLToPath(workspace.folder) : undefined;
    } catch {
      return undefined;
    }
  }
  const handle = await open(file, 'r');
  try {
    const head = completeLines(await readRange(handle, 0, 64 * 1024));
    return (await readTranscript(head, file).catch(() => null))?.cwd;
  } finally {
    await handle.close();
  }
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
