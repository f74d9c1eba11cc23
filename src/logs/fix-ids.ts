/**
 * `doctor --fix`: writes the derived `^id` at the end of fact lines a person typed without one, so a
 * page's citation `[[date#^id]]` points at a block Obsidian can find. The one edit the program ever
 * makes to a log line (DESIGN §10), and only on request: the line's text stays byte for byte, the id is
 * the one the parser already derives for it (so nothing that cites it changes), all in one commit.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../core/config.js';
import { withWriteLock } from '../core/lock.js';
import { commitPaths } from '../git/audit.js';
import { clearIntent, finishInterrupted, writeAppendIntent } from '../git/intent.js';
import { confinedPath } from '../vault/confine.js';
import { listLogDates, logRelPath, parseLog } from './factlog.js';

export interface FixedLine {
  path: string;
  line: number;
  id: string;
}

export interface FixIdsResult {
  fixed: FixedLine[];
  commit: string | null;
}

/** Lines of a log that hold a fact but no `^id` token (a repeated id is a different problem: doctor reports it). */
export function linesWithoutId(content: Uint8Array, date: string): { line: number; id: string }[] {
  const parsed = parseLog(content, date);
  const repeated = new Set(parsed.skipped.map((s) => s.line));
  return parsed.facts.filter((f) => !f.explicitId && !repeated.has(f.line)).map((f) => ({ line: f.line, id: f.id }));
}

export async function fixMissingIds(root: string, config: Config): Promise<FixIdsResult> {
  return withWriteLock(root, async (lock) => {
    // The lines a person typed are committed as theirs first; the ids then go in a commit of their own.
    await finishInterrupted(lock, config);
    const fixed: FixedLine[] = [];
    const changed: string[] = [];
    for (const date of await listLogDates(root)) {
      const rel = logRelPath(date);
      const file = path.join(root, rel);
      const content = await readFile(file);
      const missing = linesWithoutId(content, date);
      if (missing.length === 0) continue;
      // A linked log (or logs/ folder) is refused; the temp name is made fresh, so no link there is followed.
      const confined = await confinedPath(root, rel);
      const tmp = path.join(path.dirname(confined), `.${path.basename(confined)}.fix-ids`);
      await rm(tmp, { force: true });
      // A crash before the commit leaves this log as the program's write, recovered by the next writer.
      await writeAppendIntent(lock, [...changed, rel]);
      await writeFile(tmp, withIds(content, new Map(missing.map((m) => [m.line, m.id]))), { flag: 'wx' });
      await rename(tmp, confined);
      changed.push(rel);
      fixed.push(...missing.map((m) => ({ path: rel, ...m })));
    }
    const commit =
      changed.length === 0
        ? null
        : await commitPaths(lock, config, {
            op: 'doctor-fix',
            subject: `doctor --fix: block ids on ${fixed.length} hand-written fact line${fixed.length === 1 ? '' : 's'}`,
            body:
              'Appends the id each line was already cited by, so [[date#^id]] links resolve in Obsidian. No other byte of the logs changed.\n\n' +
              fixed.map((f) => `~ ${f.path}:${f.line} ^${f.id}`).join('\n'),
            paths: changed,
          });
    await clearIntent(lock);
    return { fixed, commit };
  });
}

/**
 * Appends ` ^id` to the given 1-based lines, working on bytes so that nothing else in the file (line
 * endings, a BOM, invalid UTF-8 a disk left behind) changes. Trailing blanks of a fixed line go first.
 */
function withIds(content: Uint8Array, ids: ReadonlyMap<number, string>): Buffer {
  const parts: Buffer[] = [];
  let line = 1;
  let start = 0;
  const flush = (end: number): void => {
    const id = ids.get(line);
    if (id === undefined) {
      parts.push(Buffer.from(content.subarray(start, end)));
      return;
    }
    let textEnd = end;
    while (textEnd > start && (content[textEnd - 1] === 0x20 || content[textEnd - 1] === 0x09)) textEnd--;
    parts.push(Buffer.from(content.subarray(start, textEnd)), Buffer.from(` ^${id}`, 'utf8'));
  };
  for (let i = 0; i < content.length; i++) {
    const byte = content[i];
    if (byte !== 0x0a && byte !== 0x0d) continue;
    flush(i);
    const separatorEnd = byte === 0x0d && content[i + 1] === 0x0a ? i + 2 : i + 1;
    parts.push(Buffer.from(content.subarray(i, separatorEnd)));
    i = separatorEnd - 1;
    start = separatorEnd;
    line++;
  }
  if (start < content.length) flush(content.length);
  return Buffer.concat(parts);
}
