/**
 * Mentions (issue 10): a fact about several entities is stated once, on its main page; each other entity's
 * page gets a line under `## Mentions` that repeats the statement, cites the same fact and links the page
 * that states it: `- Lunch with Elena in Berlin (see [[Alice Chen]]) [[2026-05-05#^f-…]]`. So a place
 * named as someone's home city or lunch spot has a page that tells what is known about the place.
 * A mention is a copy, never the statement: it cites what the statement cites (a later duplicate's citation
 * is added here too), and a keyed value is written `subject: value` (one colon, as History does), marked
 * `(until DATE)` once its main page moves it to History, so only the main page's Current holds the value,
 * and `(disputed)` while its fact waits under an open conflict (a same-day second value), so a place's
 * page does not state as settled what its person's page holds back.
 */
import type { Fact } from '../logs/factlog.js';
import { citationsIn, citedIds, withoutCitations } from '../text/citation.js';
import { normalizeText } from '../text/normalize.js';
import { isItem, itemBody, subjectOf, type Page } from './page.js';

/** The link to the page that states the fact, as a mention line writes it. */
const SEE_RE = / \(see \[\[([^\]|]+)\]\]\)/;
const UNTIL_RE = /\s*\(until (\d{4}-\d{2}-\d{2})\)\s*$/;
const DISPUTED_RE = /\s*\(disputed\)\s*$/;
/** An open conflict item, as conflicts.ts writes it; a ticked one is resolved. */
const OPEN_CONFLICT_RE = /^\s*- \[ \] \*\*/;
/** Sections whose lines are not a page's own statements. */
const NOT_STATED = new Set(['Mentions', 'Related', 'Parts', 'Conflicts']);

export const isMention = (line: string): boolean => isItem(line) && SEE_RE.test(line) && citedIds(line).length > 0;
/** A mention's statement as written, without its `(see [[Page]])` and its citations. */
export const mentionSaid = (line: string): string => withoutCitations(itemBody(line).replace(SEE_RE, '')).trim();

/** A page's mention lines are compared once per fact that reaches it: each line is normalized once. */
const saidCache = new Map<string, string>();

/** What a mention says, normalized: its text without the link to its page, citations and `(until …)`. */
const said = (line: string): string => {
  let out = saidCache.get(line);
  if (out === undefined) {
    if (saidCache.size > 100_000) saidCache.clear();
    out = saying(line);
    saidCache.set(line, out);
  }
  return out;
};
const saying = (line: string): string =>
  normalizeText(
    withoutCitations(itemBody(line).replace(SEE_RE, ''))
      .replace(DISPUTED_RE, '')
      .replace(UNTIL_RE, '')
      .replace(/\[\[([^\]|]+)\|([^\]]+)\]\]/g, '$2'),
  );

/** The statement's text as `target`'s page repeats it: no citations, no `::`, and no link to `target` itself. */
function mentionText(line: string, target: Page): string {
  let body = withoutCitations(itemBody(line)).replace(UNTIL_RE, '').trim();
  const keyed = subjectOf(body);
  if (keyed !== null) body = `${keyed.subject}: ${keyed.value}`;
  return body.replace(/\[\[([^\]|#]+)(?:\|([^\]]+))?\]\]/g, (link: string, to: string, shown: string | undefined) => (to.trim() === target.title ? (shown ?? to) : link));
}

/**
 * Adds `fact`, stated on `source`, to `target`'s Mentions: a new line, or the citation on the line that
 * already repeats the same statement. Nothing when `source` states the fact nowhere (a flagged conflict).
 */
export function addMention(target: Page, source: Page, fact: Fact): void {
  // Called once per fact and entity: the page's code and sections are read only when a line names the fact.
  let code: Set<number> | undefined;
  let sections: Array<string | null> | undefined;
  const at = source.lines.findIndex((l, i) => {
    if (!l.includes(fact.id) || !isItem(l) || !citedIds(l).includes(fact.id)) return false;
    code ??= source.codeLines();
    sections ??= source.sections();
    return !code.has(i) && !NOT_STATED.has(sections[i] ?? '');
  });
  if (at < 0) return;
  const text = mentionText(source.lines[at]!, target);
  const key = said(`- ${text}`);
  const held = target.sectionLines('Mentions').find((i) => SEE_RE.exec(target.lines[i]!)?.[1] === source.title && isMention(target.lines[i]!) && said(target.lines[i]!) === key);
  const cites = citationsIn(source.lines[at]!);
  if (held !== undefined) {
    // The statement's citations, those it gained since included (a later duplicate of it).
    const line = target.lines[held]!;
    const have = new Set(citedIds(line));
    const more = cites.filter((c) => !have.has(citedIds(c)[0]!));
    if (more.length === 0) return;
    // New citations go before a closing `(until …)` or `(disputed)`.
    const end = UNTIL_RE.exec(line) ?? DISPUTED_RE.exec(line);
    target.lines[held] = end === null ? `${line.trimEnd()} ${more.join(' ')}` : `${line.slice(0, end.index)} ${more.join(' ')}${end[0]}`;
    return;
  }
  target.append('Mentions', `- ${text} (see [[${source.title}]]) ${cites.join(' ')}`);
}

/**
 * A mention of a keyed value that its page has since moved to History gets the same `(until DATE)`, so a
 * place's page does not read as if someone still lived there. Only mention lines change.
 */
export function markSuperseded(pages: readonly Page[], editable: (page: Page) => boolean): void {
  const until = new Map<string, string>();
  for (const page of pages) {
    for (const i of page.sectionLines('History')) {
      const date = UNTIL_RE.exec(page.lines[i]!)?.[1];
      if (date !== undefined) for (const id of citedIds(page.lines[i]!)) until.set(id, date);
    }
  }
  if (until.size === 0) return;
  for (const page of pages.filter(editable)) {
    for (const i of page.sectionLines('Mentions')) {
      const line = page.lines[i]!;
      if (!isMention(line) || UNTIL_RE.test(line)) continue;
      const dates = citedIds(line).map((id) => until.get(id));
      if (dates.every((d): d is string => d !== undefined)) page.lines[i] = `${line.replace(DISPUTED_RE, '').trimEnd()} (until ${dates.sort().at(-1)!})`;
    }
  }
}

/**
 * A mention whose facts wait under an open conflict on any page gets `(disputed)`; once a person resolves the
 * conflict (markSuperseded has then dated the losing value), the mark goes. Only mention lines change.
 */
export function markDisputed(pages: readonly Page[], editable: (page: Page) => boolean): void {
  const open = new Set<string>();
  for (const page of pages) {
    for (const i of page.sectionLines('Conflicts')) if (OPEN_CONFLICT_RE.test(page.lines[i]!)) for (const id of citedIds(page.lines[i]!)) open.add(id);
  }
  for (const page of pages.filter(editable)) {
    for (const i of page.sectionLines('Mentions')) {
      const line = page.lines[i]!;
      if (!isMention(line)) continue;
      const disputed = citedIds(line).some((id) => open.has(id));
      const marked = DISPUTED_RE.test(line);
      if (disputed && !marked && !UNTIL_RE.test(line)) page.lines[i] = `${line.trimEnd()} (disputed)`;
      else if (!disputed && marked) page.lines[i] = line.replace(DISPUTED_RE, '');
    }
  }
}
