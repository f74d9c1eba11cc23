/**
 * Every claim a run writes cites a fact (DESIGN §7, issue 26), whichever consolidator wrote it. A statement is
 * a list item or a paragraph line with words, outside frontmatter, headings, fenced code and comments, that is
 * more than navigation (`- [[Link]]`, `Part of [[Hub]].`, `See also [[X]]`). Each one the run added or
 * changed on a page it wrote must cite at least one fact that its log holds (`[[YYYY-MM-DD#^f-…]]`); a lead
 * or summary line that restates cited statements passes when it carries their citations. Lines that stood on
 * the pages the run touched before it (a person's writing, the dream's earlier lines) are not the run's.
 *
 * The run fails (check `uncited_claim`) rather than have the runner strip the lines: a stripped page is not the
 * one the consolidator wrote (a lead cut in half reads wrong), a failure counts as a try, so a model that keeps
 * writing unsupported lines ends in a skipped day rather than a wiki of them, and the failure names each line,
 * so a person reading `dream --json` (and the model told of it) sees exactly what to cite or remove.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { preloadFiles, showFile } from '../git/worktree.js';
import { FenceTracker } from '../text/fence.js';
import { isGeneratedPage } from '../vault/layout.js';
import type { CheckFailure, PageChanges } from './checks.js';
import { CitedFacts } from './cited-facts.js';

/** Words that only point elsewhere: a line of links and these says nothing of its own. */
const NAVIGATION_WORDS = new Set([
  'see', 'also', 'part', 'parts', 'of', 'related', 'more', 'on', 'in', 'at', 'and', 'or', 'the', 'moved', 'to', 'back', 'up', 'index',
  'hub', 'page', 'pages', 'main', 'previous', 'next', 'continued', 'from', 'tags', 'links',
]);
const LINK_RE = /!?\[\[[^\]]*\]\]|!?\[[^\]]*\]\([^)]*\)/g;
const TAG_RE = /(^|\s)#[\p{L}\p{N}_/-]+/gu;
const COMMENT_RE = /^<!--.*-->$/;
/** Lines named in a failure; the rest are counted. */
const SHOWN = 3;

/** True when `line` (trimmed, not in frontmatter or code) is a statement: words beyond headings and navigation. */
export function isStatement(line: string): boolean {
  const text = line.trim();
  if (text === '' || /^#{1,6}(\s|$)/.test(text) || COMMENT_RE.test(text)) return false;
  if (!/\p{L}/u.test(text)) return false;
  const links = text.match(LINK_RE)?.length ?? 0;
  const rest = text.replace(LINK_RE, ' ').replace(TAG_RE, ' ');
  const words = rest.toLowerCase().match(/\p{L}+/gu) ?? [];
  if (words.length === 0) return false;
  return !(links > 0 && words.every((w) => NAVIGATION_WORDS.has(w)));
}

/** The lines of a page outside its frontmatter and fenced code, with their 1-based numbers. */
export function proseLines(content: string): Array<{ line: number; text: string }> {
  const lines = content.split('\n').map((l) => l.replace(/\r$/, ''));
  const out: Array<{ line: number; text: string }> = [];
  const fences = new FenceTracker();
  let frontmatter = lines[0] === '---';
  lines.forEach((text, i) => {
    if (frontmatter) {
      if (i > 0 && (text === '---' || text === '...')) frontmatter = false;
      return;
    }
    if (fences.inCode(text)) return;
    out.push({ line: i + 1, text });
  });
  return out;
}

/** The trimmed lines the given pages held at `base`: what a run found there is not its own. */
export async function linesAtBase(vaultRoot: string, base: string, rels: Iterable<string>): Promise<Set<string>> {
  const lines = new Set<string>();
  const wanted = [...rels];
  // One git process for all of them: a process per page cost more than the rest of a late backlog run.
  await preloadFiles(vaultRoot, base, wanted);
  for (const rel of wanted) {
    const before = await showFile(vaultRoot, base, rel);
    if (before !== null) for (const line of before.toString('utf8').split('\n')) lines.add(line.trim());
  }
  return lines;
}

export async function claimsCited(root: string, vaultRoot: string, base: string, pages: PageChanges): Promise<CheckFailure | null> {
  const written = [...pages.created, ...pages.updated, ...pages.archived.map((a) => a.to)].filter((rel) => !isGeneratedPage(rel));
  if (written.length === 0) return null;
  const had = await linesAtBase(vaultRoot, base, [...pages.updated, ...pages.archived.map((a) => a.from)]);
  const facts = new CitedFacts(root);
  const uncited: string[] = [];
  for (const rel of written.sort()) {
    for (const { line, text } of proseLines(await readFile(path.join(root, rel), 'utf8'))) {
      if (had.has(text.trim()) || !isStatement(text)) continue;
      if ((await facts.of(text)).length > 0) continue;
      uncited.push(`${rel}:${line} "${excerpt(text.trim())}"`);
    }
  }
  if (uncited.length === 0) return null;
  const more = uncited.length > SHOWN ? ` and ${uncited.length - SHOWN} more` : '';
  return {
    check: 'uncited_claim',
    message:
      `${uncited.length} ${uncited.length === 1 ? 'line' : 'lines'} the run wrote ${uncited.length === 1 ? 'states' : 'state'} something without citing a fact of the logs: ${uncited.slice(0, SHOWN).join('; ')}${more}; ` +
      'cite the fact each comes from as [[YYYY-MM-DD#^f-…]] (read_log gives every fact its cite), or remove the line',
  };
}

const excerpt = (text: string): string => (text.length > 80 ? `${text.slice(0, 77)}...` : text);
