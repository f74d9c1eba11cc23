/**
 * Bounded pages: a generated page past about 16 KB or 200 lines splits. Its cited statements move to
 * part pages by subject first (`Caroline — Family.md`, the subject a statement's words name, topics.ts),
 * then, a subject too long for one page, by month (`Caroline — Family 2023-05.md`), then by day, then
 * numbered when one day alone is too long; one subject holding everything splits by month at once (a hub
 * split by month before subjects existed keeps its month parts). The page becomes a hub that keeps its lead
 * (current values, commitments, conflicts, history) and links its parts under `## Parts`; notes and
 * mentions that later reach a hub go on to the part of their subject or period at the level its parts were
 * split at (a hub of day parts to the day's part), and on a hub of numbered parts to its last part, or a
 * new one when that is full. Only pages with a `type` (the dream's own) split; lines a person wrote
 * without citations stay where they are.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isItem, itemBody, Page, type Section } from './page.js';
import { citedDates, citedIds, withoutCitations } from '../text/citation.js';
import { TOPICS, topicOf } from './topics.js';

/** The subject part of statements no subject's words name. */
export const OTHER_TOPIC = 'Other';
/** Statements a subject needs for a part of its own when a page splits by subject. */
const MIN_SUBJECT_PART = 6;
import { byText } from '../text/compare.js';

/** Split below the stated bound, so a part that grows by one batch still stays under it. */
export const MAX_PAGE_BYTES = 16 * 1024;
export const MAX_PAGE_LINES = 200;
const SPLIT_BYTES = 12 * 1024;
const SPLIT_LINES = 150;

/** Past the stated bound (the page_size check's rule). */
export const pastBound = (text: string): boolean => Buffer.byteLength(text) > MAX_PAGE_BYTES || text.split('\n').length > MAX_PAGE_LINES;

const tooLong = (page: Page): boolean => {
  const text = page.text();
  return Buffer.byteLength(text) > SPLIT_BYTES || text.split('\n').length > SPLIT_LINES;
};

type Level = 'subject' | 'month' | 'day' | 'chunk';

/** A part of one subject: `Caroline — Family`. */
const SUBJECT_PART_RE = new RegExp(` — (?:${[...TOPICS, OTHER_TOPIC].join('|')})$`);

const levelOf = (page: Page): Level =>
  /\d{4}-\d{2}-\d{2}/.test(page.title) ? 'chunk' : /\d{4}-\d{2}$/.test(page.title) ? 'day' : SUBJECT_PART_RE.test(page.title) ? 'month' : 'subject';
const finer = (level: Level): Level => (level === 'subject' ? 'month' : level === 'month' ? 'day' : 'chunk');
/** A hub: its notes belong in its parts, whatever its size. */
const isHub = (page: Page): boolean => page.headingIndex('Parts') >= 0 && page.property('type') !== null;
/**
 * The sections whose cited items move to parts: the rest (current values, open commitments, conflicts) is
 * the hub's lead. Past commitments and History grow with time as Notes do, so they move too.
 */
const MOVING: readonly Section[] = ['Notes', 'Past commitments', 'History', 'Mentions'];

export function boundPages(pages: Map<string, Page>): void {
  for (const page of [...pages.values()].sort((a, b) => byText(a.rel, b.rel))) {
    if (!page.changed() || page.property('type') === null) continue;
    // New notes on a hub go to the part of their period, so the hub keeps only its lead.
    if (isHub(page)) split(pages, page, partsLevel(page) ?? levelOf(page), true);
    else if (tooLong(page)) split(pages, page, levelOf(page), false);
  }
}

/**
 * The level a hub's parts were split at, by their titles: a page whose one month was too long has day
 * parts, one whose one day was too long numbered parts; later notes go to parts of the same level.
 */
function partsLevel(hub: Page): Level | null {
  const base = escapeRe(hub.title.replace(/ \d{4}-\d{2}(?:-\d{2})?$/, ''));
  const titles = hub.sectionLines('Parts').map((i) => /^- \[\[([^\]|]+)\]\]$/.exec(hub.lines[i]!.trim())?.[1] ?? '');
  const levels: Array<[Level, RegExp]> = [
    ['subject', new RegExp(`^${escapeRe(hub.title)}${SUBJECT_PART_RE.source}`)],
    ['month', new RegExp(`^${base} \\d{4}-\\d{2}$`)],
    ['day', new RegExp(`^${base} \\d{4}-\\d{2}-\\d{2}$`)],
    ['chunk', new RegExp(`^${escapeRe(hub.title)} \\(\\d+\\)$`)],
  ];
  return levels.find(([, re]) => titles.some((t) => re.test(t)))?.[0] ?? null;
}

function periodOf(line: string, level: Level, ordinal: number): string {
  if (level === 'subject') return topicOf(withoutCitations(itemBody(line))) ?? OTHER_TOPIC;
  const date = citedDates(line)[0] ?? '0000-00-00';
  if (level === 'month') return date.slice(0, 7);
  if (level === 'day') return date;
  return String(Math.floor(ordinal / 60) + 2);
}

function split(pages: Map<string, Page>, hub: Page, level: Level, hasParts: boolean): void {
  const moving = MOVING.flatMap((section) => hub.sectionLines(section).filter((i) => isItem(hub.lines[i]!) && citedIds(hub.lines[i]!).length > 0).map((i) => ({ i, section })));
  if (moving.length < (hasParts ? 1 : 2)) return;
  if (level === 'chunk' && hasParts) {
    fillNumbered(pages, hub, moving);
    return;
  }
  const byPart = new Map<string, Array<{ section: Section; line: string }>>();
  moving.forEach(({ i, section }, n) => {
    const key = periodOf(hub.lines[i]!, level, n);
    byPart.set(key, [...(byPart.get(key) ?? []), { section, line: hub.lines[i]! }]);
  });
  if (level === 'subject') {
    // A subject earns a part of its own once it has a few statements (or has its part already); the rest
    // share the Other part, so a hub does not list a dozen parts of one line each.
    for (const [key, lines] of [...byPart]) {
      if (key === OTHER_TOPIC || lines.length >= MIN_SUBJECT_PART || pages.has(partRel(hub, `${hub.title} — ${key}`))) continue;
      byPart.delete(key);
      byPart.set(OTHER_TOPIC, [...(byPart.get(OTHER_TOPIC) ?? []), ...lines]);
    }
  }
  // One period holding everything cannot be split by period: go one level finer. Numbered parts, the finest
  // level, then fill by size (a part of a part of one long line would never end).
  if (byPart.size === 1 && !hasParts) {
    if (level === 'chunk') fillNumbered(pages, hub, moving);
    else split(pages, hub, finer(level), false);
    return;
  }
  takeOut(hub, moving);
  const base = level === 'chunk' || level === 'subject' ? hub.title : hub.title.replace(/ \d{4}-\d{2}(?:-\d{2})?$/, '');
  for (const [key, lines] of [...byPart.entries()].sort(([a], [b]) => byText(a, b))) {
    const title = level === 'chunk' ? `${base} (${key})` : level === 'subject' ? `${base} — ${key}` : `${base} ${key}`;
    const rel = partRel(hub, title);
    const part = pages.get(rel) ?? newPart(pages, hub, rel, title);
    for (const { section, line } of lines) part.append(section, line);
    hub.link('Parts', title);
    if (isHub(part)) split(pages, part, partsLevel(part) ?? finer(level), true);
    else if (tooLong(part)) split(pages, part, finer(level), false);
  }
  if (level === 'day') foldDays(pages, hub);
}

/**
 * A hub of day parts links one more part each day it gets notes: a part split by day in its first month (a
 * subject part of a busy project) would outgrow the bound by its list of links alone, half a year later (a
 * 50k backlog's `Project Atlas — Work`: 196 lines of links, then page_size and a skipped day). Once the hub
 * is past the split size, its day parts go under month parts (`Project Atlas — Work 2024-07`, a hub of that
 * month's days): only the links move (a day part keeps its part_of, the hub above its month: rewriting every
 * day part of a backlog's hubs took one run to 12,000 changed files), and later notes go through the month
 * parts (partsLevel finds them before the days), whose new day parts name their month. A hub named by a
 * period (a month's hub of days) keeps its days: it has at most 31.
 */
function foldDays(pages: Map<string, Page>, hub: Page): void {
  if (/ \d{4}-\d{2}(?:-\d{2})?$/.test(hub.title) || !tooLong(hub)) return;
  const dayRe = new RegExp(`^- \\[\\[(${escapeRe(hub.title)} (\\d{4}-\\d{2})-\\d{2})\\]\\]$`);
  const days = hub.sectionLines('Parts').flatMap((i) => {
    const m = dayRe.exec(hub.lines[i]!.trim());
    return m === null ? [] : [{ i, title: m[1]!, month: m[2]! }];
  });
  if (days.length === 0) return;
  for (const { i } of [...days].sort((a, b) => b.i - a.i)) hub.lines.splice(i, 1);
  const months = new Map<string, string[]>();
  for (const { title, month } of days) months.set(month, [...(months.get(month) ?? []), title]);
  for (const [month, titles] of [...months].sort(([a], [b]) => byText(a, b))) {
    const title = `${hub.title} ${month}`;
    const rel = partRel(hub, title);
    const part = pages.get(rel) ?? newPart(pages, hub, rel, title);
    for (const day of titles) part.link('Parts', day);
    hub.link('Parts', title);
  }
}

const partRel = (hub: Page, title: string): string => path.posix.join(path.posix.dirname(hub.rel), `${title}.md`);

function takeOut(hub: Page, moving: ReadonlyArray<{ i: number }>): void {
  for (const i of moving.map((m) => m.i).sort((a, b) => b - a)) hub.lines.splice(i, 1);
  for (const section of MOVING) hub.dropIfEmpty(section);
}

/**
 * A hub of numbered parts (`Moments 2023-05-08 (2)`, `(3)` …: one period too long for one page): later
 * lines go to its last part while that stays under the split bound, then to the next number.
 */
function fillNumbered(pages: Map<string, Page>, hub: Page, moving: ReadonlyArray<{ i: number; section: Section }>): void {
  const lines = moving.map(({ i, section }) => ({ section, line: hub.lines[i]! }));
  takeOut(hub, moving);
  const numbered = new RegExp(`^- \\[\\[${escapeRe(hub.title)} \\((\\d+)\\)\\]\\]$`);
  let n = Math.max(2, ...hub.sectionLines('Parts').map((i) => Number(numbered.exec(hub.lines[i]!.trim())?.[1] ?? 0)));
  const partOf = (k: number): Page => {
    const title = `${hub.title} (${k})`;
    const rel = path.posix.join(path.posix.dirname(hub.rel), `${title}.md`);
    hub.link('Parts', title);
    return pages.get(rel) ?? newPart(pages, hub, rel, title);
  };
  let part = partOf(n);
  for (const { section, line } of lines) {
    part.append(section, line);
    if (!tooLong(part)) continue;
    // Full: the line starts the next part (unless it is the part's only line, which stays).
    const at = part.lines.lastIndexOf(line);
    if (part.sectionLines(section).filter((i) => citedIds(part.lines[i]!).length > 0).length <= 1) continue;
    part.lines.splice(at, 1);
    part.dropIfEmpty(section);
    part = partOf(++n);
    part.append(section, line);
  }
}

const escapeRe = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function newPart(pages: Map<string, Page>, hub: Page, rel: string, title: string): Page {
  const dated = (name: string): string | null => hub.property(name);
  const front = ['---', `title: ${JSON.stringify(title)}`, `type: ${hub.property('type') ?? 'topic'}`, `tags: ${hub.property('tags') ?? '[]'}`, 'status: active', `part_of: ${JSON.stringify(`[[${hub.title}]]`)}`];
  for (const name of ['created', 'updated']) if (dated(name) !== null) front.push(`${name}: ${dated(name)!}`);
  front.push('---', `# ${title}`, '', `Part of [[${hub.title}]].`);
  const page = new Page(rel, front, true, '');
  pages.set(rel, page);
  return page;
}

const PART_OF_RE = /^part_of:\s*["']?\[\[([^\]|]+)(?:\|[^\]]*)?\]\]["']?\s*$/mu;
/** How many hubs a part may sit under (a month part of a subject part of a person's hub is two). */
const MAX_DEPTH = 4;

/**
 * The page each of `rels` (vault-relative, in `root`) counts as toward `dream.max_changed_pages`: a part
 * counts as the page at the top of its hubs (`Ivan — Work 2024-03.md` → `Ivan.md`), so a page and all its
 * parts are one page for the limit. A day of 200 facts touches each person's page once, but a person's page
 * split by subject and month is written as several files: counted file by file, a long backlog would pass
 * the limit on every day once its pages split, and days would be skipped for no fault of theirs. Parts live
 * beside their hub (partRel); a file that is no part, or is gone, counts as itself.
 */
export async function wholePages(root: string, rels: readonly string[]): Promise<Map<string, string>> {
  const parent = new Map<string, string | null>();
  const parentOf = async (rel: string): Promise<string | null> => {
    let out = parent.get(rel);
    if (out === undefined) {
      const head = await readFile(path.join(root, rel), 'utf8').then(
        (text) => /^---\r?\n([\s\S]*?)\r?\n---/u.exec(text)?.[1] ?? '',
        () => '',
      );
      const hub = PART_OF_RE.exec(head)?.[1]?.trim();
      out = hub === undefined ? null : path.posix.join(path.posix.dirname(rel), `${hub}.md`);
      parent.set(rel, out);
    }
    return out;
  };
  const out = new Map<string, string>();
  for (const rel of rels) {
    let top = rel;
    for (let depth = 0; depth < MAX_DEPTH; depth++) {
      const up = await parentOf(top);
      if (up === null || up === rel) break;
      top = up;
    }
    out.set(rel, top);
  }
  return out;
}
