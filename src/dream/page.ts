/**
 * A wiki page as the offline consolidator edits it: lines, sections found by heading, frontmatter
 * properties set in place. A page no rule changed is written back byte for byte (see `changed`).
 */
import { FenceTracker } from '../text/fence.js';
import { citedDates } from '../text/citation.js';
import { normalizeText } from '../text/normalize.js';

/** The sections a generated page may hold, in the order they are added to a page that lacks some. */
export const SECTIONS = ['Current', 'Notes', 'Open commitments', 'Past commitments', 'History', 'Conflicts', 'Mentions', 'Related', 'Parts'] as const;
export type Section = (typeof SECTIONS)[number];

export interface Keyed {
  subject: string;
  key: string;
  value: string;
}

/** `subject:: value`, or Obsidian's bracketed `[subject:: value]`; null for any other text. */
export function subjectOf(text: string): Keyed | null {
  const inner = /^\[([^[\]]+::[^[\]]*)\]/.exec(text.trim())?.[1] ?? text;
  const match = /^(.+?)::\s*(.*)$/.exec(inner);
  if (match === null || match[1]!.includes(':')) return null;
  const subject = match[1]!.trim();
  const key = normalizeText(subject);
  return key === '' ? null : { subject, key, value: match[2]!.trim() };
}

/** The newest log date a line cites, or null. */
export function newestCitedDate(line: string): string | null {
  return citedDates(line).sort().at(-1) ?? null;
}

export const isItem = (line: string): boolean => /^\s*[-*+] /.test(line);
export const itemBody = (line: string): string => line.replace(/^\s*[-*+]\s+/, '');

export class Page {
  /** The lines as read, to tell whether any rule changed the page (the same strings: no copy of the text). */
  private readonly before: readonly string[];

  constructor(
    public rel: string,
    public lines: string[],
    readonly isNew: boolean,
    readonly original: string,
  ) {
    this.before = lines.slice();
  }

  /** The title, kept for the path it was read from (it is asked for per fact and per line). */
  private titled: [rel: string, title: string] = ['', ''];

  get title(): string {
    if (this.titled[0] !== this.rel) this.titled = [this.rel, this.rel.split('/').at(-1)!.replace(/\.md$/, '')];
    return this.titled[1];
  }

  /** True when a rule changed a line: a page no rule touched is left byte for byte as a person wrote it. */
  changed(): boolean {
    if (this.isNew) return true;
    // The same lines are the same text; only lines that differ need the joined texts compared (a rule may put
    // a line break inside a line). Asked of every page several times a run: no join for an unchanged page.
    const { lines, before } = this;
    if (lines.length === before.length && lines.every((line, i) => line === before[i])) return false;
    return lines.join('\n') !== before.join('\n');
  }

  text(): string {
    // One blank line between blocks: moving lines between sections must not leave gaps behind. Blank
    // lines in the frontmatter and in fenced code blocks are a person's content and stay as they are.
    const lines: string[] = [];
    const fences = new FenceTracker();
    let frontmatter = this.lines[0] === '---';
    this.lines.forEach((line, i) => {
      if (frontmatter && i > 0 && (line === '---' || line === '...')) frontmatter = false;
      const code = fences.inCode(line);
      if (line.trim() === '' && !frontmatter && !code && (lines.length === 0 || lines.at(-1)!.trim() === '')) return;
      lines.push(line);
    });
    // A page written with CRLF line endings keeps them.
    const eol = this.original.includes('\r\n') ? '\r\n' : '\n';
    return `${lines.join(eol).trimEnd()}${eol}`;
  }

  /** Indexes of the lines in fenced code blocks, fences included: a person's code, never a statement. */
  codeLines(): Set<number> {
    const fences = new FenceTracker();
    return new Set(this.lines.flatMap((line, i) => (fences.inCode(line) ? [i] : [])));
  }

  /** The line holding frontmatter property `name`, or -1. */
  private propertyLine(name: string): number {
    if (this.lines[0] !== '---') return -1;
    for (let i = 1; i < this.lines.length && this.lines[i] !== '---'; i++) if (this.lines[i]!.startsWith(`${name}:`)) return i;
    return -1;
  }

  property(name: string): string | null {
    const at = this.propertyLine(name);
    return at < 0 ? null : this.lines[at]!.slice(name.length + 1).trim();
  }

  /** Sets a frontmatter property on a page that has frontmatter (a page without it is left so). */
  setProperty(name: string, value: string): void {
    if (this.lines[0] !== '---') return;
    const at = this.propertyLine(name);
    if (at >= 0) {
      this.lines[at] = `${name}: ${value}`;
      return;
    }
    const close = this.lines.indexOf('---', 1);
    if (close > 0) this.lines.splice(close, 0, `${name}: ${value}`);
  }

  headingIndex(name: Section): number {
    return this.lines.findIndex((l) => l.trim() === `## ${name}`);
  }

  /** Index of the line after the section's last content line; creates the section when missing. */
  sectionEnd(name: Section): number {
    let start = this.headingIndex(name);
    if (start < 0) {
      // Sections keep their canonical order when added to a page that lacks some of them.
      const later = SECTIONS.slice(SECTIONS.indexOf(name) + 1)
        .map((s) => this.headingIndex(s))
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

  /** Indexes of the lines under a `## ` heading (none when the page lacks it). */
  sectionLines(name: Section): number[] {
    const start = this.headingIndex(name);
    if (start < 0) return [];
    const out: number[] = [];
    for (let i = start + 1; i < this.lines.length && !/^#{1,2} /.test(this.lines[i]!); i++) out.push(i);
    return out;
  }

  /** Removes a section whose heading is all that is left of it. */
  dropIfEmpty(name: Section): void {
    const start = this.headingIndex(name);
    if (start >= 0 && this.sectionLines(name).every((i) => this.lines[i]!.trim() === '')) this.lines.splice(start, 1 + this.sectionLines(name).length);
  }

  /** The section of every line, as `sectionOf` reads it, in one pass (a `sectionOf` per line is quadratic in the page). */
  sections(): Array<string | null> {
    let current: string | null = null;
    return this.lines.map((line) => {
      const match = /^## (.+)$/.exec(line.trim());
      if (match) current = match[1]!;
      return current;
    });
  }

  sectionOf(index: number): string | null {
    for (let i = index; i >= 0; i--) {
      const match = /^## (.+)$/.exec(this.lines[i]!.trim());
      if (match) return match[1]!;
    }
    return null;
  }

  /** A `- [[Target]]` item under Related or Parts, once. */
  link(section: 'Related' | 'Parts', target: string): void {
    const item = `- [[${target}]]`;
    if (this.sectionLines(section).some((i) => this.lines[i]!.trim() === item)) return;
    this.append(section, item);
  }
}
