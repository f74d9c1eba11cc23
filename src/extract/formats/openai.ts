/**
 * OpenAI-style message lists: an array of `{role, content}`, `{messages: […]}`, or one message a line.
 * System, developer and tool messages are left out; an assistant message of tool calls only has no text.
 */
import { ASSISTANT_BLOCKS, contentText, isRecord, parseTime, tryJson, USER_BLOCKS, type FormatReader, type Probe, type Role, type Transcript, type Turn } from './turns.js';

const USER_ROLES = new Set(['user', 'human']);
const ASSISTANT_ROLES = new Set(['assistant', 'ai', 'model', 'bot']);
const OTHER_ROLES = new Set(['system', 'developer', 'tool', 'function']);
const ROLES = new Set([...USER_ROLES, ...ASSISTANT_ROLES, ...OTHER_ROLES]);

const isMessage = (m: unknown): boolean => isRecord(m) && typeof m.role === 'string' && ROLES.has(m.role.toLowerCase()) && 'content' in m;

function messagesOf(json: unknown): unknown[] | null {
  if (Array.isArray(json)) return json;
  if (isRecord(json) && Array.isArray(json.messages)) return json.messages as unknown[];
  return null;
}

export const openai: FormatReader = {
  format: 'openai',
  detect: (probe) => {
    const messages = messagesOf(probe.json);
    if (messages !== null) return messages.some(isMessage);
    return probe.json === undefined && probe.records.length > 0 && probe.records.some(isMessage);
  },
  read: (probe) => readOpenAi(probe),
};

function readOpenAi(probe: Probe): Transcript {
  const messages = messagesOf(probe.json) ?? probe.text.split(/\r?\n/).filter((line) => line.trim() !== '').map((line) => { const parsed = tryJson(line); return parsed.ok ? parsed.value : null; });
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

/** The turn a message holds, 'skip' for a message that is fine but not a turn, null for a malformed one. */
function openAiTurn(message: unknown, index: number): Turn | 'skip' | null {
  if (!isRecord(message) || typeof message.role !== 'string') return null;
  const role = message.role.toLowerCase();
  if (OTHER_ROLES.has(role)) return 'skip';
  const kind: Role | null = USER_ROLES.has(role) ? 'user' : ASSISTANT_ROLES.has(role) ? 'assistant' : null;
  if (kind === null) return null;
  if (message.content === null || message.content === undefined) return kind === 'assistant' ? 'skip' : null;
  const said = contentText(message.content, kind === 'user' ? USER_BLOCKS : ASSISTANT_BLOCKS);
  if (said === null) return null;
  if (said.trim() === '') return 'skip';
  return { role: kind, text: said.trim(), at: parseTime(message.timestamp ?? message.created_at ?? message.create_time ?? message.time), index };
}
