/**
 * The dream journal, log.md (DESIGN §4): the watermark is the largest `watermark=` token; dates in
 * `skipped=` tokens were never consolidated and stay searchable as facts, until a later line's `retried=`
 * token says a retry placed them. Lines are read in order, so a day skipped again after a retry is skipped.
 * A skip line may also say which check failed (`check=`) and how many fact lines the day's log held then
 * (`log_facts=`): a fact appended after those is a late fact, pending like any other. Only the dream runner
 * writes it; lines from before these tokens existed parse as they always did.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export const JOURNAL_FILE = 'log.md';

/** A day the dream gave up on, as its (latest) skip line says. */
export interface SkipRecord {
  date: string;
  /** When it was given up (ISO), or null for a line without a time. */
  at: string | null;
  run: string | null;
  /** Failed runs before it was given up, when the line says. */
  tries: number | null;
  /** The check that failed the last run (`check=`), when the line says. */
  check: string | null;
  /** Fact lines the day's log held when it was skipped (`log_facts=`); null on older lines: no later fact is told apart. */
  logFacts: number | null;
}

export interface Journal {
  /** The newest consolidated log date, or null before the first dream. */
  watermark: string | null;
  skipped: ReadonlySet<string>;
  /** Each skipped day's latest skip line. */
  skips: ReadonlyMap<string, SkipRecord>;
}

const WATERMARK_RE = /(?:^|[\s·])watermark=(\d{4}-\d{2}-\d{2})\b/g;
const SKIPPED_RE = /(?:^|[\s·])skipped=([\d,.-]+)/g;
const RETRIED_RE = /(?:^|[\s·])retried=([\d,.-]+)/g;
const CHECK_RE = /(?:^|[\s·])check=([a-z_]+)/;
const LOG_FACTS_RE = /(?:^|[\s·])log_facts=(\d+)/;
const LINE_HEAD_RE = /^- (\d{4}-\d{2}-\d{2}T\S+) · run (\S+)/;
const TRIES_RE = /\bafter (\d+) tries\b/;

const datesOf = (list: string): string[] => list.split(',').filter((date) => /^\d{4}-\d{2}-\d{2}$/.test(date));

export function parseJournal(text: string): Journal {
  let watermark: string | null = null;
  for (const match of text.matchAll(WATERMARK_RE)) {
    const date = match[1]!;
    if (watermark === null || date > watermark) watermark = date;
  }
  const skips = new Map<string, SkipRecord>();
  for (const line of text.split(/\r?\n/)) {
    for (const match of line.matchAll(RETRIED_RE)) for (const date of datesOf(match[1]!)) skips.delete(date);
    const skipped = [...line.matchAll(SKIPPED_RE)].flatMap((match) => datesOf(match[1]!));
    if (skipped.length === 0) continue;
    const head = LINE_HEAD_RE.exec(line);
    const tries = TRIES_RE.exec(line);
    const check = CHECK_RE.exec(line);
    // The count belongs to the day only when the line skips one day (as the runner writes them).
    const logFacts = skipped.length === 1 ? LOG_FACTS_RE.exec(line) : null;
    for (const date of skipped) {
      skips.set(date, {
        date,
        at: head?.[1] ?? null,
        run: head?.[2] ?? null,
        tries: tries === null ? null : Number(tries[1]),
        check: check?.[1] ?? null,
        logFacts: logFacts === null ? null : Number(logFacts[1]),
      });
    }
  }
  return { watermark, skipped: new Set(skips.keys()), skips };
}

export async function readJournal(root: string): Promise<Journal> {
  try {
    return parseJournal(await readFile(path.join(root, JOURNAL_FILE), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { watermark: null, skipped: new Set(), skips: new Map() };
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
