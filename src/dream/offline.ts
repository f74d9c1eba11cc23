/**
 * The offline consolidator: deterministic rules, no model (DESIGN §7). Same input, same pages.
 * - routes facts to pages by the page that already holds their subject, else their first tag, else
 *   their category;
 * - merges duplicates (same normalized text) into one line that cites every occurrence, on whichever
 *   page the statement already stands (its tags may differ from one day to the next);
 * - keyed facts (`subject:: value`): the newest value stands under "## Current", older ones move to
 *   "## History" with the date they were superseded; a different value on the same day is a conflict
 *   (unless it is a correction), flagged rather than guessed;
 * - removes forgotten (tombstoned) facts from pages.
 * It only appends to lines or moves them: a line a person wrote stays, in its page, and a page no rule
 * touches is not rewritten (its line endings, blank lines and code stay as they were).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Category, Fact } from '../logs/factlog.js';
import { isGeneratedPage } from '../vault/layout.js';
import { listWikiPages } from '../pages/discover.js';
import { normalizeText } from '../text/normalize.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import type { Conflict, ConsolidationInput, ConsolidationResult, Consolidator } from './consolidator.js';
import { cite } from './generate.js';
import { pageWriteTarget } from '../vault/confine.js';

const ZONE_OF: Record<Category, string> = {
  preference: '3_Personal',
  relationship: '3_Personal',
  moment: '3_Personal',
  principle: '3_Personal',
  decision: '1_Projects',
  commitment: '1_Projects',
  fact: '2_Areas',
  entity: '2_Areas',
  skill: '2_Areas',
  correction: '2_Areas',
};

const CATEGORY_PAGE: Record<Category, string> = {
  preference: 'Preferences',
  relationship: 'Relationships',
  moment: 'Moments',
  principle: 'Principles',
  decision: 'Decisions',
  commitment: 'Commitments',
  fact: 'Facts',
  entity: 'Entities',
  skill: 'Skills',
  correction: 'Facts',
};

const SECTIONS = ['Current', 'Notes', 'History', 'Conflicts'] as const;
type Section = (typeof SECTIONS)[number];

const CITATION_RE = /\s*!?\[\[\d{4}-\d{2}-\d{2}#\^([A-Za-z0-9-]+)(?:\|[^\]]*)?\]\]/g;
const KEYED_RE = /^(.+?)::\s*(.*)$/;

export function createOfflineConsolidator(): Consolidator {
  return { name: 'offline', consolidate };
}

/** A page as lines, with its sections found by heading. */
class Page {
  /** The lines as read, to tell whether any rule changed the page. */
  private readonly before: string;

  constructor(
    readonly rel: string,
    public lines: string[],
    readonly isNew: boolean,
    readonly original: string,
  ) {
    this.before = lines.join('\n');
  }

  /** True when a rule changed a line: a page no rule touched is left byte for byte as a person wrote it. */
  changed(): boolean {
    return this.isNew || this.lines.join('\n') !== this.before;
  }

  text(): string {
    // One blank line between blocks: moving lines between sections must not leave gaps behind. Blank
    // lines in the frontmatter and in fenced code blocks are a person's content and stay as they are.
    const lines: string[] = [];
    let fence: string | null = null;
    let frontmatter = this.lines[0] === '---';
    this.lines.forEach((line, i) => {
      if (frontmatter && i > 0 && (line === '---' || line === '...')) frontmatter = false;
      const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (marker !== undefined && fence === null) fence = marker;
      else if (marker !== undefined && fence !== null && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
      if (line.trim() === '' && !frontmatter && fence === null && (lines.length === 0 || lines.at(-1)!.trim() === '')) return;
      lines.push(line);
    });
    // A page written with CRLF line endings keeps them.
    const eol = this.original.includes('\r\n') ? '\r\n' : '\n';
    return `${lines.join(eol).trimEnd()}${eol}`;
  }

  /** Index of the line after the section's last content line; creates the section when missing. */
  sectionEnd(name: Section): number {
    let start = this.lines.findIndex((l) => l.trim() === `## ${name}`);
    if (start < 0) {
      // Sections keep their canonical order when added to a page that lacks some of them.
      const later = SECTIONS.slice(SECTIONS.indexOf(name) + 1)
        .map((s) => this.lines.findIndex((l) => l.trim() === `## ${s}`))
        .filter((i) => i >= 0);
      let at = later.length > 0 ? Math.min(...later) : this.lines.length;
      while (at > 0 && this.lines[at - 1]!.trim() === '') at--;
      this.lines.splice(at, 0, '', `## ${name}`, '');
      start = at + 1;
      if (at + 3 < this.lines.length) this.lines.splice(at + 3, 0, '');
    }
    let end = start + 1;
    while (end < this.lines.length && !/^#{1,2} /.test(this.lines[end]!)) end++;
    while (end > start + 1 && this.lines[end - 1]!.trim() === '') end--;
    return end;
  }

  append(section: Section, line: string): void {
    let at = this.sectionEnd(section);
    // A blank line after the heading, and one before whatever follows the section.
    if (/^#{1,2} /.test(this.lines[at - 1] ?? '')) this.lines.splice(at++, 0, '');
    this.lines.splice(at, 0, line);
    if (at + 1 < this.lines.length && this.lines[at + 1]!.trim() !== '') this.lines.splice(at + 1, 0, '');
  }

  sectionOf(index: number): string | null {
    for (let i = index; i >= 0; i--) {
      const match = /^## (.+)$/.exec(this.lines[i]!.trim());
      if (match) return match[1]!;
    }
    return null;
  }
}

/** The statement a line makes, without its bullet, citations and category marker, normalized. */
function statementKey(line: string): string {
  const body = line.replace(/^\s*[-*+]\s+/, '').replace(CITATION_RE, '').replace(/^\[[a-z]+\]\s*/, '');
  return normalizeText(body);
}

function citedIds(line: string): string[] {
  return [...line.matchAll(CITATION_RE)].map((m) => m[1]!);
}

function subjectOf(text: string): { subject: string; key: string; value: string } | null {
  const match = KEYED_RE.exec(text);
  if (match === null || match[1]!.includes(':')) return null;
  const subject = match[1]!.trim();
  const key = normalizeText(subject);
  return key === '' ? null : { subject, key, value: match[2]!.trim() };
}

function titleOf(tag: string): string {
  const words = tag.split('/').at(-1)!.replace(/[-_]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The page a fact goes to when no page holds its subject or statement: its first tag's, else its category's. */
function routeTitle(fact: Fact): string {
  const tag = fact.tags[0];
  return tag !== undefined ? titleOf(tag) : CATEGORY_PAGE[fact.category];
}

function factLine(fact: Fact): string {
  return `- ${fact.text} ${cite(fact)}`;
}

async function consolidate(input: ConsolidationInput): Promise<ConsolidationResult> {
  const pages = new Map<string, Page>();
  for (const rel of await listWikiPages(input.root)) {
    const content = await readFile(path.join(input.root, rel), 'utf8');
    pages.set(rel, new Page(rel, content.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n'), false, content));
  }
  removeForgotten(pages, input.tombstones);

  const conflicts: Conflict[] = [];
  const facts = [...input.facts].sort((a, b) => a.date.localeCompare(b.date) || a.line - b.line);
  const route = router(pages);
  for (const fact of facts) {
    input.signal.throwIfAborted();
    const keyed = subjectOf(fact.text);
    if (keyed === null) placeStatement(pages, route, fact);
    else placeKeyed(route(fact, keyed.key), fact, keyed, conflicts);
  }

  let written = 0;
  const notRewritten: string[] = [];
  for (const page of pages.values()) {
    if (!page.changed()) continue;
    const text = page.text();
    if (text === page.original) continue;
    // A page linked in from outside the vault is read, never rewritten (DESIGN §9); its facts go uncited
    // and the runner files them in the inbox.
    const target = await pageWriteTarget(input.root, page.rel);
    if (!target.ok) {
      notRewritten.push(page.rel);
      continue;
    }
    await mkdir(path.dirname(target.abs), { recursive: true });
    await writeFile(target.abs, text);
    written++;
    input.onEvent?.({ type: 'page', path: page.rel, action: page.isNew ? 'created' : 'updated' });
  }
  const outside = notRewritten.length === 0 ? '' : `; not rewritten (a link out of the vault): ${notRewritten.join(', ')}`;
  return {
    summary: `placed ${facts.length} facts on ${written} pages; ${conflicts.length} conflicts flagged${outside}`,
    conflicts,
    notRewritten,
    llm: { calls: 0, tokens: 0 },
  };
}

/** Lines that cite only forgotten facts, or repeat a forgotten text, leave the pages; mixed lines lose the forgotten citations. */
function removeForgotten(pages: Map<string, Page>, tombstones: TombstoneSet): void {
  if (tombstones.entries.length === 0) return;
  for (const page of pages.values()) {
    page.lines = page.lines.flatMap((line) => {
      const ids = citedIds(line);
      if (ids.length === 0) return /^\s*[-*+] /.test(line) && tombstones.repeats(line) ? [] : [line];
      const forgotten = ids.filter((id) => tombstones.hasId(id));
      if (forgotten.length === ids.length || tombstones.repeats(line.replace(CITATION_RE, ''))) return [];
      if (forgotten.length === 0) return [line];
      return [line.replace(CITATION_RE, (match: string, id: string) => (tombstones.hasId(id) ? '' : match))];
    });
  }
}

/** Chooses the page for a fact: where its subject already stands, else its first tag's page, else its category's. */
function router(pages: Map<string, Page>): (fact: Fact, subjectKey: string | null) => Page {
  const find = (name: string): Page | undefined => {
    const want = normalizeText(name);
    // A generated page (digest, dashboard) is rewritten by the program: facts never go there.
    const matches = [...pages.values()].filter((p) => !isGeneratedPage(p.rel) && normalizeText(path.posix.basename(p.rel, '.md')) === want).sort((a, b) => a.rel.localeCompare(b.rel));
    return matches.find((p) => !p.rel.startsWith('5_Archives/')) ?? matches[0];
  };
  return (fact, subjectKey) => {
    if (subjectKey !== null) {
      for (const page of [...pages.values()].sort((a, b) => a.rel.localeCompare(b.rel))) {
        if (page.rel.startsWith('5_Archives/') || isGeneratedPage(page.rel)) continue;
        if (page.lines.some((l, i) => subjectOf(l.replace(/^\s*[-*+]\s+/, ''))?.key === subjectKey && page.sectionOf(i) === 'Current')) return page;
      }
    }
    const tag = fact.tags[0];
    const title = routeTitle(fact);
    const existing = find(title);
    if (existing !== undefined) return existing;
    let rel = `${ZONE_OF[fact.category]}/${title}.md`;
    if (isGeneratedPage(rel)) {
      rel = `${ZONE_OF[fact.category]}/${title} notes.md`;
      const notes = pages.get(rel);
      if (notes !== undefined) return notes;
    }
    const tags = tag !== undefined ? [tag] : [];
    const front = ['---', `title: ${JSON.stringify(title)}`, 'type: topic', `tags: [${tags.map((t) => JSON.stringify(t)).join(', ')}]`, 'status: active', '---', `# ${title}`];
    const page = new Page(rel, front, true, '');
    pages.set(rel, page);
    return page;
  };
}

/**
 * A statement already on a page (the same normalized text, whatever its tags) gets the new citation on
 * its line; only a new statement goes to the page its tag or category routes it to.
 */
function placeStatement(pages: Map<string, Page>, route: (fact: Fact, subjectKey: string | null) => Page, fact: Fact): void {
  const key = statementKey(fact.text);
  const holding = (page: Page): number =>
    page.lines.findIndex((l, i) => /^\s*[-*+] /.test(l) && statementKey(l) === key && subjectOf(l.replace(/^\s*[-*+]\s+/, '')) === null && page.sectionOf(i) !== 'Conflicts');
  // The page the fact routes to first, then the others in a fixed order.
  const routed = normalizeText(routeTitle(fact));
  const first = (p: Page): number => (normalizeText(path.posix.basename(p.rel, '.md')) === routed ? 0 : 1);
  const candidates = [...pages.values()].filter((p) => !p.rel.startsWith('5_Archives/')).sort((a, b) => first(a) - first(b) || a.rel.localeCompare(b.rel));
  for (const page of candidates) {
    const index = holding(page);
    if (index < 0) continue;
    if (!citedIds(page.lines[index]!).includes(fact.id)) page.lines[index] = `${page.lines[index]!.trimEnd()} ${cite(fact)}`;
    return;
  }
  route(fact, null).append('Notes', factLine(fact));
}

function placeKeyed(page: Page, fact: Fact, keyed: { subject: string; key: string; value: string }, conflicts: Conflict[]): void {
  const currentIndex = page.lines.findIndex((l, i) => subjectOf(l.replace(/^\s*[-*+]\s+/, ''))?.key === keyed.key && page.sectionOf(i) === 'Current');
  if (currentIndex < 0) {
    page.append('Current', factLine(fact));
    return;
  }
  const current = page.lines[currentIndex]!;
  if (citedIds(current).includes(fact.id)) return;
  const currentValue = normalizeText(subjectOf(current.replace(/^\s*[-*+]\s+/, '').replace(CITATION_RE, ''))?.value ?? '');
  if (currentValue === normalizeText(keyed.value)) {
    page.lines[currentIndex] = `${current.trimEnd()} ${cite(fact)}`; // the same value again: one line, every citation
    return;
  }
  const currentDates = [...current.matchAll(/\[\[(\d{4}-\d{2}-\d{2})#\^/g)].map((m) => m[1]!).sort();
  const sameDay = currentDates.at(-1) === fact.date;
  if (sameDay && fact.category !== 'correction') {
    const citations = [...current.matchAll(/\[\[\d{4}-\d{2}-\d{2}#\^[A-Za-z0-9-]+\]\]/g)].map((m) => m[0]);
    conflicts.push({ subject: keyed.subject, fact_ids: [...citedIds(current), fact.id], note: `two values on ${fact.date}: "${currentValue}" and "${keyed.value}"` });
    page.append('Conflicts', `- ${keyed.subject}: "${keyed.value}" or the earlier value? (both on ${fact.date}) ${[...citations, cite(fact)].join(' ')}`);
  }
  // The newest value stands; the one it replaces keeps its words and citations under History.
  page.lines.splice(currentIndex, 1);
  page.append('History', `${current.trimEnd()} (until ${fact.date})`);
  page.append('Current', factLine(fact));
}
