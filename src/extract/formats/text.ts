/**
 * Plain text and markdown chats with their speakers marked: "User: …" / "Assistant: …" lines, or
 * "## User" headings. Text with no speaker marked is no chat this reader knows (it is not taken as
 * one turn of the person's).
 */
import type { FormatReader, Role, Transcript, Turn } from './turns.js';

const SPEAKER = '(user|human|me|assistant|ai|claude|chatgpt|gpt|bot|model)';
const HEADING_RE = new RegExp(`^#{1,6}\\s+\\**\\s*${SPEAKER}\\s*\\**\\s*:?\\s*$`, 'i');
const PREFIX_RE = new RegExp(`^\\**\\s*${SPEAKER}\\s*\\**\\s*:\\s*\\**\\s*(.*)$`, 'i');

export const textChat: FormatReader = {
  format: 'text',
  detect: (probe) => probe.json === undefined && markers(probe.text) > 0,
  read: (probe) => readTextChat(probe.text),
};

function markers(content: string): number {
  let count = 0;
  let fence = false;
  for (const raw of content.split(/\r\n|\r|\n/)) {
    if (/^\s*(```|~~~)/.test(raw)) fence = !fence;
    else if (!fence && (HEADING_RE.test(raw.trim()) || PREFIX_RE.test(raw.trim()))) count++;
  }
  return count;
}

export function readTextChat(content: string): Transcript {
  const turns: Turn[] = [];
  let current: { role: Role; lines: string[] } | null = null;
  let fence = false;
  const flush = (): void => {
    if (current === null) return;
    const said = current.lines.join('\n').trim();
    if (said !== '') turns.push({ role: current.role, text: said, index: turns.length });
    current = null;
  };
  for (const line of content.split(/\r\n|\r|\n/)) {
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
  return { format: 'text', turns, skippedLines: 0 };
}

function speakerRole(name: string): Role {
  const lower = name.toLowerCase();
  return lower === 'user' || lower === 'human' || lower === 'me' ? 'user' : 'assistant';
}
