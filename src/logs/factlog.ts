/**
 * The daily fact logs (DESIGN §3): one parser and one writer. The writer here is the only code that
 * writes logs/; it only ever appends. The parser never throws, whatever a person or a broken disk put
 * in the file, and reports every line it could not read as a fact.
 */
import { constants } from 'node:fs';
import { mkdir, open, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { UsageError, VaultkeeperError } from '../core/errors.js';
import type { WriteLock } from '../core/lock.js';
import { syncDir } from '../dream/tools/atomic.js';
import { confinedPath } from '../vault/confine.js';
import { writeFileAtomic } from '../dream/tools/atomic.js';
import { factId } from './ids.js';

export const CATEGORIES = [
  'fact',
  'preference',
  'correction',
  'entity',
  'decision',
  'relationship',
  'principle',
  'commitment',
  'moment',
  'skill',
] as const;
export type Category = (typeof CATEGORIES)[number];

export const LOGS_DIR = 'logs';
const LOG_FILE_RE = /^(\d{4}-\d{2}-\d{2})\.md$/;

export interface Fact {
  id: string;
  date: string;
  /** HH:MM of the batch header the fact sits under ('' when it has none). */
  time: string;
  /** The line of that header (0 when it has none): facts under one header were appended together. */
  batch: number;
  source: string;
  category: Category;
  text: string;
  tags: string[];
  /** 1-based line number in the log file. */
  line: number;
  /** False when a person wrote the line without `^id` and the id was derived. */
  explicitId: boolean;
}

export interface SkippedLine {
  line: number;
  reason: string;
  /** The start of the line, for a report. */
  excerpt: string;
}

export interface ParsedLog {
  date: string;
  facts: Fact[];
  skipped: SkippedLine[];
  /** Lines in the file (a final newline does not start a new line). */
  lineCount: number;
  endsWithNewline: boolean;
}

export function logRelPath(date: string): string {
  return `${LOGS_DIR}/${date}.md`;
}

/** The dates of the vault's log files, oldest first. */
export async function listLogDates(root: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(path.join(root, LOGS_DIR));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .map((name) => LOG_FILE_RE.exec(name)?.[1])
    .filter((date): date is string => date !== undefined)
    .sort();
}

export async function readLog(root: string, date: string): Promise<ParsedLog> {
  let content: Buffer;
  try {
    content = await readFile(path.join(root, logRelPath(date)));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return parseLog('', date);
    if (code === 'EISDIR') {
      throw new VaultkeeperError('VK_NOT_A_FILE', `${logRelPath(date)} is a folder where a fact log belongs`, { hint: `move the folder ${logRelPath(date)} away, then run the command again` });
    }
    throw error;
  }
  return parseLog(content, date);
}

// ---------------------------------------------------------------------------------------------
// Parsing

const HEADER_RE = /^##[ \t]+(\d{2}:\d{2})(?:[ \t]+·[ \t]*(.*))?$/;
const BULLET_RE = /^[-*+][ \t]+/;
const CATEGORY_RE = /^\[([A-Za-z_-]+)\](?:[ \t]+|$)/;
const BLOCK_ID_RE = /^\^[A-Za-z0-9-]+$/;
const TAG_RE = /^#[\p{L}\p{N}_/-]+$/u;
const isCategory = (value: string): value is Category => (CATEGORIES as readonly string[]).includes(value);
const isTagToken = (token: string): boolean => TAG_RE.test(token) && /[^\d]/u.test(token.slice(1));

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** Parses a log file. Never throws: lines it cannot read are reported in `skipped`. */
export function parseLog(content: string | Uint8Array, date: string): ParsedLog {
  // Leading BOMs are dropped: TextDecoder drops one from bytes by itself, and a string must parse like its bytes.
  const text = (typeof content === 'string' ? content : utf8.decode(content)).replace(/^\uFEFF+/, '');
  const endsWithNewline = text.endsWith('\n') || text.endsWith('\r');
  const lines = text.length === 0 ? [] : text.split(/\r\n|\r|\n/);
  if (endsWithNewline) lines.pop();

  const facts: Fact[] = [];
  const skipped: SkippedLine[] = [];
  // The line itself is kept, its excerpt made only if the line is reported (most never are).
  const bodies: { line: number; time: string; batch: number; source: string; body: FactBody; text: string }[] = [];
  let time = '';
  let batch = 0;
  let source = '';
  const titleIndex = lines.findIndex((l) => l.trim() !== '');

  lines.forEach((raw, index) => {
    const lineNo = index + 1;
    const line = raw.trimEnd();
    if (line.trim() === '') return;
    const header = HEADER_RE.exec(line);
    if (header !== null) {
      time = header[1]!;
      source = (header[2] ?? '').trim();
      batch = lineNo;
      return;
    }
    if (index === titleIndex && line === `# ${date}`) return;
    const bullet = BULLET_RE.exec(line);
    if (bullet === null) {
      skipped.push({ line: lineNo, reason: line.startsWith('#') ? 'heading that is not a batch header' : 'not a fact line', excerpt: excerpt(line) });
      return;
    }
    const fact = parseFactBody(line.slice(bullet[0].length));
    if ('reason' in fact) {
      skipped.push({ line: lineNo, reason: fact.reason, excerpt: excerpt(line) });
      return;
    }
    bodies.push({ line: lineNo, time, batch, source, body: fact, text: line });
  });

  // Ids written in the file are claimed first (the first line with an id keeps it), so a line a person
  // adds without an id, above a line with the same text, never takes that line's id.
  const claimed = new Set<string>();
  const repeated = new Set<number>();
  for (const { line, body } of bodies) {
    if (body.id === undefined) continue;
    if (claimed.has(body.id)) repeated.add(line);
    else claimed.add(body.id);
  }
  // A derived id counts the lines of the same batch and text before it; when every line has its own id
  // (what the program writes) none is derived, and the count is not kept.
  const ordinals = repeated.size > 0 || bodies.some(({ body }) => body.id === undefined) ? new Map<string, number>() : null;
  for (const { line, time, batch, source, body, text } of bodies) {
    let ordinal = 0;
    if (ordinals !== null) {
      const key = `${time}\u0000${source}\u0000${body.written}`;
      ordinal = ordinals.get(key) ?? 0;
      ordinals.set(key, ordinal + 1);
    }
    if (repeated.has(line)) skipped.push({ line, reason: `duplicate id ^${body.id}; read with a derived id`, excerpt: excerpt(text) });
    const explicitId = body.id !== undefined && !repeated.has(line);
    let id = explicitId ? body.id : undefined;
    if (id === undefined) {
      for (let n = ordinal; id === undefined || claimed.has(id); n++) id = factId(date, time, source, body.written, n);
      claimed.add(id);
    }
    facts.push({ id, date, time, batch, source, category: body.category, text: body.text, tags: body.tags, line, explicitId });
  }
  skipped.sort((a, b) => a.line - b.line);

  return { date, facts, skipped, lineCount: lines.length, endsWithNewline };
}

function excerpt(line: string): string {
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

interface FactBody {
  category: Category;
  text: string;
  /** The text as the line holds it (a keyed fact in brackets): what a derived id hashes, so old ids stay. */
  written: string;
  tags: string[];
  id: string | undefined;
}

// ---------------------------------------------------------------------------------------------
// Keyed facts as Dataview inline fields

// `subject:: value`; a key holds no colon, so `Caroline: I said:: x` is not keyed.
const KEYED_RE = /^([^:]+?)::(.*)$/s;

/**
 * The written form of a fact's text. A keyed fact `home city:: Lisbon` is written `[home city:: Lisbon]`,
 * the bracketed inline field Dataview reads anywhere in a line (the `[category]` before it hides an
 * unbracketed one). Dataview's rules decide when that is safe: the key holds none of `[]()`, and the
 * value's brackets nest (Dataview ends the field at the matching `]`, and reads `\` as an escape).
 */
export function writtenText(text: string): string {
  const keyed = KEYED_RE.exec(text);
  if (keyed === null || /[[\]()]/.test(keyed[1]!) || keyed[1]!.trim() === '') return text;
  const value = keyed[2]!;
  if (value.includes('\\') || !bracketsNest(value)) return text;
  return `[${text}]`;
}

/** The text a written fact stands for: a whole-text bracketed inline field loses its brackets. */
export function factText(written: string): string {
  if (!written.startsWith('[') || !written.endsWith(']')) return written;
  const inner = written.slice(1, -1);
  return writtenText(inner) === written ? inner : written;
}

function bracketsNest(value: string): boolean {
  let depth = 0;
  for (const char of value) {
    if (char === '[') depth++;
    else if (char === ']' && --depth < 0) return false;
  }
  return depth === 0;
}

function parseFactBody(body: string): FactBody | { reason: string } {
  let rest = body;
  let category: Category = 'fact';
  const cat = CATEGORY_RE.exec(rest);
  if (cat !== null) {
    const name = cat[1]!.toLowerCase();
    if (!isCategory(name)) return { reason: `unknown category [${cat[1]}]; use one of ${CATEGORIES.join(', ')}` };
    category = name;
    rest = rest.slice(cat[0].length);
  }
  let id: string | undefined;
  let [head, last] = splitLastToken(rest);
  if (BLOCK_ID_RE.test(last)) {
    id = last.slice(1);
    rest = head;
  }
  // Collected from the end, then reversed: unshift would make a line of many tags quadratic.
  const tags: string[] = [];
  for (;;) {
    [head, last] = splitLastToken(rest);
    if (head === '' || !isTagToken(last)) break;
    tags.push(last.slice(1));
    rest = head;
  }
  tags.reverse();
  const written = rest.trim();
  if (written === '') return { reason: 'fact line without text' };
  return { category, text: factText(written), written, tags, id };
}

/** Splits off the last white-space separated token in linear time (no regex backtracking on long lines). */
function splitLastToken(value: string): [head: string, last: string] {
  let end = value.length;
  while (end > 0 && isSpace(value.charCodeAt(end - 1))) end--;
  let start = end;
  while (start > 0 && !isSpace(value.charCodeAt(start - 1))) start--;
  let headEnd = start;
  while (headEnd > 0 && isSpace(value.charCodeAt(headEnd - 1))) headEnd--;
  return [value.slice(0, headEnd), value.slice(start, end)];
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9;
}

// ---------------------------------------------------------------------------------------------
// Writing

export interface FactInput {
  text: string;
  category?: string | undefined;
  tags?: readonly string[] | undefined;
  /** YYYY-MM-DD; default: today in the vault's time zone. */
  date?: string | undefined;
  /** HH:MM of the batch header; default: the time of the write (an import keeps the source's time). */
  time?: string | undefined;
  /** The batch header's source; default: the call's source (an import keeps each fact's own). */
  source?: string | undefined;
}

export interface CanonicalFact {
  category: Category;
  text: string;
  tags: string[];
}

export const MAX_FACT_CHARS = 100_000;

/**
 * The form a fact is written in: one line of single-spaced text, trailing `#tags` moved into tags,
 * validated category and tags. Parsing the written line gives this form back exactly.
 */
export function canonicalFact(input: FactInput): CanonicalFact {
  const category = (input.category ?? 'fact').trim().toLowerCase();
  if (!isCategory(category)) {
    throw new UsageError(`unknown category '${input.category}'`, `use one of: ${CATEGORIES.join(', ')}`);
  }
  let text = singleLine(input.text);
  // A Set keeps first-seen order and makes many tags linear rather than quadratic.
  const tags = new Set<string>();
  for (const raw of input.tags ?? []) {
    const tag = raw.trim().replace(/^#/, '');
    if (!isTagToken(`#${tag}`)) {
      throw new UsageError(`invalid tag '${raw}'`, 'tags hold letters, digits, _, - and /, and at least one non-digit');
    }
    tags.add(tag);
  }
  // Trailing #tags in the text are tags (Obsidian reads them so, and so does the parser).
  const trailing: string[] = [];
  for (;;) {
    const [head, last] = splitLastToken(text);
    if (head === '' || !isTagToken(last)) break;
    trailing.push(last.slice(1));
    text = head;
  }
  for (const tag of trailing.reverse()) tags.add(tag);
  // `[home city:: Lisbon]` given as text is the keyed fact `home city:: Lisbon` in its written form.
  text = factText(text);
  if (text === '') throw new UsageError('a fact needs some text');
  if (text.length > MAX_FACT_CHARS) {
    throw new UsageError(`a fact is limited to ${MAX_FACT_CHARS} characters (this one has ${text.length})`, 'split it into several facts');
  }
  return { category, text, tags: [...tags] };
}

/** Collapses any white space, line breaks and control characters to single spaces. */
export function singleLine(value: string): string {
  return value
    .toWellFormed()
    .replace(/[\p{Cc}\p{Zl}\p{Zp}\uFEFF]+/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}

export function formatFactLine(fact: CanonicalFact, id: string): string {
  const tags = fact.tags.map((t) => ` #${t}`).join('');
  return `- [${fact.category}] ${writtenText(fact.text)}${tags} ^${id}`;
}

export function formatBatchHeader(time: string, source: string): string {
  return `## ${time} · ${source}`;
}

export interface AppendedFact extends CanonicalFact {
  id: string;
  date: string;
  time: string;
  source: string;
  path: string;
  line: number;
}

/**
 * Appends one batch (a header and its fact lines) to the log of `date`, in one write.
 * The caller holds the vault's write lock, which makes the read-then-append safe across processes.
 */
export async function appendBatch(
  lock: WriteLock,
  date: string,
  time: string,
  source: string,
  facts: readonly CanonicalFact[],
): Promise<AppendedFact[]> {
  if (facts.length === 0) return [];
  const rel = logRelPath(date);
  const file = await confinedPath(lock.root, rel);
  await mkdir(path.dirname(file), { recursive: true });
  let raw: Buffer;
  try {
    raw = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    raw = Buffer.alloc(0);
  }
  const existing = parseLog(raw, date);
  const ordinals = new Map<string, number>();
  const taken = new Set<string>();
  for (const fact of existing.facts) {
    const key = `${fact.time}\u0000${fact.source}\u0000${fact.text}`;
    ordinals.set(key, (ordinals.get(key) ?? 0) + 1);
    taken.add(fact.id);
  }
  const cleanSource = singleLine(source) || 'unknown';

  const lines: string[] = [];
  let prefix: string;
  let nextLine: number;
  if (existing.lineCount === 0) {
    prefix = `# ${date}\n\n`;
    nextLine = 3;
  } else {
    // Start on a fresh line even if a hand edit left the file without a final newline. A lone CR at the
    // end would join our first \n into one CRLF break, so it counts as no newline.
    prefix = existing.endsWithNewline && raw.at(-1) !== 0x0d ? '\n' : '\n\n';
    nextLine = existing.lineCount + 2;
  }
  lines.push(formatBatchHeader(time, cleanSource));
  nextLine += 1;
  const appended: AppendedFact[] = [];
  for (const fact of facts) {
    const key = `${time}\u0000${cleanSource}\u0000${fact.text}`;
    let ordinal = ordinals.get(key) ?? 0;
    // The id hashes the text as the line holds it (a keyed fact in brackets), as a derived id does, so a
    // line that loses its ^id to a hand edit is still read with the id pages cite.
    const written = writtenText(fact.text);
    let id = factId(date, time, cleanSource, written, ordinal);
    // Never reuse an id the file already holds (written, or derived for a line without one).
    while (taken.has(id)) id = factId(date, time, cleanSource, written, ++ordinal);
    ordinals.set(key, ordinal + 1);
    taken.add(id);
    lines.push(formatFactLine(fact, id));
    appended.push({ ...fact, id, date, time, source: cleanSource, path: rel, line: nextLine });
    nextLine += 1;
  }
  const chunk = Buffer.from(`${prefix}${lines.join('\n')}\n`, 'utf8');
  // O_NOFOLLOW: a link swapped in after the check above is refused, not followed.
  const handle = await open(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
  let before = 0;
  try {
    before = (await handle.stat()).size;
    try {
      let offset = 0;
      while (offset < chunk.length) {
        const { bytesWritten } = await handle.write(chunk, offset);
        offset += bytesWritten;
      }
      await handle.sync();
    } catch (error) {
      // A full disk (or any failed write) must not leave a torn line the parser would read as a fact:
      // the log goes back to its previous length.
      await handle.truncate(before).catch(() => undefined);
      throw appendError(rel, error);
    }
  } finally {
    await handle.close();
  }
  // A new day's log is an entry in logs/: flushed too, or a power cut could keep the lines but lose the file.
  if (before === 0) await syncDir(path.dirname(file));
  return appended;
}

/** A failed append, after the rollback: one line that says what happened and what to do. */
function appendError(rel: string, error: unknown): VaultkeeperError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new VaultkeeperError('VK_DISK_FULL', `the disk is full: nothing was written to ${rel}`, { hint: 'free some space, then run the command again', cause: error });
  }
  return new VaultkeeperError('VK_APPEND_FAILED', `could not append to ${rel} (${code ?? String(error)}); nothing was written`, { hint: 'check the disk and the file\'s permissions, then run the command again', cause: error });
}

/**
 * Replaces a log whole with `transform` of its text: only `purge` does this (DESIGN §5: a tombstone hides, purge
 * erases), after an explicit confirmation; the caller holds the write lock and commits. Returns whether it changed.
 */
export async function rewriteLog(lock: WriteLock, date: string, transform: (text: string) => string): Promise<boolean> {
  const rel = logRelPath(date);
  const file = await confinedPath(lock.root, rel);
  const before = await readFile(file, 'utf8');
  const after = transform(before);
  if (after === before) return false;
  await writeFileAtomic(file, after);
  return true;
}
