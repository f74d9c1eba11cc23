/**
 * A fact found by its id without parsing every log (issue 31: `forget <id>` parsed a million facts, 21 s). A log
 * the index pass read as it is now is looked up in the facts the pass kept of it (log-facts.ts); any other log by
 * its bytes: a fact's id is written on its line (`^f-…`), so only a log holding those bytes can hold it, and a log
 * with a fact line that carries no id (a person's line: its id is derived, factlog.ts) is parsed as well.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { listLogDates, logRelPath, parseLog, type Fact } from './factlog.js';
import { idHash, LogFactsReader } from './log-facts.js';

/** A bullet line that does not end with a block id (`^id`): a fact whose id the parser derives. */
const UNMARKED_LINE_RE = /^[-*+][ \t](?![^\n]*\^[A-Za-z0-9-]+[ \t]*\r?$)/m;

/**
 * The facts with this id, oldest log first (one, unless a person copied a line to another day). A log the index
 * pass read as it is now is looked up in the facts it kept (log-facts.ts: no read of the log unless its id hashes
 * match); any other log by its bytes. When no kept log may hold the id (a fact forgotten before, whose row is gone,
 * or none), every log is read by its bytes: the kept facts narrow the search, they never end it.
 */
export async function factsById(root: string, id: string): Promise<Fact[]> {
  // No line's block id holds other characters (factlog.ts BLOCK_ID_RE): nothing to look for.
  if (!/^[A-Za-z0-9-]+$/.test(id)) return [];
  const dates = await listLogDates(root);
  const kept = new LogFactsReader(root, 'ids');
  const hash = idHash(id);
  const base = path.resolve(root);
  const found: Fact[] = [];
  const unkept: string[] = [];
  let hit = false;
  for (const date of dates) {
    const rel = logRelPath(date);
    const file = `${base}/${rel}`;
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat?.isFile() !== true || !kept.kept(rel, stat)) unkept.push(date);
    else if (kept.mayHoldId(rel, hash)) {
      hit = true;
      found.push(...factsIn(file, date, id, false));
    }
  }
  // Logs read by their bytes, in date order with the ones found above.
  for (const date of hit ? unkept : dates) found.push(...factsIn(path.join(root, logRelPath(date)), date, id, true));
  return hit ? found.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.line - b.line)) : found;
}

/** The facts with the id in one log; `scan`: parsed only when its bytes may hold it. */
function factsIn(file: string, date: string, id: string, scan: boolean): Fact[] {
  let content: Buffer;
  try {
    content = readFileSync(file);
  } catch {
    return []; // gone, or a folder: nothing to find there (readLog reports such a log where it matters)
  }
  if (scan && !content.includes(id) && !UNMARKED_LINE_RE.test(content.toString('latin1'))) return [];
  return parseLog(content, date).facts.filter((fact) => fact.id === id);
}
