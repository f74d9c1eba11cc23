/**
 * A ChatGPT data export: `conversations.json`, an array of conversations whose messages form a tree in
 * `mapping` (node → {message, parent, children}); the conversation shown is the path from `current_node` up
 * to the root. A message has `author.role`, `create_time` (epoch seconds) and `content.parts`. Saved memories
 * are not part of every export: when a `memories.json` lies beside it (a list of strings, or of objects with
 * the text in `content`/`memory`/`text`), each becomes a fact.
 */
import type { Turn } from '../extract/transcript.js';
import { emptySource, isRecord, sourceLabel, timeOf, type ImportedFact, type ImportSource } from './source.js';

/** True when `value` reads as ChatGPT's conversations.json. */
export function isChatGptExport(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0 && value.every((c) => isRecord(c) && isRecord(c.mapping));
}

export function readChatGpt(conversations: unknown, memories: unknown = undefined): ImportSource {
  const out = emptySource('chatgpt');
  for (const conversation of Array.isArray(conversations) ? conversations : []) {
    if (!isRecord(conversation) || !isRecord(conversation.mapping)) {
      out.unreadable++;
      continue;
    }
    const fallback = timeOf(conversation.create_time);
    const turns: Turn[] = [];
    for (const message of threadOf(conversation.mapping, conversation.current_node)) {
      const role = isRecord(message.author) ? message.author.role : undefined;
      if (role !== 'user' && role !== 'assistant') continue;
      if (isRecord(message.metadata) && message.metadata.is_visually_hidden_from_conversation === true) continue;
      const text = partsText(message.content);
      if (text === null) {
        out.unreadable++;
        continue;
      }
      if (text.trim() === '') continue;
      turns.push({ role, text, at: timeOf(message.create_time) ?? fallback, index: turns.length });
    }
    if (turns.length > 0) out.conversations.push({ source: sourceLabel('chatgpt', conversation.id ?? conversation.conversation_id), turns });
  }
  if (memories !== undefined) out.facts.push(...readMemories(memories, out));
  return out;
}

/** The messages of the branch the person last saw, oldest first; without `current_node`, every message by time. */
function threadOf(mapping: Record<string, unknown>, current: unknown): Record<string, unknown>[] {
  const nodes = new Map(Object.entries(mapping).filter((entry): entry is [string, Record<string, unknown>] => isRecord(entry[1])));
  const messages: Record<string, unknown>[] = [];
  if (typeof current === 'string' && nodes.has(current)) {
    const seen = new Set<string>();
    for (let id: unknown = current; typeof id === 'string' && nodes.has(id) && !seen.has(id); id = nodes.get(id)!.parent) {
      seen.add(id);
      const message = nodes.get(id)!.message;
      if (isRecord(message)) messages.push(message);
    }
    return messages.reverse();
  }
  for (const node of nodes.values()) if (isRecord(node.message)) messages.push(node.message);
  return messages.sort((a, b) => (timeOf(a.create_time)?.getTime() ?? 0) - (timeOf(b.create_time)?.getTime() ?? 0));
}

/** The text parts of a message's content joined (images and other parts dropped); null when there is no content to read. */
function partsText(content: unknown): string | null {
  if (!isRecord(content)) return null;
  if (Array.isArray(content.parts)) {
    return content.parts
      .map((part) => (typeof part === 'string' ? part : isRecord(part) && typeof part.text === 'string' ? part.text : ''))
      .filter((part) => part !== '')
      .join('\n');
  }
  return typeof content.text === 'string' ? content.text : null;
}

function readMemories(value: unknown, out: ImportSource): ImportedFact[] {
  const list = Array.isArray(value) ? value : isRecord(value) && Array.isArray(value.memories) ? value.memories : [];
  const facts: ImportedFact[] = [];
  for (const item of list) {
    const text = typeof item === 'string' ? item : isRecord(item) ? [item.content, item.memory, item.text].find((v) => typeof v === 'string') : undefined;
    if (typeof text !== 'string' || text.trim() === '') {
      out.unreadable++;
      continue;
    }
    const at = isRecord(item) ? (timeOf(item.created_at) ?? timeOf(item.create_time) ?? timeOf(item.updated_at) ?? null) : null;
    facts.push({ text, category: 'fact', tags: [], at, source: 'chatgpt/memory' });
  }
  return facts;
}
