/**
 * A Claude.ai data export: `conversations.json`, an array of conversations `{uuid, name, created_at,
 * chat_messages}`; each message has `sender` (`human` or `assistant`), `created_at` (ISO) and its words in
 * `text` or in `content` blocks of type `text` (tool blocks are not the person's words and are dropped).
 */
import type { Turn } from '../extract/transcript.js';
import { emptySource, isRecord, sourceLabel, timeOf, type ImportSource } from './source.js';

export function isClaudeAiExport(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0 && value.every((c) => isRecord(c) && Array.isArray(c.chat_messages));
}

export function readClaudeAi(conversations: unknown): ImportSource {
  const out = emptySource('claude-ai');
  for (const conversation of Array.isArray(conversations) ? conversations : []) {
    if (!isRecord(conversation) || !Array.isArray(conversation.chat_messages)) {
      out.unreadable++;
      continue;
    }
    const fallback = timeOf(conversation.created_at);
    const turns: Turn[] = [];
    for (const message of conversation.chat_messages) {
      if (!isRecord(message)) {
        out.unreadable++;
        continue;
      }
      const role = message.sender === 'human' || message.sender === 'user' ? 'user' : message.sender === 'assistant' ? 'assistant' : null;
      if (role === null) continue;
      const text = messageText(message);
      if (text === null) {
        out.unreadable++;
        continue;
      }
      if (text.trim() === '') continue;
      turns.push({ role, text, at: timeOf(message.created_at) ?? fallback, index: turns.length });
    }
    if (turns.length > 0) out.conversations.push({ source: sourceLabel('claude-ai', conversation.uuid), turns });
  }
  return out;
}

function messageText(message: Record<string, unknown>): string | null {
  if (Array.isArray(message.content)) {
    const texts = message.content.filter((b) => isRecord(b) && b.type === 'text' && typeof b.text === 'string').map((b) => (b as { text: string }).text);
    if (texts.length > 0) return texts.join('\n');
  }
  return typeof message.text === 'string' ? message.text : null;
}
