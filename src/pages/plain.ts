/**
 * The outline of a page read line by line, without the markdown parser: ATX headings, fenced code,
 * blank-line separated blocks, list items, wikilinks and tags found by pattern. Used when the parser
 * failed or when the page is one it could take too long on; it never throws and runs in linear time.
 */
import type { LinkOccurrence, Outline, OutlineHeading } from './outline.js';
import { isBlank } from './source.js';
import { inlineTags } from './tags.js';
import { splitWikiLink } from './wikilink.js';

const ATX_OPEN_RE = /^ {0,3}(#{1,6})(?:[ \t]|$)/u;
const FENCE_RE = /^ {0,3}(`{3,}|~{3,})/u;
const LIST_ITEM_RE = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/u;
/**
 * As the wikilink plugin reads them (on one line, no `]` in the target, no `|` before the alias),
 * except that no `[` is allowed inside either: that keeps the scan linear on a line full of `[[`.
 */
const WIKILINK_RE = /(!?)\[\[([^[\]|\r\n]+)(?:\|([^[\]\r\n]+))?\]\]/gu;

/** Reads the outline of `lines` from line `firstLine` on (earlier lines are frontmatter). */
export function plainOutline(lines: readonly string[], firstLine = 1): Outline {
  const headings: OutlineHeading[] = [];
  const topLevel: number[] = [];
  const nested: number[] = [];
  const links: LinkOccurrence[] = [];
  const tags: string[] = [];
  let fence: string | null = null;
  let previousBlank = true;

  for (let line = firstLine; line <= lines.length; line++) {
    const text = lines[line - 1]!;
    const blank = isBlank(text);
    if (fence !== null) {
      // Inside fenced code: no headings, links or tags, and the closing fence ends it.
      const close = FENCE_RE.exec(text);
      const closes = close !== null && close[1]![0] === fence[0] && close[1]!.length >= fence.length && text.trim() === close[1];
      if (closes) fence = null;
      // The line after a closing fence starts a new block, as after a blank line.
      previousBlank = closes;
      continue;
    }
    const open = FENCE_RE.exec(text);
    const heading = open === null ? atxHeading(text) : null;
    if (heading !== null) {
      headings.push({ line, ...heading });
      topLevel.push(line);
      nested.push(line);
    } else if (!blank && (previousBlank || open !== null)) {
      topLevel.push(line);
      nested.push(line);
    } else if (!blank && LIST_ITEM_RE.test(text)) {
      nested.push(line);
    }
    if (open !== null) {
      fence = open[1]!;
    } else if (!blank) {
      for (const match of text.matchAll(WIKILINK_RE)) {
        links.push({ ...splitWikiLink(match[2]!, match[3]), line, column: match.index, embed: match[1] === '!' });
      }
      for (const tag of inlineTags(heading === null ? text : heading.text)) tags.push(tag);
    }
    previousBlank = blank;
  }
  return { headings, blockStarts: [topLevel, nested], links, tags };
}

/** An ATX heading's depth and text, closing #s removed; parsed by hand to stay linear on long lines. */
function atxHeading(line: string): { depth: number; text: string } | null {
  const open = ATX_OPEN_RE.exec(line);
  if (open === null) return null;
  let text = line.slice(open[0].length).trim();
  let end = text.length;
  while (end > 0 && text[end - 1] === '#') end--;
  if (end < text.length && (end === 0 || text[end - 1] === ' ' || text[end - 1] === '\t')) text = text.slice(0, end).trimEnd();
  return { depth: open[1]!.length, text };
}
