/**
 * Splits a section of a page into spans of whole lines no longer than a bound, cutting where blocks
 * start: first between top-level blocks, then between nested blocks (list items, quoted paragraphs),
 * then between any two lines, and only as a last resort inside a single line too long for one chunk.
 * Small neighbours are packed together up to the bound, so chunks stay few and whole.
 */
import { isBlank } from './source.js';

export interface LineSpan {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** For a piece of a single line longer than the bound: its UTF-16 range [from, to) within the line. */
  from?: number;
  to?: number;
}

export class LinePacker {
  /** ends[n] = characters in lines 1..n, counting one line break after each line. */
  private readonly ends: Float64Array;

  /**
   * @param cutLevels sorted line numbers where a span may start, coarse to fine; after the last level
   *   every line is a cut point, then a line is split within itself.
   */
  constructor(
    private readonly lines: readonly string[],
    private readonly cutLevels: ReadonlyArray<readonly number[]>,
    private readonly maxChars: number,
  ) {
    this.ends = new Float64Array(lines.length + 1);
    lines.forEach((line, index) => {
      this.ends[index + 1] = this.ends[index]! + line.length + 1;
    });
  }

  /** Characters in the lines start..end joined by line breaks. */
  private size(start: number, end: number): number {
    return this.ends[end]! - this.ends[start - 1]! - 1;
  }

  /** Spans covering every non-blank line of start..end, in order, none longer than the bound, none starting or ending blank. */
  pack(start: number, end: number): LineSpan[] {
    if (start > end) return [];
    return this.split(start, end, 0).flatMap((span) => this.trimmed(span) ?? []);
  }

  private split(start: number, end: number, level: number): LineSpan[] {
    if (this.size(start, end) <= this.maxChars) return [{ startLine: start, endLine: end }];
    if (start === end) return this.splitLine(start);
    let starts: number[];
    if (level < this.cutLevels.length) {
      const cuts = between(this.cutLevels[level]!, start, end);
      if (cuts.length === 0) return this.split(start, end, level + 1);
      starts = [start, ...cuts];
    } else {
      starts = Array.from({ length: end - start + 1 }, (_, index) => start + index);
    }

    const spans: LineSpan[] = [];
    let open: LineSpan | null = null;
    for (let index = 0; index < starts.length; index++) {
      const pieceStart = starts[index]!;
      const pieceEnd = (starts[index + 1] ?? end + 1) - 1;
      if (open !== null && this.size(open.startLine, pieceEnd) <= this.maxChars) {
        open.endLine = pieceEnd;
        continue;
      }
      if (open !== null) spans.push(open);
      open = null;
      if (this.size(pieceStart, pieceEnd) <= this.maxChars) open = { startLine: pieceStart, endLine: pieceEnd };
      else for (const span of this.split(pieceStart, pieceEnd, level + 1)) spans.push(span);
    }
    if (open !== null) spans.push(open);
    return spans;
  }

  /**
   * Pieces of one long line of about equal size (no short tail), each cut at the sentence end or
   * else the space nearest its ideal end, and only where there is neither, in the middle of a word.
   */
  private splitLine(line: number): LineSpan[] {
    const text = this.lines[line - 1]!;
    const max = this.maxChars;
    const spans: LineSpan[] = [];
    let from = 0;
    while (from < text.length) {
      const rest = text.length - from;
      let to = text.length;
      if (rest > max) {
        const ideal = from + Math.ceil(rest / Math.ceil(rest / max));
        const slack = Math.floor(max / 4);
        to =
          breakNear(text, ideal, ideal - slack, Math.min(from + max, ideal + slack), true) ??
          breakNear(text, ideal, from + Math.floor(max / 2), from + max, false) ??
          from + max;
        if (isHighSurrogate(text.charCodeAt(to - 1)) && to - 1 > from) to -= 1;
      }
      spans.push({ startLine: line, endLine: line, from, to });
      from = to;
    }
    return spans;
  }

  /** The span without blank lines at either end; null when nothing is left. */
  private trimmed(span: LineSpan): LineSpan | null {
    if (span.from !== undefined) return isBlank(this.lines[span.startLine - 1]!.slice(span.from, span.to)) ? null : span;
    let { startLine, endLine } = span;
    while (startLine <= endLine && isBlank(this.lines[startLine - 1]!)) startLine++;
    while (endLine >= startLine && isBlank(this.lines[endLine - 1]!)) endLine--;
    return startLine <= endLine ? { startLine, endLine } : null;
  }
}

/** The values of a sorted array that are > start and <= end. */
function between(sorted: readonly number[], start: number, end: number): number[] {
  return sorted.slice(lowerBound(sorted, start + 1), lowerBound(sorted, end + 1));
}

function lowerBound(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The cut in text(low, high] nearest `ideal` that falls just after white space, or with `sentence`
 * just after white space that follows . ! or ?; null when there is none.
 */
function breakNear(text: string, ideal: number, low: number, high: number, sentence: boolean): number | null {
  let best: number | null = null;
  for (let cut = Math.max(low, 1) + 1; cut <= high; cut++) {
    if (!isSpace(text.charCodeAt(cut - 1))) continue;
    if (sentence && !(cut >= 2 && isSentenceEnd(text.charCodeAt(cut - 2)))) continue;
    if (best === null || Math.abs(cut - ideal) < Math.abs(best - ideal)) best = cut;
  }
  return best;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9;
}

function isSentenceEnd(code: number): boolean {
  return code === 0x2e || code === 0x21 || code === 0x3f; // . ! ?
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
