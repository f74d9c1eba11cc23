/**
 * The daemon's log, `.vaultkeeper/daemon.log`: one JSON object a line, so scripts and `daemon log` can read it.
 * Size-capped: past `maxBytes` it rotates to daemon.log.1 (the older .1 to .2, the oldest dropped), so a
 * daemon that runs for months never fills the disk; readers read the rotated files first.
 */
import { closeSync, constants, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { confinedPathSync } from '../vault/confine.js';
import { redactDeep } from '../core/redact.js';

export const LOG_FILE = '.vaultkeeper/daemon.log';
/** Rotate past this size. */
export const LOG_MAX_BYTES = 5 * 1024 * 1024;
/** Rotated files kept (daemon.log.1 … daemon.log.N). */
export const LOG_KEEP = 2;

export interface LoggerOptions {
  echo?: (line: string) => void;
  /** Default LOG_MAX_BYTES. */
  maxBytes?: number;
  /** Default LOG_KEEP. */
  keep?: number;
}

export type Level = 'info' | 'warn' | 'error';

export interface LogEntry {
  at: string;
  level: Level;
  job?: string;
  msg: string;
  [key: string]: unknown;
}

export interface DaemonLogger {
  readonly file: string;
  log(level: Level, msg: string, fields?: Record<string, unknown>): void;
}

export function openLogger(root: string, options: LoggerOptions = {}): DaemonLogger {
  const file = confinedPathSync(root, LOG_FILE);
  const maxBytes = options.maxBytes ?? LOG_MAX_BYTES;
  const keep = options.keep ?? LOG_KEEP;
  mkdirSync(path.dirname(file), { recursive: true });
  let size = fileSize(file);
  return {
    file,
    log(level, msg, fields = {}) {
      const entry: LogEntry = redactDeep({ at: new Date().toISOString(), level, msg, ...fields });
      const line = `${JSON.stringify(entry)}\n`;
      if (size > 0 && size + Buffer.byteLength(line) > maxBytes) {
        rotate(file, keep);
        size = 0;
      }
      // One synchronous append a line: lines never interleave, and the last words before a crash are kept.
      // O_NOFOLLOW: a link put in the log's place after the check at open is refused, never followed.
      const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
      try {
        writeSync(fd, line);
      } finally {
        closeSync(fd);
      }
      size += Buffer.byteLength(line);
      options.echo?.(formatEntry(entry));
    },
  };
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** daemon.log → .1 → .2 …; the oldest beyond `keep` is dropped. The daemon is the log's one writer. */
function rotate(file: string, keep: number): void {
  rmSync(`${file}.${keep}`, { force: true });
  for (let n = keep - 1; n >= 1; n--) {
    try {
      renameSync(`${file}.${n}`, `${file}.${n + 1}`);
    } catch {
      // not rotated that far yet
    }
  }
  if (keep >= 1) renameSync(file, `${file}.1`);
  else rmSync(file, { force: true });
}

/** The log's files, oldest first: the rotated ones (.N … .1), then the current one. */
export function logFiles(root: string, keep = LOG_KEEP): string[] {
  const file = path.join(root, LOG_FILE);
  return [...Array.from({ length: keep }, (_, i) => `${file}.${keep - i}`), file];
}

export function formatEntry(entry: LogEntry): string {
  const { at, level, job, msg, ...rest } = entry;
  const extra = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${at.slice(0, 19).replace('T', ' ')} ${level.padEnd(5)} ${job ? `[${job}] ` : ''}${msg}${extra ? `  ${extra}` : ''}`;
}

/** Parsed entries of the log across its rotated files, oldest first; torn or foreign lines are skipped. */
export async function readLogEntries(root: string, filter: { job?: string; tail?: number } = {}): Promise<LogEntry[]> {
  let text = '';
  for (const file of logFiles(root)) text += await readFile(file, 'utf8').then((t) => (t === '' || t.endsWith('\n') ? t : `${t}\n`), () => '');
  const entries: LogEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const entry = JSON.parse(line) as LogEntry;
      if (typeof entry.at === 'string' && typeof entry.msg === 'string' && (filter.job === undefined || entry.job === filter.job)) entries.push(entry);
    } catch {
      // a torn line
    }
  }
  return filter.tail === undefined ? entries : entries.slice(-filter.tail);
}
