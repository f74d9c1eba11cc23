/**
 * The statements of a page section: the units a page row holds (DESIGN §6 as changed by issue 9, see
 * docs/formats.md). A list item (with its indented continuation lines) is one statement; prose is one
 * statement per paragraph, or per line when the paragraph is long; headings and blank lines are none.
 */

/** A paragraph longer than this is split into its lines, so one statement stays a short read. */
export const MAX_STATEMENT_CHARS = 600;
const HEADING_RE = /^#{1,6}\s/;
const LIST_ITEM_RE = /^\s*(?:[-*+]|\d+[.)])\s+\S/;
const CONTINUATION_RE = /^\s+\S/;

export interface Statement {
  /** 0-based index of the first and last line in the section's lines. */
  start: number;
  end: number;
  text: string;
}

/**
 * `lines`: a section's lines, forgotten ones already blanked. `listOnly` keeps list items alone (MEMORY.md,
 * whose prose is the generator's template).
 */
export function splitStatements(lines: readonly string[], options: { listOnly?: boolean } = {}): Statement[] {
  const blocks: Array<{ start: number; end: number; list: boolean }> = [];
  lines.forEach((line, index) => {
    if (line.trim() === '' || HEADING_RE.test(line)) return;
    const previous = blocks.at(-1);
    const adjacent = previous !== undefined && previous.end === index - 1;
    const list = LIST_ITEM_RE.test(line);
    if (adjacent && !list && (previous.list ? CONTINUATION_RE.test(line) : true)) previous.end = index;
    else blocks.push({ start: index, end: index, list });
  });
  const out: Statement[] = [];
  for (const block of blocks) {
    if (options.listOnly && !block.list) continue;
    const text = lines.slice(block.start, block.end + 1).join('\n');
    if (block.list || block.start === block.end || text.length <= MAX_STATEMENT_CHARS) {
      out.push({ start: block.start, end: block.end, text });
      continue;
    }
    for (let i = block.start; i <= block.end; i++) out.push({ start: i, end: i, text: lines[i]! });
  }
  return out;
}
