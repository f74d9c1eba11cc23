/**
 * The transcript formats vaultkeeper reads, in the order they are tried: the first whose detector
 * recognises the content reads it. Detectors look at the content's shape only, never the file name, and
 * the most specific come first (every agent's JSONL would pass for "JSON lines with a role" otherwise).
 */
import { aider } from './aider.js';
import { claudeCode } from './claude-code.js';
import { codex } from './codex.js';
import { continueDev } from './continue.js';
import { cursorMarkdown } from './cursor-markdown.js';
import { gemini } from './gemini.js';
import { openai } from './openai.js';
import { openclaw } from './openclaw.js';
import { textChat } from './text.js';
import type { FormatReader, Probe } from './turns.js';

export const FORMAT_READERS: readonly FormatReader[] = [claudeCode, codex, openclaw, gemini, continueDev, openai, cursorMarkdown, aider, textChat];

/** The names `ingest` reads, for messages: Cursor's SQLite store is read from bytes (cursor.ts). */
export const FORMAT_NAMES = ['Claude Code', 'Codex CLI', 'OpenClaw', 'Gemini CLI', 'Continue', 'OpenAI messages', 'Cursor (state.vscdb or markdown export)', 'Aider', 'User:/Assistant: chats'];

export function detectFormat(probe: Probe): FormatReader | null {
  return FORMAT_READERS.find((reader) => reader.detect(probe)) ?? null;
}
