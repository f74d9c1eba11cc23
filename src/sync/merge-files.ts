/**
 * Three-way merges for the files that only ever grow, so that two machines' appends never conflict (issue 28):
 * a daily log (DESIGN §3) keeps every batch of both sides, each fact once by id, the new batches in time order;
 * an append-only line file (tombstones, log.md) keeps every line of both sides once, in the order they came.
 * Pure functions: the git merge driver (merge-driver.ts) reads and writes the files.
 */
import { parseLog } from '../logs/factlog.js';

const HEADER_RE = /^##[ \t]+(\d{2}:\d{2})\b/;

interface Batch {
  /** HH:MM of its header ('' for the lines before the first header). */
  time: string;
  lines: string[];
}

function splitLines(content: string): string[] {
  if (content === '') return [];
  const lines = content.split(/\r\n|\r|\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The lines before the first batch header, then one entry per batch (its header and the lines under it). */
function batchesOf(content: string): { preamble: string[]; batches: Batch[] } {
  const preamble: string[] = [];
  const batches: Batch[] = [];
  for (const line of splitLines(content)) {
    const header = HEADER_RE.exec(line);
    if (header !== null) batches.push({ time: header[1]!, lines: [line] });
    else if (batches.length === 0) preamble.push(line);
    else batches.at(-1)!.lines.push(line);
  }
  return { preamble, batches };
}

const batchKey = (batch: Batch): string => batch.lines.map((l) => l.trimEnd()).join('\n').trimEnd();

/** The id of each fact line of a file, by line index (0-based), as the log parser reads them. */
function factIdsByLine(content: string): Map<number, string> {
  const ids = new Map<number, string>();
  for (const fact of parseLog(content, '0000-00-00').facts) ids.set(fact.line - 1, fact.id);
  return ids;
}

/**
 * Merges a daily log. Base's batches stay first, in their order; the batches either side added follow, ordered by
 * their header time (ours before theirs at the same minute); a batch both sides hold is kept once, and a fact line
 * whose id came earlier is not repeated. Every other line of either side is kept.
 */
export function mergeLog(base: string, ours: string, theirs: string): string {
  const parsed = [base, ours, theirs].map(batchesOf);
  const [b, o, t] = parsed as [ReturnType<typeof batchesOf>, ReturnType<typeof batchesOf>, ReturnType<typeof batchesOf>];
  const baseKeys = new Set(b.batches.map(batchKey));
  const kept: Batch[] = [];
  const seen = new Set<string>();
  const add = (batch: Batch): void => {
    const key = batchKey(batch);
    if (seen.has(key)) return;
    seen.add(key);
    kept.push(batch);
  };
  // Ours is base plus appends in the common case; a batch base had and ours lost is kept too (nothing is dropped).
  for (const batch of o.batches) if (baseKeys.has(batchKey(batch))) add(batch);
  for (const batch of b.batches) add(batch);
  const added = [...o.batches, ...t.batches].filter((batch) => !seen.has(batchKey(batch)));
  // A stable sort: ours' batches come before theirs' at the same minute, each side's in its own order.
  const ordered = added.map((batch, index) => ({ batch, index })).sort((x, y) => (x.batch.time < y.batch.time ? -1 : x.batch.time > y.batch.time ? 1 : x.index - y.index));
  for (const { batch } of ordered) add(batch);

  const preamble = trimBlankEnd(o.preamble.length > 0 ? o.preamble : t.preamble.length > 0 ? t.preamble : b.preamble);
  // One fact, one line: a fact line whose id an earlier batch already holds goes (both machines appended the same
  // fact under different headers, e.g. a retried sync); a batch left with no fact line and nothing else goes too.
  const ownIds = new Set<string>();
  const out: string[] = [...preamble];
  for (const batch of kept) {
    const ids = factIdsByLine(`${batch.lines.join('\n')}\n`);
    const lines = trimBlankEnd(batch.lines.filter((_, index) => {
      const id = ids.get(index);
      if (id === undefined) return true;
      if (ownIds.has(id)) return false;
      ownIds.add(id);
      return true;
    }));
    if (lines.length <= 1 && batch.lines.length > 1) continue;
    // Batches are written with one blank line before each header (factlog.ts); a merge keeps that shape.
    if (out.length > 0) out.push('');
    out.push(...lines);
  }
  return `${out.join('\n')}\n`;
}

function trimBlankEnd(lines: readonly string[]): string[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === '') end -= 1;
  return lines.slice(0, end);
}

/**
 * Merges a file of appended lines (tombstones.jsonl, log.md): ours as it is, then the lines only theirs holds, in
 * their order, then any line of base both sides lost. A line is kept once; nothing either side holds is dropped.
 */
export function mergeLines(base: string, ours: string, theirs: string): string {
  const out = splitLines(ours);
  const seen = new Set(out.map((line) => line.trimEnd()).filter((key) => key !== ''));
  for (const source of [theirs, base]) {
    for (const line of splitLines(source)) {
      const key = line.trimEnd();
      if (key === '' || seen.has(key)) continue;
      seen.add(key);
      out.push(line);
    }
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
