/**
 * `doctor --fix` for a damaged tombstone file (a torn line an older version left on a full disk, a hand
 * edit): writers stop on it (tombstones.ts), since ignoring the line would bring its fact back. A line that
 * still names a fact id becomes a whole tombstone again, its text taken from the log; a line that names none
 * cannot be restored by a program and is left, with what to do about it.
 */
import type { Config } from '../core/config.js';
import { withWriteLock } from '../core/lock.js';
import { commitPaths } from '../git/audit.js';
import { normalizeText } from '../text/normalize.js';
import { allFacts } from '../tombstones/forget.js';
import { DAMAGED_ID_RE, TOMBSTONES_FILE, asTombstone } from '../tombstones/tombstones.js';
import { writeConfined } from '../vault/confined-write.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface TombstoneRepair {
  /** Lines restored: the line number and the fact id. */
  restored: Array<{ line: number; id: string }>;
  /** Lines that name no fact id, each with what to do. */
  remaining: string[];
  commit: string | null;
}

export async function repairTombstones(root: string, config: Config, now = new Date()): Promise<TombstoneRepair> {
  const file = path.join(root, TOMBSTONES_FILE);
  const content = await readFile(file, 'utf8').catch(() => '');
  const lines = content.split('\n');
  if (!lines.some((line) => line.trim() !== '' && !isTombstoneLine(line))) return { restored: [], remaining: [], commit: null };
  return withWriteLock(root, async (lock) => {
    const facts = new Map((await allFacts(root)).map((f) => [f.id, f]));
    const restored: TombstoneRepair['restored'] = [];
    const remaining: string[] = [];
    const current = (await readFile(file, 'utf8')).split('\n');
    const fixed = current.map((line, index) => {
      if (line.trim() === '' || isTombstoneLine(line)) return line;
      const id = DAMAGED_ID_RE.exec(line)?.[1];
      if (id === undefined) {
        remaining.push(`${TOMBSTONES_FILE}:${index + 1} names no fact id: see what it forgot with \`git log -p -- ${TOMBSTONES_FILE}\`, run \`vaultkeeper forget\` for that fact again after deleting the line`);
        return line;
      }
      restored.push({ line: index + 1, id });
      const fact = facts.get(id);
      return JSON.stringify({ id, text: fact === undefined ? '' : normalizeText(fact.text), at: now.toISOString(), reason: 'restored by doctor --fix from a damaged line' });
    });
    if (restored.length === 0) return { restored, remaining, commit: null };
    await writeConfined(root, TOMBSTONES_FILE, fixed.join('\n'));
    const commit = await commitPaths(lock, config, {
      op: 'doctor-fix',
      subject: `doctor --fix: ${restored.length} damaged tombstone line${restored.length === 1 ? '' : 's'} restored`,
      body: restored.map((r) => `~ ${TOMBSTONES_FILE}:${r.line} ${r.id}`).join('\n'),
      paths: [TOMBSTONES_FILE],
    });
    return { restored, remaining, commit };
  });
}

function isTombstoneLine(line: string): boolean {
  try {
    return asTombstone(JSON.parse(line)) !== undefined;
  } catch {
    return false;
  }
}
