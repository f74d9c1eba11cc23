/**
 * Which facts the pages place (DESIGN §7, coverage across runs): the fact ids cited on wiki pages, not
 * counting generated pages (digests, the dashboard) nor lines that cite or repeat a forgotten fact (the
 * runner removes those itself). A plain scan of the lines, cheap enough for the gate on every tick.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { listWikiPages } from '../pages/discover.js';
import { citedInLine, withoutForgottenLines } from '../tombstones/lines.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import { isGeneratedPage } from '../vault/layout.js';
import type { CheckFailure } from './checks.js';

export async function pageCitations(root: string, tombstones: TombstoneSet): Promise<Set<string>> {
  const cited = new Set<string>();
  for (const rel of await listWikiPages(root)) {
    if (isGeneratedPage(rel)) continue;
    const text = await readFile(path.join(root, rel), 'utf8').catch(() => '');
    for (const line of withoutForgottenLines(text, tombstones).content.split('\n')) for (const id of citedInLine(line)) cited.add(id);
  }
  return cited;
}

/**
 * The check: every fact the pages cited before the run (and not forgotten) is still cited on some page
 * after it. Moving a citation between pages is fine; dropping it from the whole wiki is not.
 */
export function citationsKept(before: ReadonlySet<string>, after: ReadonlySet<string>, tombstones: TombstoneSet): CheckFailure | null {
  const lost = [...before].filter((id) => !after.has(id) && !tombstones.hasId(id)).sort();
  if (lost.length === 0) return null;
  const shown = `${lost.slice(0, 3).join(', ')}${lost.length > 3 ? ', …' : ''}`;
  return {
    check: 'coverage',
    message: `${lost.length} ${lost.length === 1 ? 'fact' : 'facts'} the pages cited before the run ${lost.length === 1 ? 'is' : 'are'} cited by no page after it (${shown}); a run may move a citation between pages, never drop it`,
  };
}
