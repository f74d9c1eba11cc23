/**
 * Result units (DESIGN §6, issue 9): a fact is one; the statements of one page section that matched a
 * query make one, shown together in line order with their line range. A dreamt page files a person's
 * statements of one month in conversation order, so the lines a question needs often stand in one
 * section: one unit covers them for about the characters of its best lines, and k bounds the read.
 */
import { withoutCitations } from '../text/citation.js';
import { dateWords } from '../text/date-words.js';
import type { Hit } from './store.js';

export interface Scored {
  hit: Hit;
  score: number;
}

export interface Unit {
  /** Best first; the first (the anchor) gives the unit its score. */
  members: Scored[];
  score: number;
}

/**
 * A statement joins the unit of a better one in its section when it scores at least this share of it. Lower
 * shares cover more evidence in a top 10 but pull weak lines ahead of better results elsewhere, which costs
 * recall at a reading budget (measured on LoCoMo conversations 0–6, docs/benchmarks.md).
 */
export const UNIT_SCORE_SHARE = 0.9;
/** A unit's text stays within this many characters (about four page lines), so k still bounds the read; an anchor longer than it stands alone. */
export const UNIT_MAX_CHARS = 600;

/**
 * Groups scored hits into units: each fact alone; a section's statements greedily, best first: the best
 * left becomes an anchor and takes the others scoring at least UNIT_SCORE_SHARE of it, best first, while
 * the text fits UNIT_MAX_CHARS. `scored` in any order; units come unordered.
 */
export function toUnits(scored: readonly Scored[]): Unit[] {
  const out: Unit[] = [];
  const bySection = new Map<string, Scored[]>();
  for (const entry of scored) {
    if (entry.hit.kind === 'fact') {
      out.push({ members: [entry], score: entry.score });
      continue;
    }
    const key = `${entry.hit.kind}:${entry.hit.path}#${entry.hit.section_line}`;
    const list = bySection.get(key) ?? [];
    list.push(entry);
    bySection.set(key, list);
  }
  for (const section of bySection.values()) {
    let left = section.sort(byScore);
    while (left.length > 0) {
      const [anchor, ...rest] = left as [Scored, ...Scored[]];
      const members = [anchor];
      let chars = shownText(anchor.hit).length;
      const next: Scored[] = [];
      for (const entry of rest) {
        const fits = chars + 1 + shownText(entry.hit).length <= UNIT_MAX_CHARS;
        if (entry.score >= UNIT_SCORE_SHARE * anchor.score && fits) {
          members.push(entry);
          chars += 1 + shownText(entry.hit).length;
        } else next.push(entry);
      }
      out.push({ members, score: anchor.score });
      left = next;
    }
  }
  return out;
}

/**
 * What a result shows of a row: a fact's text; a page or core statement without its inline citations, which the
 * result carries apart (`citations`, per statement too), so a reading budget is spent on what the lines say,
 * followed by the date it was said.
 */
export function shownText(hit: Pick<Hit, 'kind' | 'text' | 'date'>, dated = true): string {
  if (hit.kind === 'fact') return hit.text;
  const own = withoutCitations(hit.text);
  // A statement that cites shows when it was said (its newest cited log's date, in words), which its
  // citations no longer show once cut: "when did …" is answered from the result itself.
  if (!dated || own === hit.text || hit.date === null) return own;
  const when = dateWords(hit.date);
  return own.includes(when) ? own : `${own} (${when})`;
}

/** The unit's text as shown: its statements in line order, one after another, with the date they were said. */
export function unitText(members: readonly Scored[]): string {
  // Lines of one day in a row show their date once, after the last of them.
  const lines = inLineOrder(members);
  return lines.map((m, i) => shownText(m.hit, lines[i + 1]?.hit.date !== m.hit.date || withoutCitations(lines[i + 1]!.hit.text) === lines[i + 1]!.hit.text)).join('\n');
}

export function inLineOrder(members: readonly Scored[]): Scored[] {
  return [...members].sort((a, b) => a.hit.line - b.hit.line);
}

/** Keeps the anchor and the best of the others whose text fits `maxChars` together; null when the anchor alone does not fit. */
export function trimUnit(unit: Unit, maxChars: number): Unit | null {
  const [anchor, ...rest] = unit.members as [Scored, ...Scored[]];
  if (shownText(anchor.hit).length > maxChars) return null;
  const members = [anchor];
  let chars = shownText(anchor.hit).length;
  for (const entry of rest) {
    if (chars + 1 + shownText(entry.hit).length > maxChars) continue;
    members.push(entry);
    chars += 1 + shownText(entry.hit).length;
  }
  return { members, score: unit.score };
}

/** Best first; equal scores by line, so the grouping is deterministic. */
function byScore(a: Scored, b: Scored): number {
  return b.score - a.score || a.hit.line - b.hit.line;
}
