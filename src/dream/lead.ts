/**
 * A page's lead (issue 25): the paragraph under its title that tells, before any section, who or what the
 * page is about, the current values and the few statements that matter most. A reader (or an agent given
 * one page) learns the essentials from it; a hub, whose statements live in its parts, is never a bare list
 * of links. Every sentence of it restates cited statements and carries their citations, so the lead makes
 * no claim of its own. It is the dream's: rewritten on each run that changes the page, found again as the
 * paragraph right under `# Title` that starts with the title in bold.
 */
import { citationsIn, citedDates, citedIds, withoutCitations } from '../text/citation.js';
import { monthWords } from '../text/date-words.js';
import { isItem, itemBody, subjectOf, type Page } from './page.js';
import { TOPICS, topicOf } from './topics.js';
import { isMention, mentionSaid } from './mentions.js';
import { byText } from '../text/compare.js';

/** Statements quoted in a lead, beyond the current values. */
const LEAD_STATEMENTS = 3;
/** A statement longer than this is left to its section: the lead stays a short read. */
const LEAD_STATEMENT_CHARS = 200;
/** Sections whose items are a page's own statements about its subject. */
const STATED = new Set(['Notes', 'Open commitments']);
const TYPE_WORDS: Record<string, string> = { person: 'a person', project: 'a project', organization: 'an organization', place: 'a place', topic: 'a topic' };

interface Stated {
  body: string;
  cites: string[];
  ids: string[];
  date: string;
  rank: number;
}

/**
 * Rewrites the lead of `page` from its own statements, or, for a hub, from those of its parts (`partsOf`).
 * Pages without a `type` (a person's own notes) and parts (their hub leads) are left alone, except a part that
 * became a hub in turn: every hub opens with a lead that says what it is and what its parts state.
 */
export function writeLead(page: Page, partsOf: (hub: Page) => Page[], alsoDisputed: ReadonlySet<string> = new Set()): void {
  const type = page.property('type');
  const hub = page.headingIndex('Parts') >= 0;
  // A part is read through its hub's lead, unless it became a hub itself (its statements moved on to parts).
  if (type === null || !(type in TYPE_WORDS) || (page.property('part_of') !== null && !hub)) return;
  const title = page.title;
  const h1 = page.lines.findIndex((l) => l.trim() === `# ${title}` || /^# /.test(l));
  if (h1 < 0) return;
  const parts = hub ? partsOf(page) : [];
  const sources = [page, ...allParts(parts, partsOf)];
  // A fact waiting under an open conflict is disputed: it never stands in the lead (check disputed_lead).
  // `alsoDisputed`: facts under open conflicts elsewhere (a part that became a hub reads what its top hub disputes).
  const disputed = new Set([...alsoDisputed, ...page.sectionLines('Conflicts').flatMap((i) => (/^\s*- \[ \] /.test(page.lines[i]!) ? citedIds(page.lines[i]!) : []))]);
  const current = page.sectionLines('Current').map((i) => page.lines[i]!).filter((l) => isItem(l) && citationsIn(l).length > 0);
  const own = sources.flatMap(statementsOf).filter((s) => !s.ids.some((id) => disputed.has(id)));
  // A page that only gathers what other pages say of it (a place, a pet, a friend named beside a speaker) is read
  // through those mentions: it still opens by saying what it is (issue 25: every page starts with a lead).
  const mentionsOnly = own.length === 0 && current.length === 0;
  const stated = mentionsOnly ? sources.flatMap(mentionsOf).filter((s) => !s.ids.some((id) => disputed.has(id))) : own;
  if (stated.length === 0 && current.length === 0) return;
  const dates = [...stated.map((s) => s.date), ...current.flatMap((l) => citedDates(l))].filter((d) => d !== '').sort();
  const span = dates.length === 0 ? '' : monthWords(dates[0]!) === monthWords(dates.at(-1)!) ? ` (${monthWords(dates[0]!)})` : ` (${monthWords(dates[0]!)} to ${monthWords(dates.at(-1)!)})`;
  const count = `${stated.length + current.length} ${stated.length + current.length === 1 ? 'statement' : 'statements'}`;
  const whole = page.property('part_of');
  const out: string[] = [
    whole === null
      ? `**${title}** is ${TYPE_WORDS[type]} ${mentionsOnly ? 'named in' : 'with'} ${count} in this vault${span}.`
      : `**${title}** is part of ${whole.replace(/^"|"$/g, '')}, with ${count}${span}.`,
  ];
  // The parts are linked under `## Parts`, not here: a lead is read as a search result, and a list of links in it
  // is navigation that takes a reading budget's characters from content (issue 25).
  for (const line of current) {
    const keyed = subjectOf(withoutCitations(itemBody(line)).trim());
    if (keyed === null) continue;
    out.push(`${capitalize(keyed.subject)}: ${keyed.value}. ${citationsIn(line).join(' ')}`);
  }
  // The statements that say most about the page's own subject: short ones that name it, by subject (health
  // first), then the newest.
  const named = type === 'topic' ? stated : stated.filter((s) => s.body.includes(title.split(' ')[0]!));
  const candidates = named.length > 0 ? named : stated;
  let pool = candidates.filter((s) => s.body.length <= LEAD_STATEMENT_CHARS);
  // Every sentence of a lead restates cited statements: one that would quote none (all long, no current value)
  // quotes the shortest, so its opening sentence is not a claim citing nothing (check uncited_claim).
  if (pool.length === 0 && out.length === 1 && candidates.length > 0) pool = [[...candidates].sort((a, b) => a.body.length - b.body.length || byText(a.body, b.body))[0]!];
  for (const s of [...pool].sort((a, b) => a.rank - b.rank || byText(b.date, a.date) || byText(a.body, b.body)).slice(0, LEAD_STATEMENTS)) {
    out.push(`${sentence(s.body)} ${s.cites.join(' ')}`);
  }
  const lead = out.join(' ');
  const at = leadLine(page, h1);
  if (at !== null) {
    if (page.lines[at] !== lead) page.lines[at] = lead;
    return;
  }
  page.lines.splice(h1 + 1, 0, '', lead);
}

/** The parts of a hub and, for a part that became a hub in turn, its parts (each once). */
export function allParts(parts: readonly Page[], partsOf: (hub: Page) => Page[]): Page[] {
  const seen = new Set<Page>();
  const queue = [...parts];
  while (queue.length > 0) {
    const part = queue.shift()!;
    if (seen.has(part)) continue;
    seen.add(part);
    if (part.headingIndex('Parts') >= 0) queue.push(...partsOf(part));
  }
  return [...seen];
}

/** The index of the lead's line under the H1, or null. */
function leadLine(page: Page, h1: number): number | null {
  for (let i = h1 + 1; i < page.lines.length; i++) {
    const line = page.lines[i]!;
    if (line.trim() === '') continue;
    return line.startsWith(`**${page.title}** is `) ? i : null;
  }
  return null;
}

/** A statement the page makes about its subject: a cited top-level item under Notes or Open commitments, not a mention. */
export interface StatedItem {
  /** The line's index on the page. */
  index: number;
  line: string;
  cites: string[];
  /** The item's text without its citations (not trimmed). */
  body: string;
}

/**
 * The statements of pages no rule changed in this run, by the text they were read from (a page's lines are a function
 * of it): a hub's lead and its summary read every part of the hub on each run that changes the hub, and most parts
 * are as the last run left them (issue 31). Two generations, so a late run keeps what the last ones read.
 */
class ByText<T> {
  private newer = new Map<string, T>();
  private older = new Map<string, T>();

  constructor(private readonly generation: number) {}

  get(text: string): T | undefined {
    const found = this.newer.get(text) ?? this.older.get(text);
    if (found !== undefined && !this.newer.has(text)) this.set(text, found);
    return found;
  }

  set(text: string, value: T): void {
    if (this.newer.size >= this.generation) {
      this.older = this.newer;
      this.newer = new Map();
    }
    this.newer.set(text, value);
  }
}

const PAGES_GENERATION = 20_000;
const itemsOfText = new ByText<StatedItem[]>(PAGES_GENERATION);
const statementsOfText = new ByText<Stated[]>(PAGES_GENERATION);

/** The page's statements about its subject, in page order (what the lead and the summaries read). Callers must not change them. */
export function statedItems(page: Page): StatedItem[] {
  return keptWhileUnchanged(itemsOfText, page, readStatedItems);
}

/** `read(page)`, kept by the page's text while the page is unchanged: a run reads most pages as the last one left them. */
function keptWhileUnchanged<T>(memo: ByText<T>, page: Page, read: (page: Page) => T): T {
  const unchanged = !page.changed();
  const kept = unchanged ? memo.get(page.original) : undefined;
  if (kept !== undefined) return kept;
  const out = read(page);
  if (unchanged) memo.set(page.original, out);
  return out;
}

function readStatedItems(page: Page): StatedItem[] {
  const out: StatedItem[] = [];
  const code = page.codeLines();
  const sections = page.sections();
  page.lines.forEach((line, index) => {
    if (code.has(index) || !isItem(line) || /^\s/.test(line) || isMention(line) || !STATED.has(sections[index] ?? '')) return;
    const cites = citationsIn(line);
    if (cites.length > 0) out.push({ index, line, cites, body: withoutCitations(itemBody(line)) });
  });
  return out;
}

/**
 * A statement's reading, by its line (a pure function of it): a hub's lead reads every part's statements on each
 * run that touches the hub, and most lines are the ones it read the run before (issue 31). Two generations.
 */
let readLines = new Map<string, Stated | null>();
let olderLines = new Map<string, Stated | null>();
const LINES_GENERATION = 100_000;

function statementsOf(page: Page): Stated[] {
  return keptWhileUnchanged(statementsOfText, page, readStatements);
}

function readStatements(page: Page): Stated[] {
  const out: Stated[] = [];
  for (const { line, cites, body: raw } of statedItems(page)) {
    let stated = readLines.get(line);
    if (stated === undefined) {
      stated = olderLines.get(line);
      if (stated === undefined) {
        const body = raw.trim();
        const topic = body === '' || body.endsWith('?') ? null : topicOf(body);
        stated = body === '' || body.endsWith('?') ? null : { body, cites, ids: citedIds(line), date: citedDates(line).sort().at(-1) ?? '', rank: topic === null ? TOPICS.length : TOPICS.indexOf(topic) };
      }
      if (readLines.size >= LINES_GENERATION) {
        olderLines = readLines;
        readLines = new Map();
      }
      readLines.set(line, stated);
    }
    if (stated !== null) out.push(stated);
  }
  return out;
}

/** The statements of other pages a page lists under `## Mentions`, without their `(see [[Page]])`. */
function mentionsOf(page: Page): Stated[] {
  const out: Stated[] = [];
  for (const i of page.sectionLines('Mentions')) {
    const line = page.lines[i]!;
    if (!isMention(line)) continue;
    const body = mentionSaid(line);
    if (body === '' || body.endsWith('?')) continue;
    const topic = topicOf(body);
    out.push({ body, cites: citationsIn(line), ids: citedIds(line), date: citedDates(line).sort().at(-1) ?? '', rank: topic === null ? TOPICS.length : TOPICS.indexOf(topic) });
  }
  return out;
}

const capitalize = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** A statement as a sentence of the lead: capitalized, ending in a stop. */
function sentence(body: string): string {
  const text = capitalize(body.trim());
  return /[.!?…]["”’)]?$/.test(text) ? text : `${text}.`;
}
