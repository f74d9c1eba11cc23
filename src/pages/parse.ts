/**
 * A wiki page (DESIGN §2) read into what the index and doctor need: its title, frontmatter, tags,
 * aliases and wikilinks, and its chunks (DESIGN §6): sections split at headings, then at block
 * boundaries to a bounded size, each with its heading path, its line range in the file and the
 * facts it cites. parsePage never throws: a page the markdown parser cannot read is read as plain
 * lines, and frontmatter that does not parse is reported while the page is read as text.
 */
import path from 'node:path';
import { errorMessage } from '../core/errors.js';
import { LinePacker, type LineSpan } from './chunk.js';
import { readFrontmatter, type Frontmatter, type FrontmatterResult } from './frontmatter.js';
import { exceedsParserBudget } from './budget.js';
import { markdownOutline, type LinkOccurrence, type Outline } from './outline.js';
import { plainOutline } from './plain.js';
import { sourceLines } from './source.js';
import { citedFactId, type WikiLinkParts } from './wikilink.js';

export interface PageChunk {
  /** Texts of the enclosing headings, outermost first, e.g. ['Coffee', 'History']. */
  headingPath: string[];
  /** The innermost heading, or null before the first heading. */
  heading: string | null;
  /** 1-based, inclusive, in the file (frontmatter counted). */
  startLine: number;
  endLine: number;
  /**
   * The file's lines startLine..endLine joined by '\n' (line endings normalized, no BOM). Only a
   * single line too long for one chunk is cut within itself; each piece is then a part of that line.
   */
  text: string;
  /** Ids of the facts the chunk cites as [[YYYY-MM-DD#^f-…]], unique, in order. */
  citations: string[];
  /** Targets of the chunk's wikilinks and embeds (no #heading, ^block or |alias), unique, in order. */
  links: string[];
}

export interface PageLink extends WikiLinkParts {
  /** 1-based line in the file. */
  line: number;
  /** `![[…]]`: shown inside the page rather than linked. */
  embed: boolean;
}

export interface ParsedPage {
  path: string;
  /** The frontmatter title, else the first H1, else the file name without .md. */
  title: string;
  frontmatter: Frontmatter;
  /** Why the frontmatter could not be read; the page is then read as text from line 1. */
  frontmatterError?: string;
  /** Lines the frontmatter block takes, delimiters included; the body starts on the line after. */
  frontmatterLines: number;
  /** Why the markdown parser failed on the page (it is then read as plain lines). */
  parserError?: string;
  /**
   * Why the page was read as plain lines rather than as markdown, when it was: the parser failed, or
   * the page is too large or has a shape the parser takes too long on. Headings (ATX only), links and
   * tags are then found by pattern.
   */
  plainTextReason?: string;
  aliases: string[];
  /** Frontmatter tags, then inline #tags of the body, unique. */
  tags: string[];
  links: PageLink[];
  chunks: PageChunk[];
}

export interface ParseOptions {
  /** The bound on a chunk's text, in UTF-16 characters (default 1500). */
  maxChunkChars?: number;
}

export const DEFAULT_MAX_CHUNK_CHARS = 1500;

export function parsePage(relPath: string, content: string | Uint8Array, options: ParseOptions = {}): ParsedPage {
  const maxChars = chunkBound(options.maxChunkChars);
  let lines: string[];
  try {
    lines = sourceLines(content);
  } catch {
    lines = [];
  }
  const front = safeFrontmatter(lines);
  const firstLine = front.lineCount + 1;

  const { outline, chunks, plainTextReason, parserError } = readBody(lines, firstLine, front.lineCount, maxChars);

  const page: ParsedPage = {
    path: relPath,
    title: pageTitle(relPath, front.frontmatter, outline),
    frontmatter: front.frontmatter,
    frontmatterLines: front.lineCount,
    aliases: front.frontmatter.aliases,
    tags: unique([...front.frontmatter.tags, ...outline.tags]),
    links: outline.links.map(({ column: _column, ...link }) => link),
    chunks,
  };
  if (front.error !== undefined) page.frontmatterError = front.error;
  if (parserError !== undefined) page.parserError = parserError;
  if (plainTextReason !== undefined) page.plainTextReason = plainTextReason;
  return page;
}

interface Body {
  outline: Outline;
  chunks: PageChunk[];
  plainTextReason?: string;
  parserError?: string;
}

function readBody(lines: readonly string[], firstLine: number, frontmatterLines: number, maxChars: number): Body {
  const overBudget = exceedsParserBudget(lines, firstLine);
  if (overBudget !== null) return readPlain(lines, firstLine, maxChars, overBudget);
  try {
    // Frontmatter lines are passed blank, so the parser's line numbers are the file's.
    const body = frontmatterLines === 0 ? lines : lines.map((line, index) => (index < frontmatterLines ? '' : line));
    const outline = markdownOutline(body.join('\n'), body);
    return { outline, chunks: buildChunks(lines, firstLine, outline, maxChars) };
  } catch (error) {
    const parserError = `the markdown parser failed: ${errorMessage(error)}`;
    return { ...readPlain(lines, firstLine, maxChars, parserError), parserError };
  }
}

function readPlain(lines: readonly string[], firstLine: number, maxChars: number, plainTextReason: string): Body {
  try {
    const outline = plainOutline(lines, firstLine);
    return { outline, chunks: buildChunks(lines, firstLine, outline, maxChars), plainTextReason };
  } catch (error) {
    // Not expected: plain reading is pattern matching on lines. Reported rather than thrown all the same.
    const outline: Outline = { headings: [], blockStarts: [[], []], links: [], tags: [] };
    const parserError = `the page could not be read: ${errorMessage(error)}`;
    return { outline, chunks: [], plainTextReason: parserError, parserError };
  }
}

function chunkBound(value: number | undefined): number {
  if (value === undefined || Number.isNaN(value)) return DEFAULT_MAX_CHUNK_CHARS;
  // Two, so a chunk can always hold a surrogate pair whole.
  return Math.max(2, Math.floor(value));
}

function safeFrontmatter(lines: readonly string[]): FrontmatterResult {
  try {
    return readFrontmatter(lines);
  } catch (error) {
    return { frontmatter: { tags: [], aliases: [], raw: {} }, lineCount: 0, error: `invalid frontmatter: ${errorMessage(error)}` };
  }
}

function pageTitle(relPath: string, frontmatter: Frontmatter, outline: Outline): string {
  if (frontmatter.title !== undefined) return frontmatter.title;
  const h1 = outline.headings.find((heading) => heading.depth === 1 && heading.text !== '');
  if (h1 !== undefined) return h1.text;
  return path.posix.basename(relPath.replaceAll('\\', '/')).replace(/\.md$/iu, '');
}

interface Section {
  start: number;
  end: number;
  headingPath: string[];
}

function buildChunks(lines: readonly string[], firstLine: number, outline: Outline, maxChars: number): PageChunk[] {
  const headings = outline.headings.filter((heading) => heading.line >= firstLine);
  const sections: Section[] = [];
  const firstHeading = headings[0]?.line ?? lines.length + 1;
  if (firstHeading > firstLine) sections.push({ start: firstLine, end: firstHeading - 1, headingPath: [] });
  const stack: Array<{ depth: number; text: string }> = [];
  headings.forEach((heading, index) => {
    while (stack.length > 0 && stack.at(-1)!.depth >= heading.depth) stack.pop();
    stack.push(heading);
    sections.push({ start: heading.line, end: (headings[index + 1]?.line ?? lines.length + 1) - 1, headingPath: stack.map((h) => h.text) });
  });

  const linksByLine = new Map<number, LinkOccurrence[]>();
  for (const link of outline.links) {
    const onLine = linksByLine.get(link.line);
    if (onLine === undefined) linksByLine.set(link.line, [link]);
    else onLine.push(link);
  }

  const packer = new LinePacker(lines, outline.blockStarts, maxChars);
  const chunks: PageChunk[] = [];
  for (const section of sections) {
    for (const span of packer.pack(section.start, section.end)) {
      const links = spanLinks(span, linksByLine);
      chunks.push({
        headingPath: section.headingPath,
        heading: section.headingPath.at(-1) ?? null,
        startLine: span.startLine,
        endLine: span.endLine,
        text:
          span.from === undefined
            ? lines.slice(span.startLine - 1, span.endLine).join('\n')
            : lines[span.startLine - 1]!.slice(span.from, span.to),
        citations: unique(links.map(citedFactId).filter((id): id is string => id !== null)),
        links: unique(links.map((link) => link.target)),
      });
    }
  }
  return chunks;
}

function spanLinks(span: LineSpan, linksByLine: ReadonlyMap<number, LinkOccurrence[]>): LinkOccurrence[] {
  const links: LinkOccurrence[] = [];
  for (let line = span.startLine; line <= span.endLine; line++) {
    for (const link of linksByLine.get(line) ?? []) {
      if (span.from === undefined || (link.column >= span.from && link.column < span.to!)) links.push(link);
    }
  }
  return links;
}

function unique(values: readonly string[]): string[] {
  if (values.length === 0) return [];
  return [...new Set(values.filter((value) => value !== ''))];
}
