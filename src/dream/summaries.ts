/**
 * Summaries of lists (issue 25): what a page's statements say its entity did, one verb at a time, gathered
 * into one short line under `## At a glance`. "Caroline went to a council meeting …", "… Caroline went to a
 * poetry reading …" and "Caroline went to the pride parade …", stated on Caroline's page and its parts,
 * become "- Caroline went to: council meeting, poetry reading, pride parade. [[…]] [[…]] [[…]]". A reader
 * (or a search for "where has Caroline gone") finds the list in one place instead of three.
 * - the grammar is compromise's: a sentence where the entity's name is the subject of a verb, the verb's
 *   lemma (with the preposition that follows it: "go to", "work on") and the noun phrase it takes;
 * - light verbs (be, have, do, get, make, say, …) say little on their own and are not gathered;
 * - a verb gathers at least two different things from at least two statements; items stand in the order
 *   they were first said (the statements' dates, then their order on the page), each once;
 * - the line cites every statement it gathers, so it makes no claim of its own;
 * - it is the dream's: rewritten whole on each run that writes the page's lead. Pure and deterministic.
 */
import { compromise } from '../text/nlp.js';
import { citedDates } from '../text/citation.js';
import type { Page } from './page.js';
import { statedItems } from './lead.js';
import { dateWords } from '../text/date-words.js';

/** The heading the summaries stand under. */
export const AT_A_GLANCE = 'At a glance';
/** Lines in one page's summary: the verbs that gather most. */
const MAX_LINES = 8;
/** Items on one line: past this, the earliest are kept. */
const MAX_ITEMS = 8;
/** Words in one item: a longer noun phrase is a clause, not a thing. */
const MAX_ITEM_WORDS = 5;
const ENTITY_TYPES = new Set(['person', 'project', 'organization', 'place']);
/** Verbs that carry little meaning of their own (copula, auxiliaries, light verbs): never a summary's verb. */
const LIGHT_VERBS = new Set('be have do get make take say tell let know think feel seem want need try use give put keep see look come'.split(' '));
/** Words that quantify a noun phrase rather than name a thing ("loves all the details"). */
const QUANTIFIERS = new Set(['all', 'both', 'each', 'every', 'some', 'any', 'many', 'much', 'most', 'few', 'lots', 'lot', 'more', 'none']);
/** Prepositions kept with their verb ("go to", "work on"). */
const PARTICLE_WORDS = new Set(['to', 'at', 'in', 'on', 'for', 'with', 'about', 'into', 'from']);

interface Doc {
  json(): Array<{ terms: Array<{ text: string; normal: string; tags: string[] }> }>;
  verbs(): { json(): Array<{ verb?: { infinitive?: string } }> };
}
type Nlp = (text: string) => Doc;

interface Gathered {
  /** The verb as first said, with its preposition ("went to"). */
  said: string;
  items: Array<{ text: string; key: string }>;
  cites: string[];
  first: number;
}

interface Source {
  body: string;
  cites: string[];
  date: string;
  order: number;
}

/**
 * Rewrites `page`'s `## At a glance` from its own statements and, for a hub, its parts' (`parts`). Pages
 * without an entity type and parts (read through their hub) are left alone; a page with nothing to gather
 * loses the section.
 */
export function writeSummaries(page: Page, parts: readonly Page[]): void {
  const type = page.property('type');
  if (type === null || !ENTITY_TYPES.has(type) || page.property('part_of') !== null) return;
  const name = page.title.split(' ')[0]!;
  if (!/^\p{Lu}[\p{L}\p{M}'’-]*$/u.test(name)) return;
  const lines = summarize(name, [page, ...parts].flatMap(sourcesOf));
  placeSection(page, lines);
}

/** The summary lines for entity `name` from its statements (oldest first). */
export function summarize(name: string, sources: readonly Source[]): string[] {
  const nlp = compromise<Nlp>();
  const ordered = [...sources].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.order - b.order));
  const byVerb = new Map<string, Gathered>();
  ordered.forEach((source, n) => {
    for (const { clause, when } of clausesOf(name, source.body)) {
      const found = gather(nlp, name, clause);
      if (found === null) continue;
      const group = byVerb.get(found.key) ?? { said: found.said, items: [], cites: [], first: n };
      if (group.items.some((i) => i.key === found.item.key)) continue;
      // Each thing with when it was done (the date its sentence names), else when it was said: a summary stands
      // for its statements in a search's results, and "when did …" is answered from it.
      const date = when ?? (source.date === '' ? null : dateWords(source.date));
      group.items.push({ ...found.item, text: date === null ? found.item.text : `${found.item.text} (${date})` });
      for (const cite of source.cites) if (!group.cites.includes(cite)) group.cites.push(cite);
      byVerb.set(found.key, group);
    }
  });
  const groups = [...byVerb.values()].filter((g) => g.items.length >= 2 && g.cites.length >= 2);
  groups.sort((a, b) => b.items.length - a.items.length || a.first - b.first);
  return groups.slice(0, MAX_LINES).map((g) => {
    const items = g.items.slice(0, MAX_ITEMS);
    return `- ${name} ${g.said}: ${items.map((i) => i.text).join(', ')}. ${g.cites.join(' ')}`;
  });
}

/** Words read after the name: enough for an adverb, a verb, a preposition and a short noun phrase. */
const CLAUSE_WORDS = 9;
/** Where a clause read after the name ends: a phrase's end, a quote, a parenthesis, a dash. */
const CLAUSE_END_RE = /[,.!?;:()"“”…]|\s[-—–]\s|[—–]/u;

/**
 * The name's clauses in `body` ("Caroline went to the pride parade last week"): each time the name stands
 * before a lower-case word (a verb, not "Caroline's"), the words after it up to the clause's end.
 */
function clausesOf(name: string, body: string): Array<{ clause: string; when: string | null }> {
  const out: Array<{ clause: string; when: string | null }> = [];
  const re = new RegExp(String.raw`(?<![\p{L}\p{N}])${name}\s+(?=\p{Ll})`, 'gu');
  for (const m of body.matchAll(re)) {
    const rest = body.slice(m.index + m[0].length);
    const end = rest.search(CLAUSE_END_RE);
    const words = (end < 0 ? rest : rest.slice(0, end)).trim().split(/\s+/u).slice(0, CLAUSE_WORDS);
    if (words.length >= 2) out.push({ clause: `${name} ${words.join(' ')}`, when: dateIn(sentenceAt(body, m.index)) });
  }
  return out;
}

const MONTH_NAMES = 'January|February|March|April|May|June|July|August|September|October|November|December';
/** A date as the statement writer resolves one ("on Friday, 11 August 2023", "the week of 26 June 2023", "July 2023"). */
const DATE_RE = new RegExp(String.raw`(?:[Tt]he (?:week|weekend) of |(?:on )?(?:(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, )?)?\b\d{1,2} (?:${MONTH_NAMES}) \d{4}\b|\b(?:${MONTH_NAMES}) \d{4}\b`, 'u');

/** The sentence of `text` around index `at`. */
function sentenceAt(text: string, at: number): string {
  const before = text.slice(0, at).search(/[.!?…](?=[^.!?…]*$)/u);
  const after = text.slice(at).search(/[.!?…](?:\s|$)/u);
  return text.slice(before < 0 ? 0 : before + 1, after < 0 ? text.length : at + after);
}

/** The date a sentence names, as written (without a leading "on "), or null. */
function dateIn(sentence: string): string | null {
  const found = DATE_RE.exec(sentence)?.[0];
  return found === undefined ? null : found.replace(/^on /u, '').replace(/^The /u, 'the ');
}

/**
 * Clauses already read: a summary is rewritten on every run that writes its page's lead, a hub's from all its
 * parts. Two generations, the clauses read lately kept when the older ones go: a cache that started afresh past
 * its size made a late run of a 50k backlog parse every clause of every hub it touched again (issue 31).
 */
let read = new Map<string, Found | null>();
let older = new Map<string, Found | null>();
const GENERATION = 100_000;

interface Found {
  key: string;
  said: string;
  item: { text: string; key: string };
}

/** The verb (lemma and preposition) `name` is the subject of in `clause`, and the thing it takes. */
function gather(nlp: Nlp, name: string, clause: string): Found | null {
  if (read.has(clause)) return read.get(clause)!;
  // null is a clause read that gathers nothing: kept like any other.
  const found = older.has(clause) ? older.get(clause)! : parse(nlp, name, clause);
  if (read.size >= GENERATION) {
    older = read;
    read = new Map();
  }
  read.set(clause, found);
  return found;
}

function parse(nlp: Nlp, name: string, clause: string): Found | null {
  const doc = nlp(clause);
  const terms = doc.json()[0]?.terms ?? [];
  const has = (i: number, tag: string): boolean => terms[i]?.tags.includes(tag) ?? false;
  if (terms.length < 3 || has(0, 'Possessive')) return null;
  let i = 1;
  while (i < terms.length && has(i, 'Adverb') && !has(i, 'Negative')) i++;
  // A finite verb of its own: not an auxiliary ("is going"), not a bare infinitive or gerund the grammar left unagreed.
  if (!has(i, 'Verb') || has(i, 'Auxiliary') || has(i, 'Copula') || has(i, 'Modal') || has(i, 'Negative') || has(i, 'Gerund') || has(i, 'Infinitive')) return null;
  if (!has(i, 'PastTense') && !has(i, 'PresentTense')) return null;
  const verb = terms[i]!;
  const lemma = doc.verbs().json()[0]?.verb?.infinitive ?? verb.normal;
  if (lemma === '' || LIGHT_VERBS.has(lemma)) return null;
  i++;
  let particle = '';
  if (PARTICLE_WORDS.has(terms[i]?.normal ?? '') && has(i, 'Preposition')) particle = terms[i++]!.normal;
  // The thing: the words of its noun phrase, without its determiners and possessives ("her new bowl" → "new bowl").
  while (i < terms.length && (has(i, 'Determiner') || (has(i, 'Possessive') && has(i, 'Pronoun')))) i++;
  const thing: string[] = [];
  const nouns: boolean[] = [];
  const nounAt = (n: number): boolean => nouns[n] ?? false;
  let noun = false;
  for (; i < terms.length; i++) {
    if (has(i, 'Date') || has(i, 'Value') || has(i, 'Pronoun')) break;
    if (!has(i, 'Adjective') && !has(i, 'Noun') && !has(i, 'Gerund')) break;
    if (thing.length === 0 && QUANTIFIERS.has(terms[i]!.normal)) return null;
    noun ||= has(i, 'Noun') || has(i, 'Gerund');
    thing.push(terms[i]!.text);
    nouns.push(has(i, 'Noun') || has(i, 'Gerund'));
  }
  // A noun phrase ends in its noun ("pride parade", not "pride parade last").
  while (thing.length > 0 && !nounAt(thing.length - 1)) {
    thing.pop();
    nouns.pop();
  }
  const text = thing.join(' ').replace(/[^\p{L}\p{N}+]+$/u, '').trim();
  if (!noun || text === '' || thing.length > MAX_ITEM_WORDS || thing.some((w) => w.toLowerCase() === name.toLowerCase())) return null;
  const said = `${verb.text.toLowerCase()}${particle === '' ? '' : ` ${particle}`}`;
  return { key: `${lemma} ${particle}`.trim(), said, item: { text, key: text.toLowerCase() } };
}

/** A page's statements about its subject, as the lead reads them (Notes, Open commitments; no mentions). */
function sourcesOf(page: Page): Source[] {
  const out: Source[] = [];
  for (const { index, line, cites, body: raw } of statedItems(page)) {
    const body = raw
      .replace(/\[\[([^\]|]+)\|([^\]]+)\]\]/g, '$2')
      .replace(/\[\[([^\]]+)\]\]/g, '$1')
      .replace(/^Asked “[^”]*”, \S+ said: /u, '')
      .trim();
    if (body === '' || body.endsWith('?')) continue;
    out.push({ body, cites, date: citedDates(line).sort()[0] ?? '', order: index });
  }
  return out;
}

/** Puts `lines` under `## At a glance`, right after the lead (before any other section); none: no section. */
function placeSection(page: Page, lines: readonly string[]): void {
  const heading = `## ${AT_A_GLANCE}`;
  const start = page.lines.findIndex((l) => l.trim() === heading);
  if (start >= 0) {
    let end = start + 1;
    while (end < page.lines.length && !/^#{1,2} /.test(page.lines[end]!)) end++;
    const body = lines.length === 0 ? [] : ['', ...lines, ''];
    const current = page.lines.slice(start + 1, end);
    if (lines.length === 0) page.lines.splice(start, end - start);
    else if (current.join('\n') !== body.join('\n')) page.lines.splice(start + 1, end - start - 1, ...body);
    return;
  }
  if (lines.length === 0) return;
  // Before the first `## ` section, after the title and its lead.
  const h1 = page.lines.findIndex((l) => /^# /.test(l));
  if (h1 < 0) return;
  let at = page.lines.findIndex((l, i) => i > h1 && /^## /.test(l));
  if (at < 0) at = page.lines.length;
  page.lines.splice(at, 0, heading, '', ...lines, '');
}
