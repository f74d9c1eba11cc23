/**
 * A fact found by its id without parsing every log (issue 31: `forget <id>` parsed a million facts, 21 s). A
 * fact's id is written on its line (`^f-…`), so only a log holding those bytes can hold it; a log with a fact
 * line that carries no id (a person's line: its id is derived, factlog.ts) is parsed as well, since its derived
 * ids are not in the text.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { listLogDates, logRelPath, parseLog, type Fact } from './factlog.js';

/** A bullet line that does not end with a block id (`^id`): a fact whose id the parser derives. */
const UNMARKED_LINE_RE = /^[-*+][ \t](?![^\n]*\^[A-Za-z0-9-]+[ \t]*\r?$)/m;

/** The facts with this id, oldest log first (one, unless a person copied a line to another day). */
export async function factsById(root: string, id: string): Promise<Fact[]> {
  const found: Fact[] = [];
  for (const date of await listLogDates(root)) {
    let content: Buffer;
    try {
      content = readFileSync(path.join(root, logRelPath(date)));
    } catch {
      continue; // gone, or a folder: nothing to find there (readLog reports such a log where it matters)
    }
    if (!content.includes(id) && !UNMARKED_LINE_RE.test(content.toString('latin1'))) continue;
    for (const fact of parseLog(content, date).facts) if (fact.id === id) found.push(fact);
  }
  return found;
}
