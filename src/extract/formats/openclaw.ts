/**
 * OpenClaw sessions (~/.openclaw/agents/<agent>/sessions/<id>.jsonl): a `{type: "session", id, timestamp,
 * cwd}` header, then `{type: "message", timestamp, message: {role, content: [blocks]}}` lines; roles
 * user, assistant and toolResult (left out), blocks text, thinking and tool calls (only text is read).
 */
import { contentText, isRecord, readTurnLines, type FormatReader, type Transcript } from './turns.js';

const TEXT_BLOCKS: ReadonlySet<string> = new Set(['text']);

/**
 * What OpenClaw itself sends as the user at the start of a session (`/new`, `/reset`) and on its heartbeat
 * (observed in public session logs): instructions to the agent, not the person.
 */
const HARNESS_RE = /^\s*(A new session was started via \/new or \/reset\b|Read HEARTBEAT\.md\b)/;

export const openclaw: FormatReader = {
  format: 'openclaw',
  detect: (probe) =>
    probe.records.some((r) => r.type === 'message' && isRecord(r.message) && typeof r.message.role === 'string') ||
    probe.records.some((r) => r.type === 'session' && typeof r.id === 'string' && 'cwd' in r),
  read: (probe) => readOpenClaw(probe.text),
};

export function readOpenClaw(content: string): Transcript {
  return readTurnLines('openclaw', content, (record) => {
    if (record.type === 'session') return { session: { id: record.id, cwd: record.cwd, at: record.timestamp } };
    if (record.type !== 'message') return null; // model changes, custom events
    const message = record.message;
    if (!isRecord(message)) return { role: 'user', said: null, at: undefined };
    const role = message.role === 'user' ? 'user' : message.role === 'assistant' ? 'assistant' : null;
    if (role === null) return null; // tool results
    const said = contentText(message.content, TEXT_BLOCKS);
    if (said !== null && role === 'user' && HARNESS_RE.test(said)) return null;
    if (said !== null && role === 'assistant' && said.trim() === 'HEARTBEAT_OK') return null; // the answer to a heartbeat
    return { role, said, at: record.timestamp ?? message.timestamp };
  });
}
