/**
 * MEMORY.md, the core memory an agent keeps in context (DESIGN §2): the durable facts the pages hold,
 * ranked, at most `dream.memory_lines` of them. Durable means: a health fact (an allergy, a diet, a condition), an
 * open commitment (not yet due), a keyed value under a page's `## Current`, a principle, a preference, a
 * relationship, a decision, a skill. Moments and plain facts stay on their pages. Ranking is by kind (in
 * that order; among health facts, safety first: allergies, intolerances, conditions and medication before diets and
 * the rest; commitments soonest due first), then by recall (searches that returned the item's facts or
 * page), then by recency (the newest fact cited), then by text, so the same pages and recall events give
 * the same bytes. The cap counts facts, not headings or blank lines; the best item of each kind is kept, and
 * health facts come before every other line, leaving room for those leaders. When the cap cuts, the last line
 * says how many were left out and on which pages. Archived pages count only for health facts; a line that cites
 * or repeats a forgotten fact never shows. Only list items are content (the index reads only those): the
 * heading, the preamble and the closing note are the template's. The same rule tells the archive what never
 * leaves the live pages (`durableLines`, used by archive.ts).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { listLogDates, readLog, type Category } from '../logs/factlog.js';
import { listWikiPages } from '../pages/discover.js';
import { type ParsedPage } from '../pages/parse.js';
import { parsePageMemo } from '../pages/parse-memo.js';
import { readRecallEvents } from '../recall/events.js';
import { normalizeText } from '../text/normalize.js';
import { isForgottenLine } from '../tombstones/lines.js';
import { readTombstones } from '../tombstones/tombstones.js';
import { writeConfined } from '../vault/confined-write.js';
import { ARCHIVE_DIR, INBOX_DIR, isGeneratedPage } from '../vault/layout.js';
import { dueOf } from './commitments.js';
import { citedIds, withoutCitations } from '../text/citation.js';
import { byText } from '../text/compare.js';
import { readStateChange } from '../text/state-change.js';
import { subjectOf } from './page.js';
import { TOPICAL_SECTIONS, topicalKind, type TopicalKind } from './memory-topics.js';
import { pageBytes } from '../pages/page-read.js';

export type DurableKind = 'health' | 'commitment' | 'current' | 'principle' | 'preference' | 'relationship' | 'decision' | 'skill';
/** The kinds MEMORY.md ranks: the durable ones, then plain-English statements by subject (memory-topics.ts). */
type MemoryKind = DurableKind | Exclude<TopicalKind, 'preference'>;

/** Kinds in rank order, each with its section in MEMORY.md. */
const KINDS: ReadonlyArray<readonly [MemoryKind, string]> = [
  ['health', 'Health'],
  ['commitment', 'Open commitments'],
  ['current', 'Current'],
  ['principle', 'Principles'],
  ['preference', 'Preferences'],
  ['relationship', 'Relationships'],
  ['decision', 'Decisions'],
  ['skill', 'Skills'],
  ...TOPICAL_SECTIONS,
];
const RANK = new Map(KINDS.map(([kind], i) => [kind, i]));
const DURABLE_CATEGORIES = new Set<Category>(['principle', 'preference', 'relationship', 'decision', 'skill']);
/** Sections whose items are not current knowledge (Mentions repeat statements ranked on their own pages). */
const NOT_CURRENT = new Set(['History', 'Conflicts', 'Mentions', 'Related', 'Parts', 'Past commitments']);
/**
 * Words of health facts an agent must never miss (allergies, diets, conditions, medication). No offline
 * library classifies these; a short vocabulary, on whole words, is precise enough.
 */
const HEALTH_RE =
  /\b(?:allerg\w*|anaphyla\w*|intoleran\w*|asthma\w*|diabet\w*|epilep\w*|c(?:o)?eliac|gluten|lactose|medication\w*|prescri(?:bed|ption)\w*|insulin|epipen|blood type|vegan|vegetarian|pescatarian|migraines?)\b/i;
/** The health words where a miss can harm (an allergy, a condition, a drug): these rank before diets and tagged notes. */
const SAFETY_RE =
  /\b(?:allerg\w*|anaphyla\w*|intoleran\w*|asthma\w*|diabet\w*|epilep\w*|c(?:o)?eliac|gluten|lactose|medication\w*|prescri(?:bed|ption)\w*|insulin|epipen|blood type)\b/i;
const HEALTH_TAGS = new Set(['health', 'allergy', 'allergies', 'medical', 'diet']);
const RECALLED_SHOWN = 5;

/** What the logs say of a fact a page cites: its category, tags and date. */
export interface FactInfo {
  category: Category;
  tags: string[];
  date: string;
}

/** A statement of a page that stays true until the logs say otherwise. */
export interface DurableLine {
  kind: DurableKind;
  /** The list item as written, citations included. */
  line: string;
  ids: string[];
  /** A commitment's due date ('' for none). */
  due: string;
}

interface Item {
  kind: MemoryKind;
  text: string;
  rel: string;
  date: string;
  /** A health fact where a miss can harm: it ranks before the other health facts. */
  safety: boolean;
  /** A commitment's due date ('' for none): the soonest due ranks first. */
  due: string;
  recall: number;
}

interface PageInfo {
  rel: string;
  title: string;
}

export interface MemoryOptions {
  /** dream.memory_lines: the most facts (list items of the durable sections) MEMORY.md holds. */
  maxLines: number;
  /** The local day (YYYY-MM-DD): a commitment due before it is past and stays out. */
  today: string;
}

export const MEMORY_FILE = 'MEMORY.md';

const RECALLED_LINE = /^- \[\[[^\]]+\]\] \(recalled \d+ times\)$/;

/** What a regeneration of MEMORY.md outside a dream changed: whether its bytes did, and the facts that left and entered. */
export interface MemoryChange {
  changed: boolean;
  removed: number;
  added: number;
}

/**
 * Regenerates the vault's MEMORY.md between dreams (after a forget), keeping the run its header names, so a
 * regeneration that finds nothing new gives the same bytes.
 */
export async function regenerateMemory(root: string, options: MemoryOptions): Promise<MemoryChange> {
  const before = await readFile(path.join(root, MEMORY_FILE), 'utf8').catch(() => '');
  const run = /\(last: ([^)\s]+)\)/.exec(before)?.[1] ?? 'none';
  const after = await renderMemory(root, root, run, options);
  if (after === before) return { changed: false, removed: 0, added: 0 };
  // By temp file and rename (durable): an agent reads MEMORY.md at any moment, and a power cut keeps one whole version.
  await writeConfined(root, MEMORY_FILE, after);
  // Facts only: the recalled pages' pointers move with every search.
  const items = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('- ') && !RECALLED_LINE.test(l));
  const [was, is] = [items(before), items(after)];
  return { changed: true, removed: was.filter((l) => !is.includes(l)).length, added: is.filter((l) => !was.includes(l)).length };
}

/** Regenerates MEMORY.md in `root` (the run's tree, or the vault) from its pages and the vault's recall events. */
export async function writeMemory(root: string, vaultRoot: string, run: string, options: MemoryOptions): Promise<void> {
  const text = await renderMemory(root, vaultRoot, run, options);
  await writeConfined(root, MEMORY_FILE, text);
}

/**
 * The durable statements of a page, in page order: list items (not tasks) outside History, Conflicts, Mentions,
 * Related, Parts and Past commitments, of a durable kind, and for a commitment not yet past due.
 */
export function durableLines(page: ParsedPage, facts: ReadonlyMap<string, FactInfo>, today: string, used?: string[]): DurableLine[] {
  const out: DurableLine[] = [];
  for (const chunk of page.chunks) {
    if (chunk.headingPath.some((h) => NOT_CURRENT.has(h))) continue;
    for (const line of chunk.text.split('\n')) {
      if (!/^- (?!\[[ xX]\] )\S/.test(line)) continue;
      const ids = citedIds(line);
      used?.push(...ids);
      const kind = kindOf(line, chunk.headingPath, ids.map((id) => facts.get(id)).filter((f) => f !== undefined));
      if (kind === null) continue;
      const due = dueOf(line);
      if (kind === 'commitment' && due !== null && due < today) continue;
      out.push({ kind, line, ids, due: kind === 'commitment' ? due ?? '' : '' });
    }
  }
  return out;
}

export async function renderMemory(root: string, vaultRoot: string, run: string, options: MemoryOptions): Promise<string> {
  const all: PageInfo[] = [];
  const items: Item[] = [];
  const facts = await factIndex(root);
  const recall = await recallCounts(vaultRoot);
  const tombstones = await readTombstones(root);
  for (const rel of await listWikiPages(root)) {
    const page = parsePageMemo(rel, pageBytes(root, rel));
    all.push({ rel, title: page.title });
    if (rel.startsWith(INBOX_DIR) || isGeneratedPage(rel)) continue;
    // An archived page is no longer current, but an allergy on it stays true the day its person comes back.
    const archived = rel.startsWith(ARCHIVE_DIR) || page.frontmatter.status?.toLowerCase() === 'archived';
    const { durable, topical: ofNotes } = pageItems(page, facts, options.today);
    // A record page (records.ts, `type: record`) cites small talk: never core memory.
    const topical = archived || page.frontmatter.type === 'record' ? [] : ofNotes;
    for (const { kind, line, ids, due } of [...durable, ...topical]) {
      // A forgotten line is gone from core memory even before anything removes it from its page.
      if ((archived && kind !== 'health') || isForgottenLine(line, tombstones)) continue;
      const dates = ids.map((id) => facts.get(id)?.date ?? '').sort();
      const hits = ids.reduce((n, id) => n + (recall.facts.get(id) ?? 0), recall.pages.get(rel) ?? 0);
      const text = withoutCitations(line.slice(2)).trim();
      items.push({ kind, text, rel, date: dates.at(-1) ?? '', safety: kind === 'health' && SAFETY_RE.test(text), due, recall: hits });
    }
  }
  const ranked = dedupe(withoutReplaced(items)).sort(
    (a, b) =>
      RANK.get(a.kind)! - RANK.get(b.kind)! ||
      Number(b.safety) - Number(a.safety) ||
      byDue(a.due, b.due) ||
      b.recall - a.recall ||
      byText(b.date, a.date) ||
      byText(a.text, b.text) ||
      byText(a.rel, b.rel),
  );
  const rels = new Set(all.map((p) => p.rel));
  const recalled = [...recall.pages.entries()]
    .filter(([rel]) => rels.has(rel))
    .sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))
    .slice(0, RECALLED_SHOWN)
    .map(([rel, n]) => `- [[${linkTarget(rel, all)}]] (recalled ${n} times)`);
  const kept = new Set(chosen(ranked, options.maxLines));
  const lines = [
    '# Memory',
    '',
    `Core memory, regenerated by vaultkeeper after each dream (last: ${run}) from the pages' durable facts (health, open commitments, current values, principles, preferences, relationships), ranked by kind, by what searches recall and by recency. Edit the pages, not this file.`,
    '',
  ];
  for (const [kind, heading] of KINDS) {
    const of = ranked.filter((i) => i.kind === kind && kept.has(i));
    if (of.length > 0) lines.push(`## ${heading}`, '', ...of.map((i) => `- ${i.text} — [[${linkTarget(i.rel, all)}]]`), '');
  }
  if (ranked.length === 0) lines.push('_Nothing durable yet._', '');
  if (recalled.length > 0) lines.push('## Often recalled', '', ...recalled, '');
  if (kept.size < ranked.length) lines.push(leftOut(ranked.filter((i) => !kept.has(i)), all));
  return `${lines.join('\n').trimEnd()}\n`;
}

/**
 * A page's durable and topical lines, kept per parse (the page memo hands the same parse for the same bytes): each
 * run renders MEMORY.md from every page of the vault, most unchanged since the last run (issue 31). Kept only while
 * the day and what the logs say of the facts its list items cite (category, tags) are as they were (topical lines
 * read only the text).
 */
const itemsOf = new WeakMap<ParsedPage, { today: string; used: string[]; facts: string; durable: DurableLine[]; topical: ReturnType<typeof topicalLines> }>();

function pageItems(page: ParsedPage, facts: ReadonlyMap<string, FactInfo>, today: string): { durable: DurableLine[]; topical: ReturnType<typeof topicalLines> } {
  const kept = itemsOf.get(page);
  if (kept !== undefined && kept.today === today && kept.facts === factsKey(kept.used, facts)) return kept;
  const used: string[] = [];
  const durable = durableLines(page, facts, today, used);
  const items = { today, used, facts: factsKey(used, facts), durable, topical: topicalLines(page, new Set(durable.map((d) => d.line))) };
  itemsOf.set(page, items);
  return items;
}

/** What the logs say of the facts a page's durable lines were judged by (category, tags), as one string. */
function factsKey(ids: readonly string[], facts: ReadonlyMap<string, FactInfo>): string {
  let key = '';
  for (const id of ids) {
    const fact = facts.get(id);
    key += fact === undefined ? '\u0000' : `${fact.category}\u0001${fact.tags.join('\u0002')}\u0000`;
  }
  return key;
}

/**
 * The items the cap keeps, at most `cap`: health facts first (safety first among them), as many as leave room for
 * the best item of every other kind, so no kind vanishes under another; then the rest in rank order.
 */
function chosen(ranked: readonly Item[], cap: number): Item[] {
  const leaders = KINDS.map(([kind]) => ranked.find((i) => i.kind === kind)).filter((i): i is Item => i !== undefined && i.kind !== 'health');
  const health = ranked.filter((i) => i.kind === 'health').slice(0, Math.max(1, cap - leaders.length));
  const first = new Set([...health, ...leaders]);
  return [...first, ...ranked.filter((i) => !first.has(i))].slice(0, cap);
}

/** Soonest due first; a commitment without a date after every dated one. */
const byDue = (a: string, b: string): number => (a === b ? 0 : a === '' ? 1 : b === '' ? -1 : byText(a, b));

function kindOf(line: string, headingPath: readonly string[], facts: ReadonlyArray<{ category: Category; tags: string[] }>): DurableKind | null {
  const text = withoutCitations(line);
  if (HEALTH_RE.test(text) || facts.some((f) => f.tags.some((t) => HEALTH_TAGS.has(t.toLowerCase())))) return 'health';
  if (headingPath.includes('Open commitments')) return 'commitment';
  if (headingPath.includes('Current') && text.includes('::')) return 'current';
  const category = facts.map((f) => f.category).find((c) => DURABLE_CATEGORIES.has(c));
  return category === undefined ? null : (category as DurableKind);
}

/**
 * Plain-English statements of a page's Notes that MEMORY.md gathers by subject (memory-topics.ts): list items
 * outside the sections that are not current knowledge, cited, not a task, not already a durable line.
 */
function topicalLines(page: ParsedPage, taken: ReadonlySet<string>): Array<{ kind: MemoryKind; line: string; ids: string[]; due: string }> {
  const out: Array<{ kind: MemoryKind; line: string; ids: string[]; due: string }> = [];
  for (const chunk of page.chunks) {
    if (chunk.headingPath.some((h) => NOT_CURRENT.has(h) || h === 'Current' || h === 'Open commitments')) continue;
    for (const line of chunk.text.split('\n')) {
      if (!/^- (?!\[[ xX]\] )\S/.test(line) || taken.has(line)) continue;
      const ids = citedIds(line);
      // A keyed value outside Current is a value at some time (a model's `## Update`): MEMORY.md takes keyed values
      // from Current only, which the runner holds to the newest (stale-current.ts).
      if (ids.length === 0 || subjectOf(withoutCitations(line.slice(2))) !== null) continue;
      const kind = topicalKind(withoutCitations(line.slice(2)));
      if (kind !== null) out.push({ kind, line, ids, due: '' });
    }
  }
  return out;
}

/**
 * A statement of a change of state whose subject stands under a Current ("Caroline lives in Berlin" beside
 * `Caroline's home city:: Lisbon`) is left to that value: MEMORY.md holds only the newest.
 */
function withoutReplaced(items: readonly Item[]): Item[] {
  const current = new Set(items.map((i) => subjectOf(i.text)?.key).filter((k): k is string => k !== undefined));
  if (current.size === 0) return [...items];
  return items.filter((i) => subjectOf(i.text) !== null || !current.has(readStateChange(i.text)?.key ?? ''));
}

/** One line per statement: the same text on two pages is shown once, where it ranks best. */
function dedupe(items: readonly Item[]): Item[] {
  const best = new Map<string, Item>();
  for (const item of items) {
    const key = normalizeText(item.text);
    const held = best.get(key);
    if (held === undefined || RANK.get(item.kind)! < RANK.get(held.kind)! || (item.kind === held.kind && (item.recall > held.recall || (item.recall === held.recall && item.rel < held.rel)))) best.set(key, item);
  }
  return [...best.values()];
}

/** `+20 more on [[Location]], [[Work]] …`: the pages holding most of what was left out, first. */
function leftOut(items: readonly Item[], all: readonly PageInfo[]): string {
  const per = new Map<string, number>();
  for (const item of items) per.set(item.rel, (per.get(item.rel) ?? 0) + 1);
  const pages = [...per.entries()].sort((a, b) => b[1] - a[1] || byText(a[0], b[0])).map(([rel]) => `[[${linkTarget(rel, all)}]]`);
  const named = pages.slice(0, 5);
  return `+${items.length} more on ${named.join(', ')}${pages.length > named.length ? ' …' : ''}`;
}

/** Obsidian resolves `[[Name]]` by file name; a path is needed only when two pages share a name. */
export function linkTarget(rel: string, all: readonly PageInfo[]): string {
  const name = path.posix.basename(rel, '.md');
  return (namesOf(all).get(name.toLowerCase()) ?? 0) > 1 ? rel.replace(/\.md$/, '') : name;
}

/** Pages per lower-cased file name, counted once per list (a scan per link was quadratic in the vault). */
const nameCounts = new WeakMap<readonly PageInfo[], { size: number; counts: Map<string, number> }>();

function namesOf(all: readonly PageInfo[]): Map<string, number> {
  const kept = nameCounts.get(all);
  if (kept !== undefined && kept.size === all.length) return kept.counts;
  const counts = new Map<string, number>();
  for (const p of all) {
    const key = path.posix.basename(p.rel, '.md').toLowerCase();
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  nameCounts.set(all, { size: all.length, counts });
  return counts;
}

/** Category, tags and date of every fact in the logs, by id. */
export async function factIndex(root: string): Promise<Map<string, FactInfo>> {
  const out = new Map<string, FactInfo>();
  for (const date of await listLogDates(root)) {
    for (const fact of (await readLog(root, date)).facts) out.set(fact.id, { category: fact.category, tags: fact.tags, date: fact.date });
  }
  return out;
}

/** How often searches returned each page among their first three results, and each fact anywhere. */
async function recallCounts(vaultRoot: string): Promise<{ pages: Map<string, number>; facts: Map<string, number> }> {
  const pages = new Map<string, number>();
  const facts = new Map<string, number>();
  for (const event of await readRecallEvents(vaultRoot)) {
    for (const hit of event.results.slice(0, 3)) if (hit.kind === 'page') pages.set(hit.path, (pages.get(hit.path) ?? 0) + 1);
    for (const hit of event.results) if (hit.kind === 'fact' && hit.id !== null) facts.set(hit.id, (facts.get(hit.id) ?? 0) + 1);
  }
  return { pages, facts };
}
