/**
 * Everything known about one subject, in one answer an agent can read within a character budget:
 * its page (found by name, title or alias; else the pages search ranks first) with their leads and current values, the pages
 * they link and that link to them, the recent facts that mention it, and its open commitments.
 * Sections are filled in that order of importance; what does not fit is counted, not silently dropped.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { listLogDates, readLog, type Fact } from '../logs/factlog.js';
import { listWikiPages } from '../pages/discover.js';
import { linkResolver } from '../pages/links.js';
import { parsePage, type ParsedPage } from '../pages/parse.js';
import { containsWords, normalizeText } from '../text/normalize.js';
import { readTombstones } from '../tombstones/tombstones.js';
import { ARCHIVE_DIR, isGeneratedPage } from '../vault/layout.js';
import type { VaultReader } from '../vault/reader.js';
import { CITATION_RE, withoutCitations } from '../text/citation.js';

export const DEFAULT_CONTEXT_BUDGET = 4_000;

export interface ContextFact {
  id: string;
  date: string;
  category: string;
  text: string;
  link: string;
}

export interface ContextPage {
  path: string;
  title: string;
  /** The page's first paragraph under its title. */
  lead: string;
  /** `key:: value` lines outside History and Conflicts sections: what holds now. */
  current: Array<{ key: string; value: string }>;
  /** Unchecked tasks (`- [ ] …`) on the page. */
  open_tasks: string[];
  link: string;
}

export interface SubjectContext {
  subject: string;
  pages: ContextPage[];
  /** Pages the subject's pages link to, and pages linking to them. */
  linked: Array<{ path: string; title: string; link: string; direction: 'out' | 'in' }>;
  /** Facts that mention the subject, newest first. */
  recent_facts: ContextFact[];
  /** Commitment facts that mention the subject, newest first, and open tasks on its pages. */
  commitments: ContextFact[];
  budget: number;
  /** Characters of this answer as JSON. */
  chars: number;
  /** Items left out to keep within the budget, per section. */
  omitted: { pages: number; linked: number; recent_facts: number; commitments: number };
}

export interface ContextOptions {
  budget?: number;
  /** Most facts to consider per list before the budget applies (default 20). */
  limit?: number;
}

const SKIPPED_SECTIONS = /^(history|conflicts?)$/i;
const KEYED_LINE_RE = /^\s*[-*+]\s+(?:\[[a-z]+\]\s*)?\[?([^[\]:]+?)::\s*([^\]]*?)\]?(?:\s+(?:\(until [^)]*\)|\[\[[^\]]*\]\]|#\S+))*\s*$/;

const pageLink = (page: ParsedPage): string => `[[${path.posix.basename(page.path, '.md')}]]`;

export async function subjectContext(vault: VaultReader, subject: string, options: ContextOptions = {}): Promise<SubjectContext> {
  const budget = options.budget ?? DEFAULT_CONTEXT_BUDGET;
  const limit = options.limit ?? 20;
  const wanted = normalizeText(subject);
  const pages: ParsedPage[] = [];
  for (const rel of await listWikiPages(vault.root)) {
    if (isGeneratedPage(rel)) continue;
    pages.push(parsePage(rel, await readFile(path.join(vault.root, rel))));
  }
  const byPath = new Map(pages.map((p) => [p.path, p]));
  const resolve = linkResolver(pages.map((p) => ({ path: p.path, aliases: p.aliases })));

  // Its own page by name, title or alias; then the pages search ranks first for it.
  const chosen: string[] = [];
  const named = resolve(subject) ?? pages.find((p) => normalizeText(p.title) === wanted)?.path ?? null;
  if (named !== null) chosen.push(named);
  if (named === null) {
    // No page of its own: the pages that search ranks first for it (those linking to its page otherwise show as linked).
    const hits = await vault.search(subject, { kind: 'page', k: 10, recordRecall: false }).catch(() => []);
    for (const hit of hits) if (!chosen.includes(hit.path) && byPath.has(hit.path) && !hit.path.startsWith(ARCHIVE_DIR) && chosen.length < 3) chosen.push(hit.path);
  }

  const contextPages = chosen.map((rel) => describePage(byPath.get(rel)!));
  const linked: SubjectContext['linked'] = [];
  const seen = new Set(chosen);
  for (const rel of chosen) {
    for (const link of byPath.get(rel)!.links) {
      const target = resolve(link.target, rel);
      if (target === null || seen.has(target)) continue;
      seen.add(target);
      linked.push({ path: target, title: byPath.get(target)?.title ?? target, link: `[[${path.posix.basename(target, '.md')}]]`, direction: 'out' });
    }
  }
  for (const page of pages) {
    if (seen.has(page.path)) continue;
    if (page.links.some((link) => { const t = resolve(link.target, page.path); return t !== null && chosen.includes(t); })) {
      seen.add(page.path);
      linked.push({ path: page.path, title: page.title, link: pageLink(page), direction: 'in' });
    }
  }

  // Facts that name the subject (as words of their text, or as a tag), newest first.
  const tombstones = await readTombstones(vault.root);
  const mentions: Fact[] = [];
  const dates = (await listLogDates(vault.root)).reverse();
  for (const date of dates) {
    for (const fact of (await readLog(vault.root, date)).facts.reverse()) {
      if (tombstones.hasId(fact.id) || tombstones.repeats(fact.text)) continue;
      if (containsWords(normalizeText(fact.text), wanted) || fact.tags.some((t) => normalizeText(t) === wanted)) mentions.push(fact);
    }
    if (mentions.length >= limit * 4) break;
  }
  const asContext = (fact: Fact): ContextFact => ({ id: fact.id, date: fact.date, category: fact.category, text: fact.text, link: `[[${fact.date}#^${fact.id}]]` });
  const commitments = mentions.filter((f) => f.category === 'commitment').slice(0, limit).map(asContext);
  const recent = mentions.filter((f) => f.category !== 'commitment').slice(0, limit).map(asContext);

  return fitBudget({ subject, pages: contextPages, linked, recent_facts: recent, commitments, budget, chars: 0, omitted: { pages: 0, linked: 0, recent_facts: 0, commitments: 0 } });
}

function describePage(page: ParsedPage): ContextPage {
  const lines = page.chunks.flatMap((chunk) => chunk.text.split('\n').map((line) => ({ line, section: chunk.heading ?? '' })));
  // The lead: the first paragraph of prose (not a heading, list, table or quote).
  const lead: string[] = [];
  for (const { line } of lines) {
    const trimmed = line.trim();
    if (trimmed === '' || /^(#|[-*+]\s|\d+\.\s|\||>|```)/.test(trimmed)) {
      if (lead.length > 0) break;
      continue;
    }
    lead.push(trimmed);
  }
  const current: ContextPage['current'] = [];
  const open_tasks: string[] = [];
  for (const { line, section } of lines) {
    if (SKIPPED_SECTIONS.test(section.trim())) continue;
    const task = /^\s*[-*+]\s+\[ \]\s+(.*)$/.exec(line);
    if (task) open_tasks.push(withoutCitations(task[1]!).trim());
    const keyed = KEYED_LINE_RE.exec(line.replace(CITATION_RE, ' ').trimEnd());
    if (keyed && !keyed[1]!.includes('[')) current.push({ key: keyed[1]!.trim(), value: keyed[2]!.trim() });
  }
  return { path: page.path, title: page.title, lead: withoutCitations(lead.join(' ')).trim(), current, open_tasks, link: pageLink(page) };
}

/** Keeps sections in order of importance while the JSON fits the budget; always keeps the first page. */
function fitBudget(full: SubjectContext): SubjectContext {
  const out: SubjectContext = { ...full, pages: [], linked: [], recent_facts: [], commitments: [], omitted: { pages: 0, linked: 0, recent_facts: 0, commitments: 0 } };
  const size = (): number => JSON.stringify(out).length;
  const sections = ['pages', 'commitments', 'recent_facts', 'linked'] as const;
  for (const section of sections) {
    const items = full[section] as unknown[];
    const into = out[section] as unknown[];
    for (const item of items) {
      into.push(item);
      if (size() > full.budget && !(section === 'pages' && into.length === 1)) {
        into.pop();
        out.omitted[section] = items.length - into.length;
        break;
      }
    }
  }
  // The first page alone may exceed a small budget: cut its lead rather than send nothing.
  const first = out.pages[0];
  if (first !== undefined && size() > full.budget) {
    const over = size() - full.budget;
    out.pages[0] = { ...first, lead: `${first.lead.slice(0, Math.max(0, first.lead.length - over - 1))}…`, current: first.current, open_tasks: first.open_tasks };
  }
  out.chars = size();
  out.chars = size(); // the count's own digits
  return out;
}
