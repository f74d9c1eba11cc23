/** The daemon's log, `.vaultkeeper/daemon.log`: one JSON object a line, so scripts and `daemon log` can read it. */
import { appendFileSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { confinedPathSync } from '../vault/confine.js';
import { redactDeep } from '../core/redact.js';

export const LOG_FILE = '.vaultkeeper/daemon.log';

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

export function openLogger(root: string, options: { echo?: (line: string) => void } = {}): DaemonLogger {
  const file = confinedPathSync(root, LOG_FILE);
  mkdirSync(path.dirname(file), { recursive: true });
  return {
    file,
    log(level, msg, fields = {}) {
      const entry: LogEntry = redactDeep({ at: new Date().toISOString(), level, msg, ...fields });
      // One synchronous append a line: lines never interleave, and the last words before a crash are kept.
      appendFileSync(file, `${JSON.stringify(entry)}\n`);
      options.echo?.(formatEntry(entry));
    },
  };
}

export function formatEntry(entry: LogEntry): string {
  const { at, level, job, msg, ...rest } = entry;
  const extra = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${at.slice(0, 19).replace('T', ' ')} ${level.padEnd(5)} ${job ? `[${job}] ` : ''}${msg}${extra ? `  ${extra}` : ''}`;
}

/** Parsed entries of the log, oldest first; torn or foreign lines are skipped. */
export async function readLogEntries(root: string, filter: { job?: string; tail?: number } = {}): Promise<LogEntry[]> {
  let text = '';
  try {
    text = await readFile(path.join(root, LOG_FILE), 'utf8');
  } catch {
    return [];
  }
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
