/**
 * Gemini CLI sessions (~/.gemini/tmp/<project hash>/chats/session-<time>-<id>.json): one JSON document
 * `{sessionId, projectHash, startTime, messages: [{id, timestamp, type, content}]}` with type user or
 * gemini (info, error and warning messages are the CLI's own). Its older per-project logs.json (an array
 * of `{sessionId, messageId, type: "user", message, timestamp}`) holds the person's prompts only.
 */
import { contentText, isRecord, parseTime, pushTurn, text, type FormatReader, type Probe, type Transcript, type Turn } from './turns.js';

const TEXT_BLOCKS: ReadonlySet<string> = new Set(['text']);

function isSession(json: unknown): json is Record<string, unknown> & { messages: unknown[] } {
  return isRecord(json) && Array.isArray(json.messages) && ('projectHash' in json || json.messages.some((m) => isRecord(m) && (m.type === 'gemini' || m.type === 'user') && !('role' in m)));
}

function isLog(json: unknown): json is unknown[] {
  return Array.isArray(json) && json.length > 0 && json.every((m) => isRecord(m) && 'sessionId' in m && 'messageId' in m && typeof m.type === 'string');
}

export const gemini: FormatReader = {
  format: 'gemini',
  detect: (probe) => isSession(probe.json) || isLog(probe.json),
  read: (probe) => readGemini(probe),
};

function readGemini(probe: Probe): Transcript {
  const json = probe.json;
  const turns: Turn[] = [];
  let skippedLines = 0;
  if (isLog(json)) {
    let sessionId: string | undefined;
    for (const entry of json as Array<Record<string, unknown>>) {
      sessionId ??= text(entry.sessionId);
      if (entry.type !== 'user' || typeof entry.message !== 'string') continue;
      pushTurn(turns, 'user', entry.message, parseTime(entry.timestamp), false);
    }
    return { format: 'gemini', turns, sessionId, skippedLines };
  }
  const session = json as Record<string, unknown> & { messages: unknown[] };
  for (const message of session.messages) {
    if (!isRecord(message)) {
      skippedLines++;
      continue;
    }
    const role = message.type === 'user' ? 'user' : message.type === 'gemini' ? 'assistant' : null;
    if (role === null) continue; // info, error, warning
    const said = contentText(message.content, TEXT_BLOCKS);
    if (said === null) {
      skippedLines++;
      continue;
    }
    pushTurn(turns, role, said, parseTime(message.timestamp));
  }
  return { format: 'gemini', turns, sessionId: text(session.sessionId), startedAt: parseTime(session.startTime), skippedLines };
}
