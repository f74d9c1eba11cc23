/**
 * The dream agent's run log, `.vaultkeeper/runs/<run>.jsonl`: one JSON object a line for every model
 * request, reply, tool call and result, so a person can audit what a run did and why. It never holds the
 * API key or any header: entries are built from the conversation only, and any secret the caller names is
 * redacted from every string before it is written, in case a server or model echoes it back.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { VaultkeeperError } from '../../core/errors.js';
import { confinedPath } from '../../vault/confine.js';
import { redact } from '../../core/redact.js';

export const RUNS_DIR = '.vaultkeeper/runs';
/** Longer strings are cut in the log (a model may send megabytes of arguments); the length is kept. */
export const MAX_LOGGED_CHARS = 64 * 1024;
const REDACTED = '[redacted]';
const RUN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface RunLog {
  readonly file: string;
  /** Appends one entry, stamped with the time; entries are written in the order of the calls. */
  write(type: string, fields: Record<string, unknown>): Promise<void>;
}

export function runLogPath(vaultRoot: string, run: string): string {
  if (!RUN_NAME.test(run)) {
    throw new VaultkeeperError('VK_DREAM_RUN_NAME', `'${run}' cannot name a run log: a run id is letters, digits, '.', '_' and '-'`, {
      hint: 'run ids look like r-20260610-031207',
    });
  }
  return path.join(vaultRoot, RUNS_DIR, `${run}.jsonl`);
}

export async function openRunLog(vaultRoot: string, run: string, options: { secrets?: readonly string[]; now?: () => Date } = {}): Promise<RunLog> {
  const file = await confinedPath(vaultRoot, path.relative(vaultRoot, runLogPath(vaultRoot, run)).split(path.sep).join('/'));
  await mkdir(path.dirname(file), { recursive: true });
  const secrets = (options.secrets ?? []).filter((s) => s !== '');
  const now = options.now ?? (() => new Date());
  let queue: Promise<void> = Promise.resolve();
  return {
    file,
    write(type, fields) {
      const line = serialize({ at: now().toISOString(), type, ...fields }, secrets);
      const written = queue.then(() => appendFile(file, line, { encoding: 'utf8', mode: 0o600 }));
      queue = written.catch(() => undefined);
      return written;
    },
  };
}

/** One JSON line, long strings cut and every secret replaced, also in its JSON-escaped spelling. */
export function serialize(entry: Record<string, unknown>, secrets: readonly string[]): string {
  let line = JSON.stringify(entry, (_key, value: unknown) => (typeof value === 'string' ? clean(value, secrets) : value));
  for (const secret of secrets) line = line.split(JSON.stringify(secret).slice(1, -1)).join(REDACTED);
  return `${redact(line)}\n`;
}

function clean(value: string, secrets: readonly string[]): string {
  let text = value;
  for (const secret of secrets) text = text.split(secret).join(REDACTED);
  if (text.length <= MAX_LOGGED_CHARS) return text;
  return `${text.slice(0, MAX_LOGGED_CHARS)}… [${text.length - MAX_LOGGED_CHARS} more characters not logged]`;
}
