/**
 * Claude Code's sessions (~/.claude/projects/<project>/<session>.jsonl): one JSON object a line, `type`
 * user/assistant with `message.content` a string or content blocks; summaries and snapshots between.
 */
import { ASSISTANT_BLOCKS, contentText, isRecord, jsonLines, parseTime, text, USER_BLOCKS, type FormatReader, type Transcript, type Turn } from './turns.js';

/** Tags Claude Code wraps around slash commands, hook output and reminders: not what the person said. */
const HARNESS_BLOCK_RE = /<(command-name|command-message|command-args|command-contents|local-command-stdout|local-command-stderr|system-reminder|user-memory-input|bash-input|bash-stdout|bash-stderr)>[\s\S]*?<\/\1>/g;
const INTERRUPTED_RE = /^\[Request interrupted by user[^\]]*\]$/;

function isEntry(value: Record<string, unknown>): boolean {
  if (value.type === 'summary' && 'leafUuid' in value) return true;
  return (value.type === 'user' || value.type === 'assistant') && isRecord(value.message) && ('sessionId' in value || 'uuid' in value);
}

export const claudeCode: FormatReader = {
  format: 'claude-code',
  detect: (probe) => probe.records.some(isEntry),
  read: (probe) => readClaudeCode(probe.text),
};

export function readClaudeCode(content: string): Transcript {
  const turns: Turn[] = [];
  const { records, skipped } = jsonLines(content);
  let skippedLines = skipped;
  let sessionId: string | undefined;
  let cwd: string | undefined;
  for (const entry of records) {
    sessionId ??= text(entry.sessionId);
    cwd ??= text(entry.cwd);
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
    const said = entry.type === 'user' ? cleanHarnessText(raw) : raw.trim();
    if (said === '') continue; // tool results, tool calls, thinking
    const last = turns.at(-1);
    // Claude Code writes one line per content block of an assistant message.
    if (entry.type === 'assistant' && last?.role === 'assistant') {
      last.text = `${last.text}\n\n${said}`;
      continue;
    }
    turns.push({ role: entry.type, text: said, at: parseTime(entry.timestamp), index: turns.length });
  }
  return { format: 'claude-code', turns, sessionId, cwd, skippedLines };
}

function cleanHarnessText(raw: string): string {
  const cleaned = raw.replace(HARNESS_BLOCK_RE, '').trim();
  return INTERRUPTED_RE.test(cleaned) ? '' : cleaned;
}
