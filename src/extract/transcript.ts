/**
 * Agent transcripts read into turns. Each format has its own reader (formats/), chosen by what the
 * content is, never by the file's name: a file in no known format is an error, not zero turns.
 */
import { VaultkeeperError } from '../core/errors.js';
import { readFile } from 'node:fs/promises';
import { isSqlite, readCursorDb } from './formats/cursor.js';
import { applyWal } from './formats/sqlite-wal.js';
import { detectFormat, FORMAT_NAMES } from './formats/registry.js';
import { makeProbe, type Transcript } from './formats/turns.js';

export type { Role, Transcript, TranscriptFormat, Turn } from './formats/turns.js';

/** Content in none of the formats vaultkeeper reads. */
export class UnknownTranscriptError extends VaultkeeperError {
  constructor(file: string) {
    super('VK_TRANSCRIPT_FORMAT', `${file === '' ? 'the transcript' : file} is in no transcript format vaultkeeper reads; nothing was ingested`, {
      hint: `it reads ${FORMAT_NAMES.join(', ')} (docs/integrations.md)`,
    });
    this.name = 'UnknownTranscriptError';
  }
}

/** Reads a transcript's text in whichever format it is in; an empty file is an empty transcript. */
export function parseTranscript(content: string, fileName = ''): Transcript {
  const text = content.replace(/^\uFEFF/, '');
  if (text.trim() === '') return { format: 'empty', turns: [], skippedLines: 0 };
  const probe = makeProbe(text);
  const reader = detectFormat(probe);
  if (reader === null) throw new UnknownTranscriptError(fileName);
  return reader.read(probe);
}

/** Reads a transcript file's bytes: Cursor's SQLite store, or any text format parseTranscript reads. */
export async function readTranscript(bytes: Uint8Array, fileName = ''): Promise<Transcript> {
  if (isSqlite(bytes)) {
    // Cursor's store runs in WAL mode: its newest chats may still be in the -wal file beside it.
    const wal = fileName === '' ? null : await readFile(`${fileName}-wal`).catch(() => null);
    const transcript = await readCursorDb(wal === null ? bytes : applyWal(bytes, wal));
    if (transcript === null) throw new UnknownTranscriptError(fileName);
    return transcript;
  }
  return parseTranscript(utf8.decode(bytes), fileName);
}

const utf8 = new TextDecoder('utf-8', { fatal: false });
