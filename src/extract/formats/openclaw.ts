/**
 * OpenClaw sessions (~/.openclaw/agents/<agent>/sessions/<id>.jsonl): a `{type: "session", id, timestamp,
 * cwd}` header, then `{type: "message", timestamp, message: {role, content: [blocks]}}` lines; roles
 * user, assistant and toolResult (left out), blocks text, thinking and tool calls (only text is read).
 */
import { contentText, isRecord, jsonLines, parseTime, pushTurn, text, type FormatReader, type Transcript, type Turn } from './turns.js';

const TEXT_BLOCKS: ReadonlySet<string> = new Set(['text']);

export const openclaw: FormatReader = {
  format: 'openclaw',
  detect: (probe) =>
    probe.records.some((r) => r.type === 'message' && isRecord(r.message) && typeof r.message.role === 'string') ||
    probe.records.some((r) => r.type === 'session' && typeof r.id === 'string' && 'cwd' in r),
  read: (probe) => readOpenClaw(probe.text),
};

export function readOpenClaw(content: string): Transcript {
  const turns: Turn[] = [];
  const { records, skipped } = jsonLines(content);
  let skippedLines = skipped;
  let sessionId: string | undefined;
  let cwd: string | undefined;
  let startedAt: Date | undefined;
  for (const record of records) {
    if (record.type === 'session') {
      sessionId ??= text(record.id);
      cwd ??= text(record.cwd);
      startedAt ??= parseTime(record.timestamp);
      continue;
    }
    if (record.type !== 'message') continue; // model changes, custom events
    const message = record.message;
    if (!isRecord(message)) {
      skippedLines++;
      continue;
    }
    const role = message.role === 'user' ? 'user' : message.role === 'assistant' ? 'assistant' : null;
    if (role === null) continue; // tool results
    const said = contentText(message.content, TEXT_BLOCKS);
    if (said === null) {
      skippedLines++;
      continue;
    }
    pushTurn(turns, role, said, parseTime(record.timestamp ?? message.timestamp));
  }
  return { format: 'openclaw', turns, sessionId, cwd, startedAt, skippedLines };
}
