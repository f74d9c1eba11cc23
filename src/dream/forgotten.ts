/**
 * Forgetting holds on every path (DESIGN §7): after any consolidator, the runner (not the consolidator)
 * removes the page lines that cite or repeat a tombstoned fact, and a check refuses a run whose pages
 * still hold one. A page that is a symbolic link is never rewritten (its target may lie outside the vault).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { listWikiPages } from '../pages/discover.js';
import { withoutForgottenLines } from '../tombstones/lines.js';
import { pageWriteTarget } from '../vault/confine.js';
import { writeFileAtomic } from './tools/atomic.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import type { CheckFailure, PageChanges } from './checks.js';

export interface Scrubbed {
  path: string;
  lines: number;
}

/** Removes forgotten lines from every page of the worktree; returns the pages it changed. */
export async function removeForgottenLines(root: string, tombstones: TombstoneSet): Promise<Scrubbed[]> {
  if (tombstones.entries.length === 0) return [];
  const changed: Scrubbed[] = [];
  for (const rel of await listWikiPages(root)) {
    // A link (the page or a folder on its way) is never rewritten: its target may lie outside the vault.
    const target = await pageWriteTarget(root, rel);
    if (!target.ok || target.rel !== rel || !target.exists) continue;
    const { content, removed } = withoutForgottenLines(await readFile(target.abs, 'utf8'), tombstones);
    if (removed.length === 0) continue;
    await writeFileAtomic(target.abs, content);
    changed.push({ path: rel, lines: removed.length });
  }
  return changed;
}

/** The check: no page the run wrote holds a line that cites or repeats a forgotten fact. */
export async function forgottenLinesGone(root: string, pages: PageChanges, tombstones: TombstoneSet): Promise<CheckFailure | null> {
  if (tombstones.entries.length === 0) return null;
  for (const rel of [...pages.created, ...pages.updated, ...pages.archived.map((a) => a.to)]) {
    const content = await readFile(path.join(root, rel), 'utf8');
    if (withoutForgottenLines(content, tombstones).removed.length === 0) continue;
    // The message names the page, never the forgotten text: it may end up in a commit message.
    return { check: 'forgotten', message: `${rel} still holds a line that cites or repeats a forgotten fact` };
  }
  return null;
}
