/**
 * Forgetting at the level of a page line (DESIGN §5, §6, §7): a line that cites a tombstoned fact or
 * repeats a tombstoned text goes, the rest of its section stays. The index leaves such lines out of
 * its rows; the dream runner removes them from the pages after any consolidator.
 */
import type { TombstoneSet } from './tombstones.js';

const CITED_ID_RE = /#\^(f-[0-9a-z]+)/g;

/** Fact ids a line cites (`[[2026-06-09#^f-7k2m9q0a1b]]`). */
export function citedInLine(line: string): string[] {
  return [...line.matchAll(CITED_ID_RE)].map((m) => m[1]!);
}

export function isForgottenLine(line: string, tombstones: TombstoneSet): boolean {
  if (tombstones.entries.length === 0 || line.trim() === '') return false;
  return citedInLine(line).some((id) => tombstones.hasId(id)) || tombstones.repeats(line);
}

/** The lines of a page body (frontmatter kept as is) without the forgotten ones, and how many went. */
export function withoutForgottenLines(content: string, tombstones: TombstoneSet): { content: string; removed: string[] } {
  if (tombstones.entries.length === 0) return { content, removed: [] };
  const lines = content.split('\n');
  const bodyStart = frontmatterEnd(lines);
  const removed: string[] = [];
  const kept = lines.filter((line, index) => {
    if (index < bodyStart || !isForgottenLine(line, tombstones)) return true;
    removed.push(line);
    return false;
  });
  return { content: kept.join('\n'), removed };
}

/** The index of the first line after a leading `---` frontmatter block (0 without one). */
export function frontmatterEnd(lines: readonly string[]): number {
  if (lines[0]?.trimEnd() !== '---') return 0;
  for (let i = 1; i < lines.length; i++) if (/^(---|\.\.\.)\s*$/.test(lines[i]!)) return i + 1;
  return 0;
}
