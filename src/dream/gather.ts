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

/** Moves to `target` the statements of `sources` whose subject is one of `names`; returns what moved from where. */
export function gatherStatements(target: Page, names: readonly string[], sources: readonly Page[]): Gathered[] {
  const usable = names.filter((n) => n.trim().length >= 2);
  if (usable.length === 0) return [];
  const opens = new RegExp(`^(?:${usable.map(escapeRe).sort((a, b) => b.length - a.length).join('|')})(?=['’]s\\b|[^\\p{L}\\p{N}]|$)`, 'u');
  const out: Gathered[] = [];
  for (const source of sources) {
    if (source === target) continue;
    const code = source.codeLines();
    const sections = source.sections();
    const moving: number[] = [];
    source.lines.forEach((line, i) => {
      if (code.has(i) || !isItem(line) || /^\s/.test(line) || isMention(line) || citedIds(line).length === 0) return;
      if (!MOVABLE.includes((sections[i] ?? '') as Section)) return;
      if (opens.test(plain(line))) moving.push(i);
    });
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
