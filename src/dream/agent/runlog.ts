/**
 * The dream agent's run log, `.vaultkeeper/runs/<run>.jsonl`: one JSON object a line for every model
 * request, reply, tool call and result, so a person can audit what a run did and why. It never holds the
 * API key or any header: entries are built from the conversation only, and every string goes through the
 * one redaction (core/redact.ts) with the secrets the caller names, in case a server or model echoes one.
 */
import { chmod, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { VaultkeeperError } from '../../core/errors.js';
import { redactDeep } from '../../core/redact.js';
import { appendConfined, writeConfined } from '../../vault/confined-write.js';
import type { TombstoneSet } from '../../tombstones/tombstones.js';
import { forgetMatcher, nameStatesForgotten, scrubForgotten } from '../forget-match.js';
import { keyCheck } from '../key-check.js';

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
  // A string holding the key in an encoding or in pieces (key-check.ts) goes whole; checked as logged (cut first).
  const key = keyCheck(secrets);
  const logged = (value: string): string => {
    const text = cut(value);
    return key.holds(text) ? HELD_KEY : text;
  };
  return `${JSON.stringify(clean, (_key, value: unknown) => (typeof value === 'string' ? logged(value) : value))}\n`;
}

const HELD_KEY = '[redacted: held a secret, encoded or in pieces]';
const HELD_FORGOTTEN = '[removed: stated a forgotten fact]';

/** A line that is a page's path, title or heading named after a forgotten fact (forget-match.ts `nameStatesForgotten`). */
function namesForgotten(line: string, tombstones: TombstoneSet): boolean {
  const name = line.replace(/^\s*(?:#+\s*|title:\s*)/, '').replace(/\.md$/, '').split('/').at(-1) ?? '';
  return name.length <= 200 && name.trim() !== '' && nameStatesForgotten(name, tombstones);
}

/**
 * Takes the text of forgotten facts out of the run logs (issue 30): in every string of every entry, the units that
 * state one (forget-match.ts) go; a string still stating one (a page's JSON in a tool call's arguments, say) is
 * replaced whole. Files that hold none are not rewritten. The caller holds the write lock. Returns the files changed.
 */
export async function scrubRunLogs(vaultRoot: string, tombstones: TombstoneSet, runs?: readonly string[]): Promise<string[]> {
  const matcher = forgetMatcher(tombstones);
  if (matcher.empty) return [];
  const names = runs?.map((run) => `${run}.jsonl`) ?? (await readdir(path.join(vaultRoot, RUNS_DIR)).catch(() => [] as string[])).filter((n) => n.endsWith('.jsonl'));
  const changed: string[] = [];
  for (const name of names) {
    const rel = `${RUNS_DIR}/${name}`;
    const text = await readFile(path.join(vaultRoot, rel), 'utf8').catch(() => null);
    if (text === null || !matcher.matches(text.replace(/\\n/g, '\n'))) continue;
    const clean = (value: string): string => {
      // A tool call's arguments are JSON in a string: their strings are scrubbed one by one.
      if (/^\s*[{[]/.test(value)) {
        try {
          return JSON.stringify(JSON.parse(value, (_k, v: unknown) => (typeof v === 'string' ? clean(v) : v)));
        } catch {
          // not JSON: scrubbed as text
        }
      }
      // A page's path or title named after a forgotten fact ("3_Personal/Allergic to peanuts.md") goes whole.
      if (value.split('\n').some((line) => namesForgotten(line, tombstones))) return HELD_FORGOTTEN;
      if (!matcher.matches(value)) return value;
      const scrubbed = scrubForgotten(value, tombstones).content;
      return matcher.matches(scrubbed) ? HELD_FORGOTTEN : scrubbed;
    };
    const lines = text.split('\n').map((line) => {
      if (line.trim() === '') return line;
      try {
        return JSON.stringify(JSON.parse(line, (_k, v: unknown) => (typeof v === 'string' ? clean(v) : v)));
      } catch {
        return matcher.matches(line) ? JSON.stringify({ removed: HELD_FORGOTTEN }) : line;
      }
    });
    await chmod(await writeConfined(vaultRoot, rel, lines.join('\n')), 0o600);
    changed.push(rel);
  }
  return changed;
}

function cut(text: string): string {
  if (text.length <= MAX_LOGGED_CHARS) return text;
  return `${text.slice(0, MAX_LOGGED_CHARS)}… [${text.length - MAX_LOGGED_CHARS} more characters not logged]`;
}
