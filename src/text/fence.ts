/**
 * Fenced code blocks read line by line (CommonMark: three or more ` or ~, closed by a fence of the same
 * character at least as long). What stands in one is a person's code, not a statement: its `[[links]]`,
 * citations and blank lines are kept as written and read as nothing else.
 */
const FENCE_RE = /^ {0,3}(`{3,}|~{3,})/u;

export class FenceTracker {
  private open: string | null = null;

  /** True when `line` belongs to a fenced code block: its opening fence, a line inside, or its closing fence. */
  inCode(line: string): boolean {
    const marker = FENCE_RE.exec(line)?.[1];
    if (this.open === null) {
      if (marker === undefined) return false;
      this.open = marker;
      return true;
    }
    if (marker !== undefined && marker[0] === this.open[0] && marker.length >= this.open.length && line.trim() === marker) this.open = null;
    return true;
  }
}
