/**
 * The dream journal, log.md (DESIGN §4): the watermark is the largest `watermark=` token; dates in
 * `skipped=` tokens were never consolidated and stay searchable as facts. Only the dream runner writes it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export const JOURNAL_FILE = 'log.md';

export interface Journal {
  /** The newest consolidated log date, or null before the first dream. */
  watermark: string | null;
  skipped: ReadonlySet<string>;
}

const WATERMARK_RE = /(?:^|[\s·])watermark=(\d{4}-\d{2}-\d{2})\b/g;
const SKIPPED_RE = /(?:^|[\s·])skipped=([\d,.-]+)/g;

export function parseJournal(text: string): Journal {
  let watermark: string | null = null;
  for (const match of text.matchAll(WATERMARK_RE)) {
    const date = match[1]!;
    if (watermark === null || date > watermark) watermark = date;
  }
  const skipped = new Set<string>();
  for (const match of text.matchAll(SKIPPED_RE)) {
    for (const date of match[1]!.split(',')) if (/^\d{4}-\d{2}-\d{2}$/.test(date)) skipped.add(date);
  }
  return { watermark, skipped };
}

export async function readJournal(root: string): Promise<Journal> {
  try {
    return parseJournal(await readFile(path.join(root, JOURNAL_FILE), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { watermark: null, skipped: new Set() };
    throw error;
  }
}

/** True when the facts of this log date belong in the index as facts (after the watermark, or skipped). */
export function isPending(journal: Journal, date: string): boolean {
  return journal.watermark === null || date > journal.watermark || journal.skipped.has(date);
}

/** One dream as the journal (or, for failures, the daemon log) records it. */
export interface DreamRecord {
  at: string;
  run: string;
  outcome: 'ok' | 'skipped' | 'failed';
  /** "2026-06-01..2026-06-08", or the failure's message. */
  detail: string;
}

/** A journal line: `- <at> · run <id> · consolidated A..B · …` or `… · gave up on A..B after N tries · …`. */
const JOURNAL_RE = /^- (\S+) · run (\S+) · (?:consolidated (\S+)|gave up on (\S+))/;

export function parseDreamJournal(text: string): DreamRecord[] {
  const records: DreamRecord[] = [];
  for (const line of text.split(/\r?\n/)) {
    const match = JOURNAL_RE.exec(line);
    if (match === null) continue;
    records.push({ at: match[1]!, run: match[2]!, outcome: match[3] !== undefined ? 'ok' : 'skipped', detail: match[3] ?? match[4]! });
  }
  return records;
}
