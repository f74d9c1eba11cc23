/**
 * What an import reader gives back, whatever the format: facts already dated as in the source, conversations
 * still to be read for facts, and notes to adopt as pages. Readers parse; they never write and never throw on
 * one bad record (it is counted in `unreadable`).
 */
import type { Turn } from '../extract/transcript.js';

export const IMPORT_FORMATS = ['chatgpt', 'claude-ai', 'mem0', 'basic-memory', 'vaultkeeper'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportedFact {
  text: string;
  /** A vaultkeeper category, or a format's own that the importer maps (an unknown one becomes a tag). */
  category: string;
  tags: string[];
  /** When the source says the fact was made; null: the reader could not tell, and the importer uses the file's time. */
  at: Date | null;
  /** The local date and time as a vaultkeeper export wrote them: kept as they are, never converted. */
  date?: string | undefined;
  time?: string | undefined;
  /** The batch header's source, e.g. `mem0/alice` or `claude-ai/3f9a1c2b`. */
  source: string;
}

export interface ImportedConversation {
  source: string;
  turns: Turn[];
}

export interface ImportedPage {
  /** Where the note goes in the vault, as a vault-relative POSIX path (its place in the imported folder). */
  rel: string;
  bytes: Buffer;
}

export interface ImportSource {
  format: ImportFormat;
  facts: ImportedFact[];
  conversations: ImportedConversation[];
  pages: ImportedPage[];
  /** Records (messages, memories, lines) the reader could not read. */
  unreadable: number;
}

export function emptySource(format: ImportFormat): ImportSource {
  return { format, facts: [], conversations: [], pages: [], unreadable: 0 };
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A date from an ISO string or epoch seconds (ChatGPT's `create_time`); undefined when it is neither. */
export function timeOf(value: unknown): Date | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return new Date(value < 1e11 ? value * 1000 : value);
  if (typeof value === 'string' && value.trim() !== '') {
    const at = new Date(value);
    return Number.isNaN(at.getTime()) ? undefined : at;
  }
  return undefined;
}

/** `prefix/` + up to 8 letters and digits of an id: short, stable, safe in a batch header. */
export function sourceLabel(prefix: string, id: unknown): string {
  const clean = typeof id === 'string' ? id.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 8) : '';
  return clean === '' ? prefix : `${prefix}/${clean}`;
}
