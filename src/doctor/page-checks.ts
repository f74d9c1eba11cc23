/** Doctor checks of the wiki pages: frontmatter that does not parse, and wikilinks that lead nowhere. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isAdopted, pageOwners } from '../dream/ownership.js';
import { listLogDates, readLog } from '../logs/factlog.js';
import { listWikiPages } from '../pages/discover.js';
import { isAttachmentTarget, linkResolver } from '../pages/links.js';
import { parsePage, type ParsedPage } from '../pages/parse.js';
import { citedFactId } from '../pages/wikilink.js';
import { isGeneratedPage } from '../vault/layout.js';
import type { Check, Problem } from './problem.js';

const LOG_NAME_RE = /^\d{4}-\d{2}-\d{2}\.md$/;

/** Root files link too (index.md, MEMORY.md); their links are checked like a page's. */
const LINKING_ROOT_FILES = ['index.md', 'MEMORY.md'];

export const checkPages: Check = async ({ root }) => {
  const problems: Problem[] = [];
  const parsed: ParsedPage[] = [];
  for (const rel of [...(await listWikiPages(root)), ...LINKING_ROOT_FILES]) {
    const content = await readFile(path.join(root, rel)).catch(() => null);
    if (content === null) continue;
    const page = parsePage(rel, content);
    parsed.push(page);
    if (page.frontmatterError !== undefined) {
      problems.push({ code: 'PAGE_FRONTMATTER', path: rel, line: 1, message: `frontmatter does not parse (${page.frontmatterError}); the page is indexed as plain text` });
    }
  }
  const logDates = await listLogDates(root);
  const resolve = linkResolver(
    parsed.filter((p) => !LINKING_ROOT_FILES.includes(p.path)).map((p) => ({ path: p.path, aliases: p.aliases })),
    logDates,
  );
  for (const page of parsed) {
    // A page named like a daily log makes `[[date#^id]]` ambiguous in Obsidian (the old digest names did).
    if (LOG_NAME_RE.test(path.posix.basename(page.path))) {
      problems.push({ code: 'PAGE_NAME', path: page.path, line: null, message: `shares its name with logs/${path.posix.basename(page.path)}, so [[${path.posix.basename(page.path, '.md')}]] links are ambiguous in Obsidian; rename it (e.g. "Digest ${path.posix.basename(page.path)}")` });
    }
  }
  const blocks = await blockIds(root, logDates);
  // On an adopted vault a person's own notes often link to pages not written yet (Obsidian shows them as
  // unresolved, which is normal): counted in one note, never an error. Links on the dream's pages are still checked.
  const own = (await isAdopted(root)) ? await ownNotes(root, parsed.map((p) => p.path)) : new Set<string>();
  let unresolved = 0;
  for (const page of parsed) {
    for (const link of page.links) {
      if (link.target === '' || isAttachmentTarget(link.target)) continue;
      if (resolve(link.target, page.path) !== null || LINKING_ROOT_FILES.some((f) => f.replace(/\.md$/, '') === link.target)) {
        const cited = citedFactId(link);
        if (cited !== null) problems.push(...citationProblems(blocks, page.path, link.line, link.target, cited));
        continue;
      }
      if (own.has(page.path) && citedFactId(link) === null) unresolved++;
      else problems.push({ code: 'BROKEN_LINK', path: page.path, line: link.line, message: `[[${link.target}]] leads to no page or log` });
    }
  }
  if (unresolved > 0) {
    const links = unresolved === 1 ? '1 link' : `${unresolved} links`;
    problems.push({
      code: 'UNRESOLVED_LINKS',
      path: null,
      line: null,
      message: `${links} in your own notes ${unresolved === 1 ? 'leads' : 'lead'} to no page yet, as Obsidian allows; nothing to fix`,
      severity: 'info',
    });
  }
  return problems;
};

/** A person's notes: every page but the dream's, the generated ones and the root files (new, uncommitted notes included). */
async function ownNotes(root: string, rels: readonly string[]): Promise<Set<string>> {
  const pages = rels.filter((rel) => !LINKING_ROOT_FILES.includes(rel) && !isGeneratedPage(rel));
  const owners = await pageOwners(root, pages);
  return new Set(pages.filter((rel) => owners.get(rel) !== 'dream'));
}

interface LogBlocks {
  /** Ids written in the file as `^id`. */
  written: Set<string>;
  /** Ids the parser derives for lines without one (citable in search, not in Obsidian). */
  derived: Set<string>;
}

async function blockIds(root: string, dates: readonly string[]): Promise<Map<string, LogBlocks>> {
  const byDate = new Map<string, LogBlocks>();
  for (const date of dates) {
    const { facts } = await readLog(root, date);
    byDate.set(date, {
      written: new Set(facts.filter((f) => f.explicitId).map((f) => f.id)),
      derived: new Set(facts.filter((f) => !f.explicitId).map((f) => f.id)),
    });
  }
  return byDate;
}

/** A citation `[[date#^id]]` resolves when the log of that date holds `^id` on a fact line. */
function citationProblems(blocks: ReadonlyMap<string, LogBlocks>, page: string, line: number, target: string, id: string): Problem[] {
  const date = /\d{4}-\d{2}-\d{2}/.exec(target)![0];
  const log = blocks.get(date);
  if (log === undefined || log.written.has(id)) return [];
  if (log.derived.has(id)) {
    return [{ code: 'CITATION_NO_BLOCK', path: page, line, message: `[[${target}#^${id}]] cites a hand-written line that lacks ^${id}; \`vaultkeeper doctor --fix\` appends it` }];
  }
  return [{ code: 'BROKEN_CITATION', path: page, line, message: `[[${target}#^${id}]] cites no fact of logs/${date}.md` }];
}
