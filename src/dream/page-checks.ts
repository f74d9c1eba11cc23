/**
 * Checks of the pages a run wrote that keep the wiki readable (issue 10), for any consolidator: no page
 * grows past the size bound, every link the run added leads to a page (or a log), and no disputed value
 * is promoted to a page's lead (its opening lines or `## Current`) while the conflict stands. Each has
 * its own check name (page_size, broken_link, disputed_lead), so a failed run says which rule it broke.
 */
import { showFile } from '../git/worktree.js';
import { listLogDates } from '../logs/factlog.js';
import { listWikiPages } from '../pages/discover.js';
import { linkResolver } from '../pages/links.js';
import { parsePageMemo } from '../pages/parse-memo.js';
import { MAX_PAGE_BYTES, MAX_PAGE_LINES } from './bound.js';
import type { CheckFailure, PageChanges } from './checks.js';
import type { Conflict } from './consolidator.js';
import { citedIds } from '../text/citation.js';
import type { Fact } from '../logs/factlog.js';
import { pageBytes, pageText } from '../pages/page-read.js';

const LINK_RE = /!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]/g;

const linksOf = (text: string): Set<string> => new Set([...text.matchAll(LINK_RE)].map((m) => m[1]!.trim()).filter((t) => t !== ''));
const tooBig = (text: string): boolean => Buffer.byteLength(text) > MAX_PAGE_BYTES || text.split('\n').length > MAX_PAGE_LINES;

/**
 * The link targets the batch's facts hold as written: a fact's `[[link]]` to a page that does not exist is
 * kept as the person wrote it (Obsidian shows it as a page yet to write), never a broken link of the run's.
 */
export const writtenLinks = (facts: readonly Fact[]): Set<string> => linksOf(facts.map((f) => f.text).join('\n'));

export async function pageChecks(root: string, vaultRoot: string, base: string, pages: PageChanges, conflicts: readonly Conflict[], written: ReadonlySet<string> = new Set()): Promise<CheckFailure | null> {
  const changed = [...pages.created, ...pages.updated];
  if (changed.length === 0) return null;
  const all = await listWikiPages(root);
  const resolve = linkResolver(
    all.map((rel) => ({ path: rel, aliases: parsePageMemo(rel, pageBytes(root, rel)).frontmatter.aliases })),
    await listLogDates(root),
  );
  const disputed = new Set(conflicts.flatMap((c) => c.fact_ids));
  for (const rel of changed) {
    const text = pageText(root, rel);
    const before = (await showFile(vaultRoot, base, rel))?.toString('utf8') ?? null;
    // A person's page that was already long is theirs to split; the run must not make a page too long.
    if (tooBig(text) && (before === null || !tooBig(before))) {
      return { check: 'page_size', message: `${rel} is past ${MAX_PAGE_BYTES / 1024} KB or ${MAX_PAGE_LINES} lines; split it into parts by period with a hub page linking them` };
    }
    const had = before === null ? new Set<string>() : linksOf(before);
    for (const target of linksOf(text)) {
      if (had.has(target) || written.has(target) || resolve(target, rel) !== null) continue;
      return { check: 'broken_link', message: `${rel} links [[${target}]], which leads to no page; create the page or remove the link` };
    }
    let section: string | null = null;
    for (const line of text.split('\n')) {
      const heading = /^## (.+)$/.exec(line.trim());
      if (heading) section = heading[1]!;
      if (section !== null && section !== 'Current') continue;
      const id = citedIds(line).find((f) => disputed.has(f));
      if (id !== undefined) return { check: 'disputed_lead', message: `${rel} states the disputed fact ${id} in its lead; keep both values under ## Conflicts until a person resolves them` };
    }
  }
  return null;
}
