/**
 * A long `## Notes` reads by month: once a page holds many notes over more than one month, they stand
 * under `### <Month YYYY>` headings, oldest month first, each note in the month of its first citation
 * and in the order it had. Deterministic (month names are fixed English, not the machine's locale), so
 * the same notes give the same bytes; applied only to pages a rule already changed, so an untouched page
 * stays as it was. Notes holding anything but cited items and these headings (a person's prose, their
 * own headings, nested lists) are left exactly as they are.
 */
import { citedIds, isItem, type Page } from './page.js';

/** Notes on one page from which they are grouped by month. */
export const MONTH_SECTIONS_FROM = 12;

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const MONTH_HEADING_RE = new RegExp(`^### (?:${MONTHS.join('|')}) \\d{4}$`);

const monthHeading = (month: string): string => `### ${MONTHS[Number(month.slice(5, 7)) - 1]!} ${month.slice(0, 4)}`;

/** The month (YYYY-MM) of a note: that of the earliest log it cites. */
const monthOf = (line: string): string => [...line.matchAll(/\[\[(\d{4}-\d{2})-\d{2}#\^/g)].map((m) => m[1]!).sort()[0] ?? '0000-00';

export function sectionNotesByMonth(page: Page): void {
  const start = page.headingIndex('Notes');
  if (start < 0) return;
  const indexes = page.sectionLines('Notes');
  const notes: string[] = [];
  for (const i of indexes) {
    const line = page.lines[i]!;
    if (line.trim() === '' || MONTH_HEADING_RE.test(line.trim())) continue;
    if (!isItem(line) || /^\s/.test(line) || citedIds(line).length === 0) return; // a person's writing: leave the section alone
    notes.push(line);
  }
  const months = [...new Set(notes.map(monthOf))].sort();
  const grouped = notes.length >= MONTH_SECTIONS_FROM && months.length >= 2;
  const body: string[] = [''];
  if (grouped) {
    for (const month of months) body.push(monthHeading(month), '', ...notes.filter((n) => monthOf(n) === month), '');
  } else if (notes.length > 0) {
    body.push(...notes, '');
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
