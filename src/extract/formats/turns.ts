/**
 * What every transcript reader returns, and the small parsing helpers they share. A reader never
 * throws on what it cannot read: a malformed line or message is skipped and counted.
 */
export type Role = 'user' | 'assistant';

export interface Turn {
  role: Role;
  text: string;
  /** When the turn was said, if the transcript records it. */
  at?: Date | undefined;
  /** 0-based position among the transcript's turns. */
  index: number;
}

export type TranscriptFormat =
  | 'claude-code'
  | 'codex'
  | 'gemini'
  | 'openclaw'
  | 'cursor'
  | 'cursor-markdown'
  | 'aider'
  | 'continue'
  | 'openai'
  | 'text'
  | 'empty';

export interface Transcript {
  format: TranscriptFormat;
  turns: Turn[];
  /** The agent's own id of the session, when the transcript names one. */
  sessionId?: string | undefined;
  cwd?: string | undefined;
  /** When the transcript says the session (or its export) began: the date of turns with no time of their own. */
  startedAt?: Date | undefined;
  /** Lines (or messages) that could not be read. */
  skippedLines: number;
}

/** The content a reader is asked about: the text, its whole-JSON value if it is one, its first JSON lines. */
export interface Probe {
  text: string;
  /** The whole text parsed as one JSON value; undefined when it is not one. */
  json: unknown;
  /** The first lines (up to 40) that parse as JSON objects, for JSONL formats to recognise. */
  records: Array<Record<string, unknown>>;
}

export interface FormatReader {
  format: TranscriptFormat;
  /** Whether the content is in this format: judged on its shape, never on the file's name. */
  detect(probe: Probe): boolean;
  read(probe: Probe): Transcript;
}

export function makeProbe(text: string): Probe {
  const trimmed = text.trim();
  const whole = trimmed.startsWith('{') || trimmed.startsWith('[') ? tryJson(trimmed) : { ok: false as const };
  const records: Array<Record<string, unknown>> = [];
  if (!whole.ok || !isRecord(whole.value) || 'type' in whole.value) {
    for (const line of text.split(/\r?\n/)) {
      if (!line.trimStart().startsWith('{')) continue;
      const parsed = tryJson(line);
      if (parsed.ok && isRecord(parsed.value)) records.push(parsed.value);
      if (records.length >= 40) break;
    }
  }
  return { text, json: whole.ok ? whole.value : undefined, records };
}

/** Each line parsed as JSON: the objects, and a count of the lines that were not objects. */
export function jsonLines(text: string): { records: Array<Record<string, unknown>>; skipped: number } {
  const records: Array<Record<string, unknown>> = [];
  let skipped = 0;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const parsed = tryJson(line);
    if (parsed.ok && isRecord(parsed.value)) records.push(parsed.value);
    else skipped++;
  }
  return { records, skipped };
}

/** What a reader makes of one line of a JSONL transcript. */
export type LineReading =
  /** The session's header: its id, working folder and start (the first of each is kept). */
  | { session: { id: unknown; cwd: unknown; at: unknown } }
  /** A message: its text (null when unreadable, counted as skipped) and when it was said. */
  | { role: Role; said: string | null; at: unknown }
  /** Not a turn: events, tool calls, state, the harness's own text. */
  | null;

/**
 * The loop every JSONL session format shares (Codex, OpenClaw): each line read by `readLine`, session headers
 * noted once, messages made turns, unreadable lines counted.
 */
export function readTurnLines(format: TranscriptFormat, content: string, readLine: (record: Record<string, unknown>) => LineReading): Transcript {
  const turns: Turn[] = [];
  const { records, skipped } = jsonLines(content);
  let skippedLines = skipped;
  let sessionId: string | undefined;
  let cwd: string | undefined;
  let startedAt: Date | undefined;
  for (const record of records) {
    const reading = readLine(record);
    if (reading === null) continue;
    if ('session' in reading) {
      sessionId ??= text(reading.session.id);
      cwd ??= text(reading.session.cwd);
      startedAt ??= parseTime(reading.session.at);
      continue;
    }
    if (reading.said === null) skippedLines++;
    else pushTurn(turns, reading.role, reading.said, parseTime(reading.at));
  }
  return { format, turns, sessionId, cwd, startedAt, skippedLines };
}

/** Adds a turn, merging it into the previous one when the same speaker goes on (one message split in parts). */
export function pushTurn(turns: Turn[], role: Role, text: string, at: Date | undefined, merge = true): void {
  const clean = text.trim();
  if (clean === '') return;
  const last = turns.at(-1);
  if (merge && last?.role === role && role === 'assistant') {
    last.text = `${last.text}\n\n${clean}`;
    return;
  }
  turns.push({ role, text: clean, at, index: turns.length });
}

export const USER_BLOCKS: ReadonlySet<string> = new Set(['text', 'input_text']);
export const ASSISTANT_BLOCKS: ReadonlySet<string> = new Set(['text', 'output_text']);

/** A message's text: a string, or the text of its content blocks of the given types; null when neither. */
export function contentText(content: unknown, textBlocks: ReadonlySet<string>): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === 'string') parts.push(block);
    else if (isRecord(block) && typeof block.text === 'string' && (block.type === undefined || (typeof block.type === 'string' && textBlocks.has(block.type)))) parts.push(block.text);
  }
  return parts.join('\n\n');
}

/** An ISO time, or epoch seconds or milliseconds (also as digits in a string); undefined when absent or unreadable. */
export function parseTime(value: unknown): Date | undefined {
  let date: Date | undefined;
  if (typeof value === 'string' && /^\d{10,13}$/.test(value.trim())) return parseTime(Number(value));
  if (typeof value === 'string' && value.trim() !== '') date = new Date(value);
  else if (typeof value === 'number' && Number.isFinite(value) && value > 0) date = new Date(value < 1e12 ? value * 1000 : value);
  return date === undefined || Number.isNaN(date.getTime()) ? undefined : date;
}

export function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
