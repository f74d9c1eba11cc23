/**
 * Where a page's forget units lie (DESIGN §5): the frontmatter block, and the body's units, a heading alone or any
 * other line with the lines continuing it (a fact reflowed over two lines). The scrub matches unit by unit
 * (lines.ts forgottenUnits), and forget's page test counts words over the same units (match.ts), so both split here.
 */

const LIST_OR_HEADING = /^\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|>|\|)/;
const HEADING = /^#{1,6}\s/;

/** The index of the first line after a leading `---` frontmatter block (0 without one). */
export function frontmatterEnd(lines: readonly string[]): number {
  if (lines[0]?.trimEnd() !== '---') return 0;
  for (let i = 1; i < lines.length; i++) if (/^(---|\.\.\.)\s*$/.test(lines[i]!)) return i + 1;
  return 0;
}

/** The body's units from line `from`, as [start, end) line ranges; blank lines belong to none. */
export function* bodyUnits(lines: readonly string[], from: number): Generator<[number, number]> {
  for (let i = from; i < lines.length; ) {
    if (lines[i]!.trim() === '') {
      i++;
      continue;
    }
    let end = i + 1;
    while (!HEADING.test(lines[i]!) && end < lines.length && lines[end]!.trim() !== '' && !LIST_OR_HEADING.test(lines[end]!)) end++;
    yield [i, end];
    i = end;
  }
}
