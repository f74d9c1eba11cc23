/**
 * A long `## Notes` reads in groups: once a page holds many notes, they stand under `### ` headings.
 * On an entity's page whose notes are about several things, by subject (`### Health`, `### Work`,
 * `### Moments`: the first tag of the note's fact, else its category), most notes first, oldest note first
 * within each; otherwise, over more than one month, by month (`### June 2026`), oldest first, each note
 * in the order it had. Deterministic (month names are fixed English, not the machine's locale), so the same notes
 * give the same bytes; applied only to pages a rule already changed, so an untouched page stays as it
 * was. Notes holding anything but cited items and these headings (a person's prose, their own headings,
 * nested lists) are left exactly as they are.
 */
import { isItem, type Page } from './page.js';
import { citedDates, citedIds } from '../text/citation.js';

/** Notes on one page from which they are grouped. */
export const MONTH_SECTIONS_FROM = 12;
/** Grouped by subject only when no one subject holds more than this share of the notes (else it says little). */
const MAX_SUBJECT_SHARE = 0.75;
const ENTITY_TYPES = new Set(['person', 'project', 'organization', 'place']);
/** The group of notes whose fact is not found. */
export const OTHER = 'Other';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const MONTH_HEADING_RE = new RegExp(`^### (?:${MONTHS.join('|')}) \\d{4}$`);

const monthHeading = (month: string): string => `### ${MONTHS[Number(month.slice(5, 7)) - 1]!} ${month.slice(0, 4)}`;

/** The day (YYYY-MM-DD) of a note: that of the earliest log it cites. */
const dayOf = (line: string): string => citedDates(line).sort()[0] ?? '0000-00-00';
/** The month (YYYY-MM) of a note: that of the earliest log it cites. */
const monthOf = (line: string): string => dayOf(line).slice(0, 7);

export interface Subjects {
  /** The subject of a note on `page` (from the fact it cites first), or null when its fact is unknown. */
  of(line: string, page: Page): string | null;
  /** Every heading a subject may have, so a heading written by an earlier run is known as one. */
  titles: ReadonlySet<string>;
}

export function sectionNotes(page: Page, subjects: Subjects): void {
  const start = page.headingIndex('Notes');
  if (start < 0) return;
  const indexes = page.sectionLines('Notes');
  const notes: string[] = [];
  for (const i of indexes) {
    const line = page.lines[i]!;
    const trimmed = line.trim();
    if (trimmed === '' || MONTH_HEADING_RE.test(trimmed) || (trimmed.startsWith('### ') && (subjects.titles.has(trimmed.slice(4)) || trimmed.slice(4) === OTHER))) continue;
    if (!isItem(line) || /^\s/.test(line) || citedIds(line).length === 0) return; // a person's writing: leave the section alone
    notes.push(line);
  }
  const body: string[] = [''];
  for (const [heading, lines] of groups(page, notes, subjects)) {
    if (heading !== null) body.push(heading, '');
    body.push(...lines, '');
  }
  const end = indexes.length === 0 ? start + 1 : indexes.at(-1)! + 1;
  const current = page.lines.slice(start + 1, end);
  // Trailing blank lines are the next section's gap; compare and replace the content only.
  while (current.length > 0 && current.at(-1)!.trim() === '') current.pop();
  const next = body.slice(0, body.length - 1);
  if (next.join('\n') === current.join('\n')) return;
  page.lines.splice(start + 1, current.length, ...next);
  page.dropIfEmpty('Notes');
}

/** The notes in their groups, each with its heading (null: one flat list). */
function groups(page: Page, notes: readonly string[], subjects: Subjects): Array<[string | null, string[]]> {
  if (notes.length < MONTH_SECTIONS_FROM) return notes.length === 0 ? [] : [[null, [...notes]]];
  if (ENTITY_TYPES.has(page.property('type') ?? '')) {
    const bySubject = new Map<string, string[]>();
    for (const note of notes) {
      const subject = subjects.of(note, page) ?? OTHER;
      bySubject.set(subject, [...(bySubject.get(subject) ?? []), note]);
    }
    const largest = Math.max(...[...bySubject.values()].map((l) => l.length));
    if (bySubject.size >= 2 && largest <= notes.length * MAX_SUBJECT_SHARE) {
      // Oldest first within a subject, whatever grouping the notes had before.
      const byDate = (lines: string[]): string[] => lines.map((line, n) => ({ line, n, date: dayOf(line) })).sort((a, b) => a.date.localeCompare(b.date) || a.n - b.n).map((x) => x.line);
      return [...bySubject.entries()].sort(([a, x], [b, y]) => y.length - x.length || a.localeCompare(b)).map(([subject, lines]) => [`### ${subject}`, byDate(lines)]);
    }
  }
  const months = [...new Set(notes.map(monthOf))].sort();
  if (months.length < 2) return [[null, [...notes]]];
  return months.map((month) => [monthHeading(month), notes.filter((n) => monthOf(n) === month)]);
}
