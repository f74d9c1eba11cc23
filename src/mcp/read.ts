/**
 * memory_read's guard and reader: the one place the MCP server reads a file itself. In the dream tools'
 * pattern (src/dream/tools/guard.ts): the lexical rules on the path as written, then the same rules on its
 * real path, so neither `..` nor a symlink takes a read outside the vault or into its hidden folders.
 * Readable: wiki pages, daily logs (logs/YYYY-MM-DD.md) and the four root files.
 */
import { open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { isValidDate } from '../core/clock.js';
import { isWithin, relativePathProblem } from '../dream/tools/guard.js';
import { isWikiPagePath, ROOT_FILES } from '../pages/discover.js';

export type ReadRefusalReason = 'invalid_path' | 'outside_vault' | 'forbidden' | 'not_markdown' | 'not_found' | 'not_a_file';

export type Readable = { ok: true; abs: string; rel: string } | { ok: false; reason: ReadRefusalReason; hint: string };

type Refusal = Extract<Readable, { ok: false }>;

const EXAMPLE = 'e.g. 2_Areas/Coffee.md, logs/2026-06-09.md or MEMORY.md';
const LOG_RE = /^logs\/(\d{4}-\d{2}-\d{2})\.md$/;

const refuse = (reason: ReadRefusalReason, hint: string): Refusal => ({ ok: false, reason, hint });

/** The lexical rules on a vault-relative POSIX path: null when it names something readable. */
function checkPath(rel: string): Refusal | null {
  const problem = relativePathProblem(rel, EXAMPLE);
  if (problem !== null) return refuse(problem.reason, problem.hint);
  const segments = rel.split('/');
  if (segments.some((s) => s.trim() === '')) return refuse('invalid_path', `'${rel}' has an empty name; ${EXAMPLE}`);
  const hidden = segments.find((s) => s.startsWith('.'));
  if (hidden !== undefined) {
    return refuse('forbidden', `hidden folders and files (${hidden}) hold the program's state, not memory; read a page, a log or MEMORY.md, ${EXAMPLE}`);
  }
  if (!rel.endsWith('.md')) {
    return refuse('not_markdown', `only markdown files can be read: a page, a daily log logs/YYYY-MM-DD.md, or MEMORY.md, index.md, schema.md, log.md`);
  }
  if (segments.length === 1 && ROOT_FILES.includes(rel)) return null;
  if (segments[0] === 'logs') {
    const date = LOG_RE.exec(rel)?.[1];
    if (date === undefined || !isValidDate(date)) return refuse('forbidden', 'logs/ holds only the daily logs, named logs/YYYY-MM-DD.md, e.g. logs/2026-06-09.md');
    return null;
  }
  if (!isWikiPagePath(rel)) return refuse('forbidden', `${rel} is not a page of the vault; ${EXAMPLE}`);
  return null;
}

function notFound(rel: string): Refusal {
  const date = LOG_RE.exec(rel)?.[1];
  if (date !== undefined) return refuse('not_found', `there is no log for ${date}: nothing was remembered that day; find facts with memory_search`);
  return refuse('not_found', `there is no file ${rel}; find pages with memory_search (each result has a path), or read index.md for the map of pages`);
}

/** Resolves a path an agent gave to a file it may read, or says why not and what to read instead. */
export async function resolveReadable(root: string, input: string): Promise<Readable> {
  // An agent often writes "./2_Areas/x.md"; that leading "./" names the same file. A bare day (how a search
  // line names a fact's log) is that day's log.
  const trimmed = input.trim().replace(/^(\.\/)+/, '');
  const rel = /^\d{4}-\d{2}-\d{2}$/.test(trimmed) ? `logs/${trimmed}.md` : trimmed;
  const refusal = checkPath(rel);
  if (refusal !== null) return refusal;
  const realRoot = await realpath(root);
  const abs = path.join(realRoot, ...rel.split('/'));
  if (!isWithin(realRoot, abs)) return refuse('outside_vault', `paths are relative to the vault, ${EXAMPLE}`);
  let real: string;
  try {
    real = await realpath(abs);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return notFound(rel);
    if (code === 'ELOOP') return refuse('invalid_path', `${rel} is a link that loops back on itself; it cannot be read`);
    throw error;
  }
  if (!isWithin(realRoot, real) || real === realRoot) return refuse('outside_vault', `${rel} is a link that leads outside the vault; it cannot be read`);
  const realRel = path.relative(realRoot, real).split(path.sep).join('/');
  if (realRel !== rel) {
    const target = checkPath(realRel);
    if (target !== null) return refuse(target.reason, `${rel} is a link to ${realRel}, which cannot be read: ${target.hint}`);
  }
  if (!(await stat(real)).isFile()) return refuse('not_a_file', `${rel} is not a file; ${EXAMPLE}`);
  return { ok: true, abs: real, rel };
}

export interface ReadText {
  text: string;
  bytes: number;
  /** True when the file was longer than the cap and `text` is its beginning. */
  truncated: boolean;
}

/** Reads at most `cap` bytes of a file, cut at the last whole line when it is longer. */
export async function readCapped(abs: string, cap: number): Promise<ReadText> {
  const handle = await open(abs, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, cap);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    const truncated = size > bytesRead;
    let bytes = buffer.subarray(0, bytesRead);
    if (truncated) {
      const lastNewline = bytes.lastIndexOf(0x0a);
      if (lastNewline > 0) bytes = bytes.subarray(0, lastNewline + 1);
    }
    return { text: new TextDecoder('utf-8', { fatal: false }).decode(bytes), bytes: size, truncated };
  } finally {
    await handle.close();
  }
}

export interface ReadLines {
  /** The lines from..to, each with its newline. */
  text: string;
  from: number;
  /** The last line returned (from - 1 when none). */
  to: number;
  /** The file's number of lines (within the cap). */
  total: number;
}

/** Lines `from`..`from + max - 1` (1-based) of the first `cap` bytes of a file: memory_read's range. */
export async function readLines(abs: string, from: number, max: number, cap: number): Promise<ReadLines> {
  const { text } = await readCapped(abs, cap);
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const slice = lines.slice(from - 1, from - 1 + max);
  return { text: slice.map((l) => `${l}\n`).join(''), from, to: from - 1 + slice.length, total: lines.length };
}
