/**
 * Forgetting holds on every path (DESIGN §7): after any consolidator, the runner (not the consolidator)
 * removes the page lines that cite or repeat a tombstoned fact, and a check refuses a run whose pages
 * still hold one. A page that is a symbolic link is never rewritten (its target may lie outside the vault).
 * Lines are matched by forget-match.ts (ids, normalized text, word order, similarity; units across line
 * breaks; frontmatter values); a page a run made whose name states a forgotten fact is removed whole.
 */
import { readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { listWikiPages } from '../pages/discover.js';
import { pageWriteTarget } from '../vault/confine.js';
import { isGeneratedPage } from '../vault/layout.js';
import { nameStatesForgotten, scrubForgotten } from './forget-match.js';
import type { Conflict } from './consolidator.js';
import { writeFileAtomic } from './tools/atomic.js';
import { mayStateForgotten } from '../tombstones/match.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import type { CheckFailure, PageChanges } from './checks.js';

export interface Scrubbed {
  path: string;
  lines: number;
  /** The lines removed, as they were written. */
  removed: string[];
}

/**
 * Removes forgotten lines from every page of the worktree, or from the pages `only` names (those
 * pagesHoldingForgotten found: forget scanned every page once already); returns the pages it changed.
 */
export async function removeForgottenLines(root: string, tombstones: TombstoneSet, only?: readonly string[]): Promise<Scrubbed[]> {
  if (tombstones.entries.length === 0) return [];
  const changed: Scrubbed[] = [];
  for (const rel of only ?? (await listWikiPages(root))) {
    const page = await writablePageMayStateForgotten(root, rel, tombstones);
    if (page === null) continue;
    const { content, removed } = scrubForgotten(page.text, tombstones);
    if (removed.length === 0) continue;
    await writeFileAtomic(page.abs, content);
    changed.push({ path: rel, lines: removed.length, removed });
  }
  return changed;
}

/**
 * A page's text and real path when it may state a forgotten fact (match.ts `mayStateForgotten`) and the program may
 * rewrite it; else null. The text is read and tested first: most pages hold no forgotten fact's words, and resolving
 * a page's real path (a `realpath` and an `lstat` of each) cost more than the test at a million facts (issue 31).
 * listWikiPages lists files and links to files only, so the read is of a file either way; a link (the page or a
 * folder on its way) is then never rewritten: its target may lie outside the vault.
 */
async function writablePageMayStateForgotten(root: string, rel: string, tombstones: TombstoneSet): Promise<{ text: string; abs: string } | null> {
  let text: string;
  try {
    text = readFileSync(path.join(root, ...rel.split('/')), 'utf8');
  } catch {
    return null; // gone since it was listed, or not a file: pageWriteTarget would not have it either
  }
  if (!mayStateForgotten(text, tombstones)) return null;
  const target = await pageWriteTarget(root, rel);
  if (!target.ok || target.rel !== rel || !target.exists) return null;
  return { text: await readFile(target.abs, 'utf8'), abs: target.abs };
}

/** The pages removeForgottenLines would rewrite, each with the lines it would take off (forget's intent names them). */
export async function pagesHoldingForgotten(root: string, tombstones: TombstoneSet): Promise<{ path: string; lines: string[] }[]> {
  if (tombstones.entries.length === 0) return [];
  const held: { path: string; lines: string[] }[] = [];
  for (const rel of await listWikiPages(root)) {
    // Most pages hold none of the forgotten facts' words: told from the text, not unit by unit.
    const page = await writablePageMayStateForgotten(root, rel, tombstones);
    if (page === null) continue;
    const { removed } = scrubForgotten(page.text, tombstones);
    if (removed.length > 0) held.push({ path: rel, lines: removed });
  }
  return held;
}

/** The lines that cite or repeat a forgotten fact on the pages of `root` that removeForgottenLines would rewrite. */
export async function forgottenLinesHeld(root: string, tombstones: TombstoneSet): Promise<string[]> {
  return (await pagesHoldingForgotten(root, tombstones)).flatMap((p) => p.lines);
}

/** Whether a page's text holds a line, unit or frontmatter value that states a forgotten fact. */
export function holdsForgotten(content: string, tombstones: TombstoneSet): boolean {
  return scrubForgotten(content, tombstones).removed.length > 0;
}

/**
 * How many forgotten lines a run took off the pages: those the pages held before it (the consolidator may have
 * dropped them itself, as the offline one does), plus those the runner removed that were not among them (a model
 * that wrote one back). A line the runner removed that the pages held before counts once.
 */
export function forgottenRemoved(heldBefore: readonly string[], scrubbed: readonly Scrubbed[]): number {
  const before = new Map<string, number>();
  for (const line of heldBefore) before.set(line, (before.get(line) ?? 0) + 1);
  let written = 0;
  for (const line of scrubbed.flatMap((s) => s.removed)) {
    const left = before.get(line) ?? 0;
    if (left > 0) before.set(line, left - 1);
    else written++;
  }
  return heldBefore.length + written;
}

/** The check: no page the run wrote holds a line that cites or repeats a forgotten fact. */
export async function forgottenLinesGone(root: string, pages: PageChanges, tombstones: TombstoneSet): Promise<CheckFailure | null> {
  if (tombstones.entries.length === 0) return null;
  for (const rel of [...pages.created, ...pages.updated, ...pages.archived.map((a) => a.to)]) {
    if (nameStatesForgotten(path.posix.basename(rel, '.md'), tombstones) && !pages.updated.includes(rel)) {
      return { check: 'forgotten', message: `${rel}: the page's name states a forgotten fact` };
    }
    const content = await readFile(path.join(root, rel), 'utf8');
    if (scrubForgotten(content, tombstones).removed.length === 0) continue;
    // The message names the page, never the forgotten text: it may end up in a commit message.
    return { check: 'forgotten', message: `${rel} still holds a line that cites or repeats a forgotten fact` };
  }
  return null;
}

/**
 * Removes the pages a run created (`created`, vault-relative) whose name states a forgotten fact: a name cannot be
 * scrubbed line by line, and index.md, links and git trees would carry it. Returns the pages removed.
 */
export async function removeForgottenNames(root: string, created: readonly string[], tombstones: TombstoneSet): Promise<string[]> {
  const gone: string[] = [];
  for (const rel of created) {
    if (isGeneratedPage(rel) || !nameStatesForgotten(path.posix.basename(rel, '.md'), tombstones)) continue;
    const target = await pageWriteTarget(root, rel);
    if (!target.ok || target.rel !== rel || !target.exists) continue;
    await rm(target.abs, { force: true });
    gone.push(rel);
  }
  return gone;
}

/** The conflicts to file: none that names a forgotten fact's id or states a forgotten fact in its subject or note. */
export function conflictsWithoutForgotten(conflicts: readonly Conflict[], tombstones: TombstoneSet): Conflict[] {
  return conflicts.filter((c) => !c.fact_ids.some((id) => tombstones.hasId(id)) && scrubForgotten(`- ${c.subject}: ${c.note}`, tombstones).removed.length === 0);
}
