/**
 * MEMORY.md after a forget (issue 31): only the items that state or came from a forgotten fact leave it, in
 * place; the rest keeps its bytes and its order. The next dream (or promote) regenerates the file whole and lets
 * in what the cap had left out. A full regeneration here costs a read of every log and every page and the
 * state-change reading of every item (seconds at 100k facts); this costs a read of one small file.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { withoutCitations } from '../text/citation.js';
// MEMORY.md by the indexer's light name for it, not dream/memory.ts's (which loads the page parser).
import { CORE_FILE as MEMORY_FILE } from '../indexer/sources.js';
import { writeConfined } from '../vault/confined-write.js';
import { isForgottenLine } from './lines.js';
import type { TombstoneSet } from './tombstones.js';

/** A MEMORY.md item: `- text — [[Page]]`; the recalled pages' pointers have no text of a fact. */
const ITEM = /^- (.*) — \[\[[^\]]+\]\]$/;
const HEADING = /^## /;

export interface MemoryScrub {
  changed: boolean;
  /** Items taken off. */
  removed: number;
}

/** The text MEMORY.md shows for a page's list item (memory.ts renders `withoutCitations(line.slice(2)).trim()`). */
function itemText(pageLine: string): string | null {
  return /^- \S/.test(pageLine) ? withoutCitations(pageLine.slice(2)).trim() : null;
}

/**
 * `content` without its items that repeat a forgotten fact (the forget matcher) or show a page line that was just
 * removed (`removedPageLines`: a line that cited a forgotten fact by id, which MEMORY.md shows without its citation).
 * A section left without items loses its heading.
 */
export function scrubMemoryText(content: string, tombstones: TombstoneSet, removedPageLines: readonly string[]): { content: string; removed: number } {
  const gone = new Set(removedPageLines.map(itemText).filter((t): t is string => t !== null));
  const lines = content.split('\n');
  const kept: string[] = [];
  let removed = 0;
  for (const line of lines) {
    const item = ITEM.exec(line);
    if (item !== null && (gone.has(item[1]!.trim()) || isForgottenLine(item[1]!, tombstones))) {
      removed++;
      continue;
    }
    kept.push(line);
  }
  if (removed === 0) return { content, removed: 0 };
  // A heading whose items all went, with the blank lines under it, goes too.
  const out: string[] = [];
  for (let i = 0; i < kept.length; i++) {
    if (HEADING.test(kept[i]!)) {
      let j = i + 1;
      while (j < kept.length && kept[j]!.trim() === '') j++;
      if (j >= kept.length || !kept[j]!.startsWith('- ')) {
        i = j - 1;
        continue;
      }
    }
    out.push(kept[i]!);
  }
  return { content: `${out.join('\n').trimEnd()}\n`, removed };
}

/** Takes the forgotten items off the vault's MEMORY.md (durably, by temp file and rename); unchanged, it is not written. */
export async function scrubMemory(root: string, tombstones: TombstoneSet, removedPageLines: readonly string[]): Promise<MemoryScrub> {
  const before = await readFile(path.join(root, MEMORY_FILE), 'utf8').catch(() => null);
  if (before === null) return { changed: false, removed: 0 };
  const { content, removed } = scrubMemoryText(before, tombstones, removedPageLines);
  if (content === before) return { changed: false, removed: 0 };
  await writeConfined(root, MEMORY_FILE, content);
  return { changed: true, removed };
}
