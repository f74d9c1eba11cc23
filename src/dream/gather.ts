/**
 * A page tells everything known about its entity (issue 25): when an entity earns its page after some of
 * its statements were filed elsewhere (on a topic page, under a category, on another person's page), the
 * run that makes the page moves them there. Only the dream's own statements move, from pages the dream
 * made (never a line a person wrote, nor a person's page), and only those whose subject the entity is: the
 * statement opens with its name or an alias ("Diego is allergic to shellfish", "Diego's sister …"). Where
 * they stood, a link to the page stays (`- → [[Diego]]`, navigation that search skips).
 */
import { citedIds, withoutCitations } from '../text/citation.js';
import { isMention } from './mentions.js';
import { isItem, itemBody, type Page, type Section } from './page.js';

/** The sections whose items are statements a page states (a mention, a history line or a conflict stays put). */
const MOVABLE: readonly Section[] = ['Notes', 'Open commitments', 'Past commitments'];

export interface Gathered {
  from: string;
  to: string;
  lines: number;
}

const escapeRe = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The statement's words as read: links shown as their text, no citations. */
const plain = (line: string): string => withoutCitations(itemBody(line)).replace(/\[\[([^\]|]+)\|([^\]]+)\]\]/g, '$2').replace(/\[\[([^\]|]+)\]\]/g, '$1').trim();

/** The letters and digits a text opens with: a statement that opens with a name opens with the name's first word. */
const firstWord = (text: string): string => /^[\p{L}\p{N}]*/u.exec(text)![0];

/** The movable statements of `source`, each with its line index and its words as read. */
function movable(source: Page): Array<{ i: number; text: string }> {
  const code = source.codeLines();
  const sections = source.sections();
  const out: Array<{ i: number; text: string }> = [];
  source.lines.forEach((line, i) => {
    if (code.has(i) || !isItem(line) || /^\s/.test(line) || isMention(line) || citedIds(line).length === 0) return;
    if (!MOVABLE.includes((sections[i] ?? '') as Section)) return;
    out.push({ i, text: plain(line) });
  });
  return out;
}

/**
 * gatherStatements for many targets over the same `sources`: the sources are read once, by the first word of
 * each statement, and a target looks only at those whose statements open with its names' first words (a run
 * that made a hundred pages read every page of the vault a hundred times). Same moves, in the same order.
 */
export function gatherer(sources: readonly Page[]): (target: Page, names: readonly string[]) => Gathered[] {
  const order = new Map(sources.map((s, n) => [s, n]));
  const byWord = new Map<string, Set<Page>>();
  const index = (source: Page): void => {
    for (const { text } of movable(source)) {
      const word = firstWord(text);
      const held = byWord.get(word);
      if (held === undefined) byWord.set(word, new Set([source]));
      else held.add(source);
    }
  };
  for (const source of sources) index(source);
  return (target, names) => {
    const words = new Set(names.filter((n) => n.trim().length >= 2).map(firstWord));
    const candidates = new Set([...words].flatMap((w) => [...(byWord.get(w) ?? [])]));
    const out = gatherStatements(target, names, [...candidates].sort((a, b) => order.get(a)! - order.get(b)!));
    // A source that gave lines holds a link in their place now: read again, so a later target sees it as it is.
    for (const g of out) for (const source of candidates) if (source.rel === g.from) index(source);
    return out;
  };
}

/** Moves to `target` the statements of `sources` whose subject is one of `names`; returns what moved from where. */
export function gatherStatements(target: Page, names: readonly string[], sources: readonly Page[]): Gathered[] {
  const usable = names.filter((n) => n.trim().length >= 2);
  if (usable.length === 0) return [];
  const opens = new RegExp(`^(?:${usable.map(escapeRe).sort((a, b) => b.length - a.length).join('|')})(?=['’]s\\b|[^\\p{L}\\p{N}]|$)`, 'u');
  const out: Gathered[] = [];
  for (const source of sources) {
    if (source === target) continue;
    const sections = source.sections();
    const moving = movable(source)
      .filter(({ text }) => opens.test(text))
      .map(({ i }) => i);
    if (moving.length === 0) continue;
    const lines = moving.map((i) => ({ line: source.lines[i]!, section: sections[i] as Section }));
    // The link takes the first moved line's place; the others leave no gap.
    source.lines[moving[0]!] = `- → [[${target.title}]]`;
    for (const i of moving.slice(1).reverse()) source.lines.splice(i, 1);
    const self = new RegExp(`\\[\\[${escapeRe(target.title)}(?:\\|([^\\]]+))?\\]\\]`, 'g');
    for (const { line, section } of lines) target.append(section, line.replace(self, (_link: string, shown: string | undefined) => shown ?? target.title));
    out.push({ from: source.rel, to: target.rel, lines: lines.length });
  }
  return out;
}
