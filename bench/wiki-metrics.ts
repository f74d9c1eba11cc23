/**
 * What a dream made of a conversation, read from the files (the loop's page columns, loop.ts):
 * - statements that are a log line verbatim: a statement is a list item citing exactly one fact, outside
 *   `## Related`, `## Parts` and `## Mentions`; it is verbatim when its text, without citations, links made
 *   plain (`[[Melanie]]` → Melanie) and the dream's own marks (`(until …)`, `(due …)`, `(disputed)`), equals
 *   the cited fact's text, whitespace normalized;
 * - entity pages: the expected names (expected-entities.ts) that resolve to a page by title or alias;
 * - people merged: `type: person` pages whose title and aliases name two different expected people;
 * - hubs (pages with `## Parts`) without a lead: nothing between the H1 and the first `##` but "Part of [[…]].";
 * - MEMORY.md: its durable lines (list items outside `## Often recalled`), and those that are a question or chatter.
 * Also the `## Current` lines of pages and MEMORY.md, for the update stream (updates.ts).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { listLogDates, readLog } from '#src/logs/factlog.js';
import { listWikiPages } from '#src/pages/discover.js';
import { linkResolver } from '#src/pages/links.js';
import { parsePage } from '#src/pages/parse.js';
import type { ExpectedEntities } from './expected-entities.js';

/** Pages the runner writes for review, and generated pages whose citations place nothing. */
const SKIPPED = (rel: string): boolean => rel === '0_Inbox/conflicts.md' || rel === '0_Inbox/unsorted.md' || rel.startsWith('4_Resources/digests/') || rel === '4_Resources/Dashboard.md';
const CITE_RE = /\[\[\d{4}-\d{2}-\d{2}#\^(f-[0-9a-z]+)(?:\|[^\]]*)?\]\]/gu;
const LINK_RE = /!?\[\[([^\]|]*)(?:\|([^\]]*))?\]\]/gu;
const ITEM_RE = /^\s*[-*+] (?:\[[ xX]\] )?/u;
const MARK_RE = /\s*\((?:until \d{4}-\d{2}-\d{2}|due \d{4}-\d{2}-\d{2}|disputed)\)/gu;
const PART_OF_RE = /^Part of \[\[[^\]]+\]\]\.?$/u;
/** A durable line that opens like a greeting, thanks, a goodbye or an interjection (after any "Name: " label). */
const CHATTER_RE =
  /^(?:hi|hey|hello|heya|yo|thanks|thank you|thx|bye|goodbye|see (?:you|ya)|catch (?:you|ya)|take care|talk (?:to you )?(?:soon|later)|congrats|congratulations|wow|whoa|omg|oh my|haha|lol|aww+|yay|woohoo|good (?:morning|night|evening|afternoon|to see|to hear)|nice to|great to (?:see|hear|chat|talk)|long time)\b/iu;

export interface WikiMetrics {
  statements: number;
  verbatim: number;
  /** A few verbatim statements, for the report. */
  verbatimExamples: string[];
  entities: { expected: string[]; found: string[]; missing: string[] };
  merged: Array<{ page: string; names: string[] }>;
  hubs: number;
  hubsWithoutLead: string[];
  memory: { lines: number; questions: string[]; chatter: string[] };
}

/** A statement's text as a reader sees it: no list mark, no citations, links as their text, no marks of the dream's. */
export function statementText(line: string): string {
  return line
    .replace(ITEM_RE, '')
    .replace(CITE_RE, ' ')
    .replace(LINK_RE, (_all, target: string, alias: string | undefined) => alias ?? target.split('#')[0]!)
    .replace(MARK_RE, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** The cited fact ids of a line, once each. */
export function citedIds(line: string): string[] {
  return [...new Set([...line.matchAll(CITE_RE)].map((m) => m[1]!))];
}

/** True when the text between a page's H1 and its first `##` holds more than blank lines and "Part of [[…]].". */
export function hasLead(text: string): boolean {
  const lines = bodyLines(text);
  const h1 = lines.findIndex((l) => /^# /u.test(l));
  const lead: string[] = [];
  for (const line of lines.slice(h1 + 1)) {
    if (/^## /u.test(line)) break;
    if (line.trim() !== '' && !PART_OF_RE.test(line.trim())) lead.push(line);
  }
  return lead.length > 0;
}

/** A MEMORY.md or statement text that is a question or chatter ("Name: " label aside). */
export function isQuestion(text: string): boolean {
  return /\?[\s"'”’)*_]*$/u.test(text.trim());
}
export function isChatter(text: string): boolean {
  return CHATTER_RE.test(text.trim().replace(/^[\p{Lu}][\p{L}'’ .-]{0,40}: /u, ''));
}

function bodyLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[0]?.trim() !== '---') return lines;
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === '---');
  return end === -1 ? lines : lines.slice(end + 1);
}

/** Words of a name, lower case, for comparing names whatever their punctuation ("Deborah:" is Deborah). */
const words = (name: string): string => ` ${name.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;

interface Page {
  rel: string;
  text: string;
  title: string;
  type: string | undefined;
  aliases: string[];
}

async function readPages(root: string): Promise<Page[]> {
  const rels = (await listWikiPages(root)).filter((rel) => !SKIPPED(rel)).sort();
  return Promise.all(
    rels.map(async (rel) => {
      const text = await readFile(path.join(root, rel), 'utf8');
      const parsed = parsePage(rel, text);
      return { rel, text, title: parsed.title, type: parsed.frontmatter.type, aliases: parsed.aliases };
    }),
  );
}

export async function measureWiki(root: string, expected: ExpectedEntities): Promise<WikiMetrics> {
  const facts = new Map<string, string>();
  for (const date of await listLogDates(root)) for (const fact of (await readLog(root, date)).facts) facts.set(fact.id, fact.text.replace(/\s+/gu, ' ').trim());
  const pages = await readPages(root);

  let statements = 0;
  let verbatim = 0;
  const verbatimExamples: string[] = [];
  let hubs = 0;
  const hubsWithoutLead: string[] = [];
  for (const page of pages) {
    let section = '';
    for (const line of bodyLines(page.text)) {
      const heading = /^## (.+)$/u.exec(line.trim());
      if (heading) section = heading[1]!.trim();
      if (!ITEM_RE.test(line) || section === 'Related' || section === 'Parts' || section === 'Mentions') continue;
      const ids = citedIds(line);
      if (ids.length !== 1) continue;
      statements++;
      if (statementText(line) === facts.get(ids[0]!)) {
        verbatim++;
        if (verbatimExamples.length < 3) verbatimExamples.push(`${page.rel}: ${statementText(line)}`);
      }
    }
    if (/^## Parts\s*$/mu.test(page.text)) {
      hubs++;
      if (!hasLead(page.text)) hubsWithoutLead.push(page.rel);
    }
  }

  const resolve = linkResolver(pages.map((p) => ({ path: p.rel, aliases: p.aliases })));
  const names = expected.entities.map((e) => e.name);
  const found = names.filter((name) => resolve(name) !== null);

  // Each person name (a speaker's nickname stands for the speaker) → the person it names.
  const people = new Map<string, string>();
  for (const e of expected.entities) if (e.kind === 'person') people.set(e.name, e.name);
  for (const [nickname, speaker] of expected.nicknames) people.set(nickname, speaker);
  const merged: WikiMetrics['merged'] = [];
  for (const page of pages.filter((p) => p.type === 'person')) {
    const held = [page.title, ...page.aliases].map(words);
    const named = [...people.keys()].filter((name) => held.some((h) => h.includes(words(name))));
    // A name inside another named one ("Jolene" in "Jolene Smith") is the same name.
    const distinct = new Set(named.filter((n) => !named.some((m) => m !== n && words(m).includes(words(n)))).map((n) => people.get(n)!));
    if (distinct.size >= 2) merged.push({ page: page.rel, names: [...distinct].sort() });
  }

  return {
    statements,
    verbatim,
    verbatimExamples,
    entities: { expected: names, found, missing: names.filter((n) => !found.includes(n)) },
    merged,
    hubs,
    hubsWithoutLead,
    memory: await measureMemory(root),
  };
}

async function measureMemory(root: string): Promise<WikiMetrics['memory']> {
  let text = '';
  try {
    text = await readFile(path.join(root, 'MEMORY.md'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  let section = '';
  const out: WikiMetrics['memory'] = { lines: 0, questions: [], chatter: [] };
  for (const line of bodyLines(text)) {
    const heading = /^## (.+)$/u.exec(line.trim());
    if (heading) section = heading[1]!.trim();
    if (!ITEM_RE.test(line) || section === 'Often recalled') continue;
    out.lines++;
    const statement = statementText(line.replace(/ — \[\[[^\]]+\]\]\s*$/u, ''));
    if (isQuestion(statement)) out.questions.push(statement);
    else if (isChatter(statement)) out.chatter.push(statement);
  }
  return out;
}

export interface CurrentLine {
  /** The page the value stands on (for a MEMORY.md line, the page it links to). */
  page: string;
  /** That page's title and aliases. */
  names: string[];
  key: string;
  value: string;
  from: 'page' | 'memory';
}

/** Every `key:: value` item under `## Current` on the pages and in MEMORY.md. */
export async function currentLines(root: string): Promise<CurrentLine[]> {
  const pages = await readPages(root);
  const resolve = linkResolver(pages.map((p) => ({ path: p.rel, aliases: p.aliases })));
  const byRel = new Map(pages.map((p) => [p.rel, p]));
  const out: CurrentLine[] = [];
  const read = (text: string, from: CurrentLine['from'], page: Page | undefined): void => {
    let section = '';
    for (const line of bodyLines(text)) {
      const heading = /^## (.+)$/u.exec(line.trim());
      if (heading) section = heading[1]!.trim();
      if (section !== 'Current' || !ITEM_RE.test(line)) continue;
      let owner = page;
      let body = line;
      if (from === 'memory') {
        const link = / — \[\[([^\]|#]+)[^\]]*\]\]\s*$/u.exec(line);
        if (link !== null) {
          const rel = resolve(link[1]!);
          owner = rel === null ? undefined : byRel.get(rel);
          body = line.slice(0, link.index);
        }
      }
      const keyed = /^(.+?)::\s*(.*)$/u.exec(statementText(body));
      if (keyed === null) continue;
      out.push({ page: owner?.rel ?? '', names: owner === undefined ? [] : [owner.title, ...owner.aliases], key: keyed[1]!.trim(), value: keyed[2]!.trim(), from });
    }
  };
  for (const page of pages) read(page.text, 'page', page);
  try {
    read(await readFile(path.join(root, 'MEMORY.md'), 'utf8'), 'memory', undefined);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return out;
}
