/**
 * The dream agent's run log, `.vaultkeeper/runs/<run>.jsonl`: one JSON object a line for every model
 * request, reply, tool call and result, so a person can audit what a run did and why. It never holds the
 * API key or any header: entries are built from the conversation only, and every string goes through the
 * one redaction (core/redact.ts) with the secrets the caller names, in case a server or model echoes one.
 */
import path from 'node:path';
import { VaultkeeperError } from '../../core/errors.js';
import { redactDeep } from '../../core/redact.js';
import { appendConfined } from '../../vault/confined-write.js';

export const RUNS_DIR = '.vaultkeeper/runs';
/** Longer strings are cut in the log (a model may send megabytes of arguments); the length is kept. */
export const MAX_LOGGED_CHARS = 64 * 1024;
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
  const rel = `${RUNS_DIR}/${path.basename(runLogPath(vaultRoot, run))}`;
  const secrets = options.secrets ?? [];
  const now = options.now ?? (() => new Date());
  let queue: Promise<void> = Promise.resolve();
  return {
    file: runLogPath(vaultRoot, run),
    write(type, fields) {
      const line = serialize({ at: now().toISOString(), type, ...fields }, secrets);
      // Confined on every append: a link put in the log's place (or its folder's) is refused, not followed.
      const written = queue.then(async () => void (await appendConfined(vaultRoot, rel, line, 0o600)));
      queue = written.catch(() => undefined);
      return written;
    },
  };
}

/** One JSON line: every string redacted (core/redact.ts, with the run's own secrets), then long ones cut. */
export function serialize(entry: Record<string, unknown>, secrets: readonly string[]): string {
  const clean = redactDeep(entry, { values: secrets });
  return `${JSON.stringify(clean, (_key, value: unknown) => (typeof value === 'string' ? cut(value) : value))}\n`;
}

function cut(text: string): string {
  if (text.length <= MAX_LOGGED_CHARS) return text;
  return `${text.slice(0, MAX_LOGGED_CHARS)}… [${text.length - MAX_LOGGED_CHARS} more characters not logged]`;
}
