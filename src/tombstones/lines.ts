/**
 * Forgetting at the level of a page line (DESIGN §5, §6, §7): a line that cites a tombstoned fact or
 * states one, verbatim or reworded (the forget matcher, match.ts), goes; the rest of its section stays. The
 * index leaves such lines out of its rows and MEMORY.md out of core memory; the dream runner removes them from
 * the pages after any consolidator (dream/forget-match.ts, which adds frontmatter and page names).
 */
import { forgetMatcher } from './match.js';
import type { TombstoneSet } from './tombstones.js';

const CITED_ID_RE = /#\^(f-[0-9a-z]+)/g;

/** Fact ids a line cites (`[[2026-06-09#^f-7k2m9q0a1b]]`). */
export function citedInLine(line: string): string[] {
  return [...line.matchAll(CITED_ID_RE)].map((m) => m[1]!);
}

/** True when a line states a forgotten fact: it cites one, or repeats one verbatim or reworded (match.ts). */
export function isForgottenLine(line: string, tombstones: TombstoneSet): boolean {
  if (tombstones.entries.length === 0 || line.trim() === '') return false;
  return forgetMatcher(tombstones).matches(line);
}

const LIST_OR_HEADING = /^\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|>|\|)/;
const HEADING = /^#{1,6}\s/;

/**
 * The indexes (from `from`) of the body lines that state a forgotten fact, by units: a heading alone, any other
 * line with the lines continuing it (a fact reflowed over two lines), so a unit goes whole.
 */
export function forgottenUnits(lines: readonly string[], from: number, tombstones: TombstoneSet): Set<number> {
  const drop = new Set<number>();
  if (tombstones.entries.length === 0) return drop;
  const matcher = forgetMatcher(tombstones);
  for (let i = from; i < lines.length; ) {
    if (lines[i]!.trim() === '') {
      i++;
      continue;
    }
    let end = i + 1;
    while (!HEADING.test(lines[i]!) && end < lines.length && lines[end]!.trim() !== '' && !LIST_OR_HEADING.test(lines[end]!)) end++;
    if (matcher.matches(lines.slice(i, end).join(' '))) for (let n = i; n < end; n++) drop.add(n);
    i = end;
  }
  return drop;
}

/** The index of the first line after a leading `---` frontmatter block (0 without one). */
export function frontmatterEnd(lines: readonly string[]): number {
  if (lines[0]?.trimEnd() !== '---') return 0;
  for (let i = 1; i < lines.length; i++) if (/^(---|\.\.\.)\s*$/.test(lines[i]!)) return i + 1;
  return 0;
}
