/**
 * Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl): one `{timestamp, type,
 * payload}` a line; `session_meta` names the session and its cwd, `response_item` lines of payload type
 * `message` are the conversation (content blocks `input_text` / `output_text`). Older rollouts wrote the
 * items bare (`{type: "message", role, content}`) after a first line `{id, timestamp, instructions}`.
 */
import { ASSISTANT_BLOCKS, contentText, isRecord, readTurnLines, USER_BLOCKS, type FormatReader, type Transcript } from './turns.js';

/** What Codex itself puts in a user message: the environment, AGENTS.md, the person's standing instructions. */
const HARNESS_RE = /^\s*(<environment_context>|<user_instructions>|<permissions instructions>|# AGENTS\.md instructions)/;

const ROLLOUT_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);

function bareItem(value: Record<string, unknown>): boolean {
  return value.type === 'message' && typeof value.role === 'string' && Array.isArray(value.content) && value.content.some((b) => isRecord(b) && (b.type === 'input_text' || b.type === 'output_text'));
}

export const codex: FormatReader = {
  format: 'codex',
  detect: (probe) => probe.records.some((r) => (typeof r.type === 'string' && ROLLOUT_TYPES.has(r.type) && isRecord(r.payload)) || bareItem(r)),
  read: (probe) => readCodex(probe.text),
};

export function readCodex(content: string): Transcript {
  return readTurnLines('codex', content, (record) => {
    const item = isRecord(record.payload) ? record.payload : record;
    if (record.type === 'session_meta' || (record.payload === undefined && 'instructions' in record && 'id' in record)) {
      return { session: { id: item.id, cwd: item.cwd, at: item.timestamp ?? record.timestamp } };
    }
    if (record.payload !== undefined && record.type !== 'response_item') return null; // events repeat the items
    if (item.type !== 'message') return null; // tool calls, reasoning, state
    const role = item.role === 'user' ? 'user' : item.role === 'assistant' ? 'assistant' : null;
    if (role === null) return null; // developer and system messages
    const said = contentText(item.content, role === 'user' ? USER_BLOCKS : ASSISTANT_BLOCKS);
    if (said !== null && role === 'user' && HARNESS_RE.test(said)) return null;
    return { role, said, at: record.timestamp ?? item.timestamp };
  });
}
