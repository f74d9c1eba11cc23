/**
 * Which pages the markdown parser may read. The limits were set for micromark (the parser up to 0.1),
 * which is linear on ordinary pages but not on some shapes a person would never write and a broken or
 * hostile file may hold; those pages are read as plain lines instead (plain.ts). They are kept as they
 * were with markdown-it, so a page is read the same way as before, and they also bound markdown-it's
 * recursion on deep nesting. The limits, each kept to about a second of parsing at worst:
 * - the page's size: its characters, each line counted as 25 more (micromark spent about that much
 *   again on every line, and memory and time grow with both);
 * - per run of non-blank lines (a paragraph never spans a blank line), the count of brackets,
 *   emphasis and quote marks times the run's length: runs like `[[[[…`, `*a_*a_…` or `>>>>…` are quadratic;
 * - the sum of the line prefixes that open or continue containers (indentation and `>`): every line
 *   of a deeply nested list or quote costs as much again as its depth (and one line no more than a thousand).
 */
const MAX_PARSE_SIZE = 500_000;
const LINE_SIZE = 25;
const MAX_MARKS_COST = 50_000_000;
const MAX_NESTING_COST = 50_000;
const MAX_LINE_NESTING = 1_000;

/** Why `lines` from `firstLine` on should not go through the markdown parser, or null when they may. */
export function exceedsParserBudget(lines: readonly string[], firstLine = 1): string | null {
  let total = 0;
  let marksCost = 0;
  let nestingCost = 0;
  let runLength = 0;
  let runMarks = 0;
  for (let index = firstLine - 1; index <= lines.length; index++) {
    const line = lines[index];
    if (line !== undefined) total += line.length + LINE_SIZE;
    if (line === undefined || line.trim() === '') {
      marksCost += runMarks * runLength;
      runLength = 0;
      runMarks = 0;
      continue;
    }
    runLength += line.length + 1;
    let at = 0;
    while (at < line.length && isNestingMark(line.charCodeAt(at))) at++;
    nestingCost += at;
    if (at > MAX_LINE_NESTING) nestingCost = Infinity;
    for (; at < line.length; at++) if (isCostlyMark(line.charCodeAt(at))) runMarks++;
  }
  if (total > MAX_PARSE_SIZE) return 'the page is too long for the markdown parser';
  if (marksCost > MAX_MARKS_COST) return 'the page has long paragraphs dense with brackets, emphasis or quote marks';
  if (nestingCost > MAX_NESTING_COST) return 'the page nests lists or quotes too deeply';
  return null;
}

/** [ ] * _ > */
function isCostlyMark(code: number): boolean {
  return code === 0x5b || code === 0x5d || code === 0x2a || code === 0x5f || code === 0x3e;
}

/** Space, tab, > */
function isNestingMark(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x3e;
}
