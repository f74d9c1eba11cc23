/**
 * Agent transcripts read into turns: Claude Code's JSONL sessions, OpenAI-style message JSON (an array,
 * `{messages: […]}`, or one message a line) and plain text or markdown chats. Readers never throw on
 * what they cannot read: a malformed line or message is skipped and counted.
 */
import path from 'node:path';

export type Role = 'user' | 'assistant';

export interface Turn {
  role: Role;
  text: string;
  /** When the turn was said, if the transcript records it. */
  at?: Date | undefined;
  /** 0-based position among the transcript's turns. */
  index: number;
}

export type TranscriptFormat = 'claude-code' | 'openai' | 'text';

export interface Transcript {
  format: TranscriptFormat;
  turns: Turn[];
  /** Claude Code's session id, when the transcript names one. */
  sessionId?: string | undefined;
  cwd?: string | undefined;
  /** Lines (or messages) that could not be read. */
  skippedLines: number;
}

/** Reads a transcript in whichever supported format it is in; `fileName` only breaks ties. */
export function parseTranscript(content: string, fileName = ''): Transcript {
  const text = content.replace(/^\uFEFF/, '');
  const trimmed = text.trim();
  const ext = path.extname(fileName).toLowerCase();
  if (trimmed === '') return { format: ext === '.jsonl' ? 'claude-code' : 'text', turns: [], skippedLines: 0 };
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    const whole = tryJson(trimmed);
    if (whole.ok && !(isRecord(whole.value) && isClaudeEntry(whole.value))) return parseOpenAiMessages(whole.value);
    const kind = jsonlKind(text);
    if (kind === 'openai') return parseOpenAiJsonl(text);
    if (kind === 'claude-code') return parseClaudeCodeJsonl(text);
    // Looks like JSON but no line of it reads: a broken file, not a chat written in prose.
    if (ext === '.json' || ext === '.jsonl') {
      return { format: ext === '.json' ? 'openai' : 'claude-code', turns: [], skippedLines: nonBlankLines(text) };
    }
  } else if (ext === '.jsonl') {
    return parseClaudeCodeJsonl(text);
  }
  return parseTextChat(text);
}

// ---------------------------------------------------------------------------------------------
// Claude Code

/** Tags Claude Code wraps around slash commands, hook output and reminders: not what the person said. */
const HARNESS_BLOCK_RE = /<(command-name|command-message|command-args|command-contents|local-command-stdout|local-command-stderr|system-reminder|user-memory-input|bash-input|bash-stdout|bash-stderr)>[\s\S]*?<\/\1>/g;
const INTERRUPTED_RE = /^\[Request interrupted by user[^\]]*\]$/;

/** One JSON object a line: `type` user/assistant, `message.content` a string or content blocks. */
export function parseClaudeCodeJsonl(content: string): Transcript {
  const turns: Turn[] = [];
  let skippedLines = 0;
  let sessionId: string | undefined;
  let cwd: string | undefined;
  for (const line of content.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const parsed = tryJson(line);
    if (!parsed.ok || !isRecord(parsed.value)) {
      skippedLines++;
      continue;
    }
    const entry = parsed.value;
    if (typeof entry.sessionId === 'string' && entry.sessionId !== '') sessionId ??= entry.sessionId;
    if (typeof entry.cwd === 'string' && entry.cwd !== '') cwd ??= entry.cwd;
    if (entry.type !== 'user' && entry.type !== 'assistant') continue; // summaries, snapshots, system notes
    // A sidechain is the agent talking to its own sub-agent; meta entries are the harness's.
    if (entry.isSidechain === true || entry.isMeta === true) continue;
    const message = entry.message;
    if (!isRecord(message) || !('content' in message)) {
      skippedLines++;
      continue;
    }
    const raw = contentText(message.content, entry.type === 'user' ? USER_BLOCKS : ASSISTANT_BLOCKS);
    if (raw === null) {
      skippedLines++;
      continue;
    }
    const text = entry.type === 'user' ? cleanHarnessText(raw) : raw.trim();
    if (text === '') continue; // tool results, tool calls, thinking
    const at = parseTime(entry.timestamp);
    const last = turns.at(-1);
    // Claude Code writes one line per content block of an assistant message.
    if (entry.type === 'assistant' && last?.role === 'assistant') {
      last.text = `${last.text}\n\n${text}`;
      continue;
    }
    turns.push({ role: entry.type, text, at, index: turns.length });
  }
  return { format: 'claude-code', turns, sessionId, cwd, skippedLines };
}

function cleanHarnessText(text: string): string {
  const cleaned = text.replace(HARNESS_BLOCK_RE, '').trim();
  return INTERRUPTED_RE.test(cleaned) ? '' : cleaned;
}

function isClaudeEntry(value: Record<string, unknown>): boolean {
  return (typeof value.type === 'string' && ('message' in value || 'sessionId' in value || 'uuid' in value)) || 'leafUuid' in value;
}

// ---------------------------------------------------------------------------------------------
// OpenAI-style messages

const USER_ROLES = new Set(['user', 'human']);
const ASSISTANT_ROLES = new Set(['assistant', 'ai', 'model', 'bot']);
const OTHER_ROLES = new Set(['system', 'developer', 'tool', 'function']);

/** An array of `{role, content}`, or `{messages: […]}`; system and tool messages are left out. */
export function parseOpenAiMessages(value: unknown): Transcript {
  const messages = Array.isArray(value) ? value : isRecord(value) && Array.isArray(value.messages) ? (value.messages as unknown[]) : isRecord(value) && 'role' in value ? [value] : null;
  if (messages === null) return { format: 'openai', turns: [], skippedLines: 1 };
  const turns: Turn[] = [];
  let skippedLines = 0;
  for (const message of messages) {
    const turn = openAiTurn(message, turns.length);
    if (turn === 'skip') continue;
    if (turn === null) skippedLines++;
    else turns.push(turn);
  }
  return { format: 'openai', turns, skippedLines };
}

function parseOpenAiJsonl(content: string): Transcript {
  const turns: Turn[] = [];
  let skippedLines = 0;
  for (const line of content.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const parsed = tryJson(line);
    const turn = parsed.ok ? openAiTurn(parsed.value, turns.length) : null;
    if (turn === 'skip') continue;
    if (turn === null) skippedLines++;
    else turns.push(turn);
  }
  return { format: 'openai', turns, skippedLines };
}

/** The turn a message holds, 'skip' for a message that is fine but not a turn, null for a malformed one. */
function openAiTurn(message: unknown, index: number): Turn | 'skip' | null {
  if (!isRecord(message) || typeof message.role !== 'string') return null;
  const role = message.role.toLowerCase();
  if (OTHER_ROLES.has(role)) return 'skip';
  const kind: Role | null = USER_ROLES.has(role) ? 'user' : ASSISTANT_ROLES.has(role) ? 'assistant' : null;
  if (kind === null) return null;
  // An assistant message holding only tool calls has null content.
  if (message.content === null || message.content === undefined) return kind === 'assistant' ? 'skip' : null;
  const text = contentText(message.content, kind === 'user' ? USER_BLOCKS : ASSISTANT_BLOCKS);
  if (text === null) return null;
  if (text.trim() === '') return 'skip';
  return { role: kind, text: text.trim(), at: parseTime(message.timestamp ?? message.created_at ?? message.create_time ?? message.time), index };
}

// ---------------------------------------------------------------------------------------------
// Plain text and markdown

const SPEAKER = '(user|human|me|assistant|ai|claude|chatgpt|gpt|bot|model)';
const HEADING_RE = new RegExp(`^#{1,6}\\s+\\**\\s*${SPEAKER}\\s*\\**\\s*:?\\s*$`, 'i');
const PREFIX_RE = new RegExp(`^\\**\\s*${SPEAKER}\\s*\\**\\s*:\\s*\\**\\s*(.*)$`, 'i');

/** "User: …" / "Assistant: …" lines or "## User" headings; else the whole text is one user turn. */
export function parseTextChat(content: string): Transcript {
  const lines = content.split(/\r\n|\r|\n/);
  const turns: Turn[] = [];
  let current: { role: Role; lines: string[] } | null = null;
  let fence = false;
  const flush = (): void => {
    if (current === null) return;
    const text = current.lines.join('\n').trim();
    if (text !== '') turns.push({ role: current.role, text, index: turns.length });
    current = null;
  };
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const heading = fence ? null : HEADING_RE.exec(line.trim());
    const prefix = fence || heading !== null ? null : PREFIX_RE.exec(line.trim());
    const marker = heading ?? prefix;
    if (marker !== null) {
      flush();
      current = { role: speakerRole(marker[1]!), lines: prefix?.[2] === undefined || prefix[2] === '' ? [] : [prefix[2]] };
      continue;
    }
    current?.lines.push(line);
  }
  flush();
  const sawMarker = lines.some((line) => HEADING_RE.test(line.trim()) || PREFIX_RE.test(line.trim()));
  if (!sawMarker) {
    const text = content.trim();
    return { format: 'text', turns: text === '' ? [] : [{ role: 'user', text, index: 0 }], skippedLines: 0 };
  }
  return { format: 'text', turns, skippedLines: 0 };
}

function speakerRole(name: string): Role {
  const lower = name.toLowerCase();
  return lower === 'user' || lower === 'human' || lower === 'me' ? 'user' : 'assistant';
}

// ---------------------------------------------------------------------------------------------
// Shared

const USER_BLOCKS = new Set(['text', 'input_text']);
const ASSISTANT_BLOCKS = new Set(['text', 'output_text']);

/** A message's text: a string, or the text of its content blocks of the given types; null when neither. */
function contentText(content: unknown, textBlocks: ReadonlySet<string>): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === 'string') parts.push(block);
    else if (isRecord(block) && typeof block.type === 'string' && textBlocks.has(block.type) && typeof block.text === 'string') parts.push(block.text);
  }
  return parts.join('\n\n');
}

/** An ISO time, or epoch seconds or milliseconds; undefined when absent or unreadable. */
export function parseTime(value: unknown): Date | undefined {
  let date: Date | undefined;
  if (typeof value === 'string' && value.trim() !== '') date = new Date(value);
  else if (typeof value === 'number' && Number.isFinite(value) && value > 0) date = new Date(value < 1e12 ? value * 1000 : value);
  return date === undefined || Number.isNaN(date.getTime()) ? undefined : date;
}

/** Which JSONL dialect the lines are in, judged by the first lines that parse; null when none does. */
function jsonlKind(content: string): 'claude-code' | 'openai' | null {
  let seen = 0;
  for (const line of content.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const parsed = tryJson(line);
    if (!parsed.ok || !isRecord(parsed.value)) continue;
    if (isClaudeEntry(parsed.value) || 'sessionId' in parsed.value) return 'claude-code';
    if (typeof parsed.value.role === 'string') return 'openai';
    if (++seen >= 20) break;
  }
  return seen > 0 ? 'claude-code' : null;
}

function nonBlankLines(content: string): number {
  return content.split(/\r?\n/).filter((line) => line.trim() !== '').length;
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
