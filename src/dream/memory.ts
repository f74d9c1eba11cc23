/**
 * MEMORY.md, the core memory an agent keeps in context (DESIGN §2): the durable facts the pages hold,
 * ranked, within `dream.memory_lines`. Durable means: a health fact (an allergy, a diet, a condition), an
 * open commitment (not yet due), a keyed value under a page's `## Current`, a principle, a preference, a
 * relationship, a decision, a skill. Moments and plain facts stay on their pages. Ranking is by kind (in
 * that order; commitments soonest due first), then by recall (searches that returned the item's facts or
 * page), then by recency (the newest fact cited), then by text, so the same pages and recall events give
 * the same bytes. The best item of each kind is kept before the rest, so no kind vanishes under another.
 * When the cap cuts, the last line says how many were left out and on which pages. Archived pages count
 * only for health facts. Only list items are content (the
 * index reads only those): the heading, the preamble and the closing note are the template's.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { listLogDates, readLog, type Category } from '../logs/factlog.js';
import { listWikiPages } from '../pages/discover.js';
import { parsePage } from '../pages/parse.js';
import { readRecallEvents } from '../recall/events.js';
import { normalizeText } from '../text/normalize.js';
import { confinedPath } from '../vault/confine.js';
import { ARCHIVE_DIR, INBOX_DIR, isGeneratedPage } from '../vault/layout.js';
import { dueOf } from './commitments.js';
import { citedIds, withoutCitations } from '../text/citation.js';
import { byText } from '../text/compare.js';

type Kind = 'health' | 'commitment' | 'current' | 'principle' | 'preference' | 'relationship' | 'decision' | 'skill';

/** Kinds in rank order, each with its section in MEMORY.md. */
const KINDS: ReadonlyArray<readonly [Kind, string]> = [
  ['health', 'Health'],
  ['commitment', 'Open commitments'],
  ['current', 'Current'],
  ['principle', 'Principles'],
  ['preference', 'Preferences'],
  ['relationship', 'Relationships'],
  ['decision', 'Decisions'],
  ['skill', 'Skills'],
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
const HEALTH_TAGS = new Set(['health', 'allergy', 'allergies', 'medical', 'diet']);
const RECALLED_SHOWN = 5;

interface Item {
  kind: Kind;
  text: string;
  rel: string;
  date: string;
  /** A commitment's due date ('' for none): the soonest due ranks first. */
  due: string;
  recall: number;
}

interface PageInfo {
  rel: string;
  title: string;
}

export interface MemoryOptions {
  /** dream.memory_lines */
  maxLines: number;
  /** The local day (YYYY-MM-DD): a commitment due before it is past and stays out. */
  today: string;
}

/** Regenerates MEMORY.md in `root` (the run's tree, or the vault) from its pages and the vault's recall events. */
export async function writeMemory(root: string, vaultRoot: string, run: string, options: MemoryOptions): Promise<void> {
  const text = await renderMemory(root, vaultRoot, run, options);
  await writeFile(await confinedPath(root, 'MEMORY.md'), text);
}

export async function renderMemory(root: string, vaultRoot: string, run: string, options: MemoryOptions): Promise<string> {
  const all: PageInfo[] = [];
  const items: Item[] = [];
  const facts = await factIndex(root);
  const recall = await recallCounts(vaultRoot);
  for (const rel of await listWikiPages(root)) {
    const page = parsePage(rel, await readFile(path.join(root, rel)));
    all.push({ rel, title: page.title });
    if (rel.startsWith(INBOX_DIR) || isGeneratedPage(rel)) continue;
    // An archived page is no longer current, but an allergy on it stays true the day its person comes back.
    const archived = rel.startsWith(ARCHIVE_DIR) || page.frontmatter.status?.toLowerCase() === 'archived';
    for (const chunk of page.chunks) {
      if (chunk.headingPath.some((h) => NOT_CURRENT.has(h))) continue;
      for (const line of chunk.text.split('\n')) {
        if (!/^- (?!\[[ xX]\] )\S/.test(line)) continue;
        const ids = citedIds(line);
        const kind = kindOf(line, chunk.headingPath, ids.map((id) => facts.get(id)).filter((f) => f !== undefined));
        if (kind === null || (archived && kind !== 'health')) continue;
        const due = dueOf(line);
        if (kind === 'commitment' && due !== null && due < options.today) continue;
        const dates = ids.map((id) => facts.get(id)?.date ?? '').sort();
        const hits = ids.reduce((n, id) => n + (recall.facts.get(id) ?? 0), recall.pages.get(rel) ?? 0);
        items.push({ kind, text: withoutCitations(line.slice(2)).trim(), rel, date: dates.at(-1) ?? '', due: kind === 'commitment' ? due ?? '' : '', recall: hits });
      }
    }
  }
  const ranked = dedupe(items).sort(
    (a, b) =>
      RANK.get(a.kind)! - RANK.get(b.kind)! ||
      byDue(a.due, b.due) ||
      b.recall - a.recall ||
      byText(b.date, a.date) ||
      byText(a.text, b.text) ||
      byText(a.rel, b.rel),
  );
  const recalled = [...recall.pages.entries()]
    .filter(([rel]) => all.some((p) => p.rel === rel))
    .sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))
    .slice(0, RECALLED_SHOWN)
    .map(([rel, n]) => `- [[${linkTarget(rel, all)}]] (recalled ${n} times)`);
  const header = [
    '# Memory',
    '',
    `Core memory, regenerated by vaultkeeper after each dream (last: ${run}) from the pages' durable facts (health, open commitments, current values, principles, preferences, relationships), ranked by kind, by what searches recall and by recency. Edit the pages, not this file.`,
    '',
  ];
  // The best item of each kind comes first, so a flood of one kind (keyed values, say) never hides another.
  const leaders = KINDS.map(([kind]) => ranked.find((i) => i.kind === kind)).filter((i) => i !== undefined);
  const order = [...leaders, ...ranked.filter((i) => !leaders.includes(i))];
  const layout = (shown: number, withRecalled: boolean): string[] => {
    const lines = [...header];
    const kept = new Set(order.slice(0, shown));
    for (const [kind, heading] of KINDS) {
      const of = ranked.filter((i) => i.kind === kind && kept.has(i));
      if (of.length > 0) lines.push(`## ${heading}`, '', ...of.map((i) => `- ${i.text} — [[${linkTarget(i.rel, all)}]]`), '');
    }
    if (ranked.length === 0) lines.push('_Nothing durable yet._', '');
    if (withRecalled && recalled.length > 0) lines.push('## Often recalled', '', ...recalled, '');
    if (shown < order.length) lines.push(leftOut(order.slice(shown), all));
    return lines;
  };
  // Items first, then the recalled pages if they fit too; the cut never drops the closing note.
  let shown = Math.min(ranked.length, options.maxLines);
  while (shown > 0 && layout(shown, false).join('\n').trimEnd().split('\n').length > options.maxLines) shown--;
  const full = layout(shown, true);
  const lines = full.join('\n').trimEnd().split('\n').length <= options.maxLines ? full : layout(shown, false);
  return `${lines.join('\n').trimEnd()}\n`;
}

/** Soonest due first; a commitment without a date after every dated one. */
const byDue = (a: string, b: string): number => (a === b ? 0 : a === '' ? 1 : b === '' ? -1 : byText(a, b));

function kindOf(line: string, headingPath: readonly string[], facts: ReadonlyArray<{ category: Category; tags: string[] }>): Kind | null {
  const text = withoutCitations(line);
  if (HEALTH_RE.test(text) || facts.some((f) => f.tags.some((t) => HEALTH_TAGS.has(t.toLowerCase())))) return 'health';
  if (headingPath.includes('Open commitments')) return 'commitment';
  if (headingPath.includes('Current') && text.includes('::')) return 'current';
  const category = facts.map((f) => f.category).find((c) => DURABLE_CATEGORIES.has(c));
  return category === undefined ? null : (category as Kind);
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
  const same = all.filter((p) => path.posix.basename(p.rel, '.md').toLowerCase() === name.toLowerCase());
  return same.length > 1 ? rel.replace(/\.md$/, '') : name;
}

/** Category, tags and date of every fact in the logs, by id. */
async function factIndex(root: string): Promise<Map<string, { category: Category; tags: string[]; date: string }>> {
  const out = new Map<string, { category: Category; tags: string[]; date: string }>();
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
