/**
 * Cursor's own chat store: the SQLite file state.vscdb, read from a copy in memory (sql.js, WebAssembly),
 * so the file Cursor has open is never written. Two layouts: the global store's `cursorDiskKV` table
 * (`composerData:<id>` with its `conversation`, or with `fullConversationHeadersOnly` and one
 * `bubbleId:<composer>:<bubble>` row a message; type 1 the person, 2 the model), and a workspace
 * store's `ItemTable` row `workbench.panel.aichat.view.aichat.chatdata` (tabs of bubbles, type user/ai).
 */
import type { Database } from 'sql.js';
import { isRecord, parseTime, pushTurn, tryJson, type Transcript, type Turn } from './turns.js';

/** The 16 bytes every SQLite 3 file begins with. */
export const SQLITE_HEADER = 'SQLite format 3\u0000';

export function isSqlite(bytes: Uint8Array): boolean {
  return bytes.length >= 16 && Buffer.from(bytes.subarray(0, 16)).toString('latin1') === SQLITE_HEADER;
}

interface Message {
  role: 'user' | 'assistant';
  text: string;
  at: Date | undefined;
}

interface Chat {
  at: Date | undefined;
  messages: Message[];
}

/** The chats in a Cursor state.vscdb, oldest first; null when the database holds no table Cursor writes. */
export async function readCursorDb(bytes: Uint8Array): Promise<Transcript | null> {
  const { default: initSqlJs } = await import('sql.js');
  const SQL = await initSqlJs();
  const db = new SQL.Database(bytes);
  try {
    const tables = new Set(rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => String(r[0])));
    if (!tables.has('cursorDiskKV') && !tables.has('ItemTable')) return null;
    const chats: Chat[] = [];
    let skippedLines = 0;
    if (tables.has('cursorDiskKV')) {
      const bubbles = new Map<string, unknown>();
      for (const [key, value] of rows(db, "SELECT key, value FROM cursorDiskKV WHERE key LIKE 'bubbleId:%'")) bubbles.set(String(key), json(value));
      for (const [key, value] of rows(db, "SELECT key, value FROM cursorDiskKV WHERE key LIKE 'composerData:%'")) {
        const composer = json(value);
        if (!isRecord(composer)) {
          skippedLines++;
          continue;
        }
        const id = String(key).slice('composerData:'.length);
        const inline = Array.isArray(composer.conversation) ? composer.conversation : null;
        const headers = Array.isArray(composer.fullConversationHeadersOnly) ? composer.fullConversationHeadersOnly : [];
        const items = inline ?? headers.map((h) => (isRecord(h) ? bubbles.get(`bubbleId:${id}:${String(h.bubbleId)}`) : undefined));
        const messages: Message[] = [];
        for (const item of items) {
          const message = bubbleMessage(item, composer.createdAt);
          if (message === null) skippedLines++;
          else if (message !== 'skip') messages.push(message);
        }
        chats.push({ at: parseTime(composer.createdAt), messages });
      }
    }
    if (tables.has('ItemTable')) {
      for (const [value] of rows(db, "SELECT value FROM ItemTable WHERE key = 'workbench.panel.aichat.view.aichat.chatdata'")) {
        const data = json(value);
        const tabs = isRecord(data) && Array.isArray(data.tabs) ? data.tabs : [];
        for (const tab of tabs) {
          if (!isRecord(tab) || !Array.isArray(tab.bubbles)) continue;
          const messages: Message[] = [];
          for (const bubble of tab.bubbles) {
            const message = bubbleMessage(bubble, tab.lastSendTime);
            if (message === null) skippedLines++;
            else if (message !== 'skip') messages.push(message);
          }
          chats.push({ at: parseTime(tab.lastSendTime), messages });
        }
      }
    }
    chats.sort((a, b) => (a.at?.getTime() ?? 0) - (b.at?.getTime() ?? 0));
    const turns: Turn[] = [];
    for (const chat of chats) for (const message of chat.messages) pushTurn(turns, message.role, message.text, message.at ?? chat.at, false);
    return { format: 'cursor', turns, startedAt: chats[0]?.at, skippedLines };
  } finally {
    db.close();
  }
}

/** A bubble's message: type 1 or "user" the person, 2 or "ai" the model; 'skip' for one without text (a tool call). */
function bubbleMessage(bubble: unknown, chatTime: unknown): Message | 'skip' | null {
  if (!isRecord(bubble)) return null;
  const role = bubble.type === 1 || bubble.type === 'user' ? 'user' : bubble.type === 2 || bubble.type === 'ai' ? 'assistant' : null;
  if (role === null) return null;
  const said = typeof bubble.text === 'string' && bubble.text.trim() !== '' ? bubble.text : typeof bubble.rawText === 'string' ? bubble.rawText : '';
  if (said.trim() === '') return 'skip';
  const timing = isRecord(bubble.timingInfo) ? bubble.timingInfo.clientStartTime : undefined;
  return { role, text: said, at: parseTime(bubble.createdAt ?? timing) ?? parseTime(chatTime) };
}

function rows(db: Database, sql: string): unknown[][] {
  return db.exec(sql)[0]?.values ?? [];
}

function json(value: unknown): unknown {
  const raw = typeof value === 'string' ? value : value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : null;
  if (raw === null) return undefined;
  const parsed = tryJson(raw);
  return parsed.ok ? parsed.value : undefined;
}
