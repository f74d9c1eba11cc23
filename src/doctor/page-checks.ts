/** Doctor checks of the wiki pages: frontmatter that does not parse, and wikilinks that lead nowhere. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { listLogDates } from '../logs/factlog.js';
import { listWikiPages } from '../pages/discover.js';
import { isAttachmentTarget, linkResolver } from '../pages/links.js';
import { parsePage, type ParsedPage } from '../pages/parse.js';
import type { Check, Problem } from './problem.js';

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
  const resolve = linkResolver(
    parsed.filter((p) => !LINKING_ROOT_FILES.includes(p.path)).map((p) => ({ path: p.path, aliases: p.aliases })),
    await listLogDates(root),
  );
  for (const page of parsed) {
    for (const link of page.links) {
      if (link.target === '' || isAttachmentTarget(link.target)) continue;
      if (resolve(link.target, page.path) !== null || LINKING_ROOT_FILES.some((f) => f.replace(/\.md$/, '') === link.target)) continue;
      problems.push({ code: 'BROKEN_LINK', path: page.path, line: link.line, message: `[[${link.target}]] leads to no page or log` });
    }
  }
  return problems;
};
