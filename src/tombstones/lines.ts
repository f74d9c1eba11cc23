/**
 * Forgetting at the level of a page line (DESIGN §5, §6, §7): a line that cites a tombstoned fact or
 * states one, verbatim or reworded (the forget matcher, match.ts), goes; the rest of its section stays. The
 * index leaves such lines out of its rows and MEMORY.md out of core memory; the dream runner removes them from
 * the pages after any consolidator (dream/forget-match.ts, which adds frontmatter and page names).
 */
import { forgetMatcher } from './match.js';
import type { TombstoneSet } from './tombstones.js';
import { bodyUnits } from './units.js';

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

/**
 * The indexes (from `from`) of the body lines that state a forgotten fact, by units: a heading alone, any other
 * line with the lines continuing it (a fact reflowed over two lines), so a unit goes whole.
 */
export function forgottenUnits(lines: readonly string[], from: number, tombstones: TombstoneSet): Set<number> {
  const drop = new Set<number>();
  if (tombstones.entries.length === 0) return drop;
  const matcher = forgetMatcher(tombstones);
  for (const [start, end] of bodyUnits(lines, from)) {
    if (matcher.matches(lines.slice(start, end).join(' '))) for (let n = start; n < end; n++) drop.add(n);
  }
  return drop;
}

export { frontmatterEnd } from './units.js';
