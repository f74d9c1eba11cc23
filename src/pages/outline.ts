/**
 * The structure of a page body that chunking needs: its top-level headings, where blocks start, and
 * where its wikilinks and tags are. Read from markdown-it's token stream (CommonMark, with Obsidian
 * wikilinks from wikilink-rule.ts), which parses a page several times faster than the remark syntax
 * tree the index used up to 0.1 and yields the same outline (test/unit/pages-outline-diff.test.ts runs
 * both over every page it can find). plain.ts reads the outline from the raw lines when the parser
 * cannot be trusted.
 */
import MarkdownIt from 'markdown-it';
import type { MarkdownIt as Parser, ParserInline, StateBlock, StateCore, StateInline, Token } from 'markdown-it';
import { usePlainFields } from './plain-fields.js';
import { inlineTags } from './tags.js';
import { splitWikiLink, type WikiLinkParts } from './wikilink.js';
import { WIKILINK_TOKEN, wikiLinkRule, type WikiLinkMeta } from './wikilink-rule.js';

export interface OutlineHeading {
  /** The heading's first line (a setext heading also takes the underline after it). */
  line: number;
  depth: number;
  text: string;
}

export interface LinkOccurrence extends WikiLinkParts {
  line: number;
  /** Where the link starts within its line (UTF-16 index), so a split line keeps its links apart. */
  column: number;
  embed: boolean;
}

export interface Outline {
  /** Headings that start a section: those at the top level of the page, in order. */
  headings: OutlineHeading[];
  /** Cut points for chunking, finest last: lines where a top-level block starts, then where any block starts. Sorted. */
  blockStarts: [topLevel: number[], nested: number[]];
  links: LinkOccurrence[];
  tags: string[];
}

/** What one inline run (a paragraph's or heading's text) holds beyond its tokens: its stretches of plain text, and where inline HTML starts. */
interface InlineFacts {
  /** [start, end) offsets in the inline source, flat. */
  texts: number[];
  html: number[];
}

/** Inline facts by the children array of their inline token (the env of one parse). */
type Facts = Map<Token[], InlineFacts>;

/** A successful inline rule: the source it consumed and the tokens it made (not the pending text it flushed). */
interface Span {
  start: number;
  end: number;
  tokens: Token[];
}

const parser = createParser();

/**
 * Reads the outline of `text`, whose line N is line N of the file (lines before the body, like
 * frontmatter, are passed blank); `lines` are its lines, when the caller has them. May throw on input
 * the parser cannot handle; parsePage falls back.
 */
export function markdownOutline(text: string, lines: readonly string[] = text.split('\n')): Outline {
  const facts: Facts = new Map();
  const tokens = parser.parse(text, { facts });
  const headings: OutlineHeading[] = [];
  const topLevel: number[] = [];
  const nested = new Set<number>();
  const links: LinkOccurrence[] = [];
  const tags: string[] = [];

  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    if (token.nesting === -1 || token.map === null) continue;
    const line = token.map[0] + 1;
    if (token.type === 'inline') {
      readInline(token, lines, facts.get(token.children ?? []), nested, links, tags);
      continue;
    }
    nested.add(line);
    if (token.level !== 0) continue;
    topLevel.push(line);
    if (token.type === 'heading_open') {
      headings.push({ line, depth: Number(token.tag.slice(1)), text: headingText(tokens[index + 1]?.children ?? []).trim() });
    }
  }

  links.sort((a, b) => a.line - b.line || a.column - b.column);
  return { headings, blockStarts: [topLevel, [...nested].sort((a, b) => a - b)], links, tags };
}

function readInline(token: Token, lines: readonly string[], facts: InlineFacts | undefined, nested: Set<number>, links: LinkOccurrence[], tags: string[]): void {
  const src = token.content;
  const first = token.map![0] + 1;
  if (facts !== undefined) {
    for (let i = 0; i < facts.texts.length; i += 2) {
      for (const tag of inlineTags(textSource(src, facts.texts[i]!, facts.texts[i + 1]!, first, lines))) tags.push(tag);
    }
    for (const offset of facts.html) nested.add(first + lineIndex(src, offset));
  }
  for (const child of token.children ?? []) {
    if (child.type !== WIKILINK_TOKEN) continue;
    const meta = child.meta as unknown as WikiLinkMeta;
    const line = first + lineIndex(src, meta.start);
    // The remark plugin placed a link after its opening brackets, and the outline took two back from there.
    const at = meta.embed ? meta.start : Math.max(0, meta.valueStart - 2);
    links.push({ ...splitWikiLink(meta.value, meta.alias), line, column: rawColumn(src, at, lines[line - 1] ?? ''), embed: meta.embed });
  }
}

/**
 * A stretch of plain text as remark read it, from the file: a line after the first keeps its container
 * prefix, so `>#word` on a quote's second line is not a tag. Only lines that start with `#` can differ.
 */
function textSource(src: string, start: number, end: number, first: number, lines: readonly string[]): string {
  const text = src.slice(start, end);
  if (!/\n[ \t]*#/u.test(text)) return text;
  const parts = text.split('\n');
  let line = first + lineIndex(src, start);
  let at = start + parts[0]!.length + 1;
  for (let i = 1; i < parts.length; i++) {
    line++;
    const part = parts[i]!;
    if (part.trimStart().startsWith('#')) {
      const lineEnd = src.indexOf('\n', at);
      const sourceLine = src.slice(at, lineEnd < 0 ? src.length : lineEnd).trim();
      const raw = lines[line - 1] ?? '';
      const found = raw.lastIndexOf(sourceLine);
      if (found >= 0) parts[i] = raw.slice(0, found) + part.trimStart();
    }
    at += part.length + 1;
  }
  return parts.join('\n');
}

/** Which line of an inline source `offset` is on (0-based). */
function lineIndex(src: string, offset: number): number {
  let count = 0;
  for (let at = src.indexOf('\n'); at >= 0 && at < offset; at = src.indexOf('\n', at + 1)) count++;
  return count;
}

/**
 * Where `offset` of an inline source falls in its raw file line. The parser's source line is the raw
 * line without its container prefix (indentation, `>`, list marker, `#`s) and, for a heading, without a
 * closing sequence; its trimmed text is found as the last occurrence in the raw line.
 */
function rawColumn(src: string, offset: number, raw: string): number {
  const lineStart = src.lastIndexOf('\n', offset - 1) + 1;
  const lineEnd = src.indexOf('\n', offset);
  const sourceLine = src.slice(lineStart, lineEnd < 0 ? src.length : lineEnd);
  const lead = sourceLine.length - sourceLine.trimStart().length;
  const at = raw.lastIndexOf(sourceLine.trim());
  return at < 0 ? offset - lineStart : at + (offset - lineStart - lead);
}

/** The text a heading shows: text and code as written, a wikilink by its alias or target; not images or HTML. */
function headingText(children: readonly Token[]): string {
  let out = '';
  for (const child of children) {
    if (child.type === 'text' || child.type === 'text_special' || child.type === 'code_inline') out += child.content;
    else if (child.type === 'softbreak') out += '\n';
    else if (child.type === 'hardbreak') out += ' ';
    else if (child.type === WIKILINK_TOKEN) {
      const meta = child.meta as unknown as WikiLinkMeta;
      out += meta.alias ?? meta.value;
    }
  }
  return out.replace(/\s+/gu, ' ');
}

function createParser(): Parser {
  // CommonMark as micromark reads it: no nesting cap (budget.ts keeps pages that nest too deeply away),
  // every link destination accepted (nothing here is rendered), reference definitions kept as blocks.
  const md = new MarkdownIt('commonmark', { maxNesting: Number.MAX_SAFE_INTEGER });
  usePlainFields(md);
  md.validateLink = () => true;
  // Nothing is rendered and the outline reads no link destination (an autolink's text is taken from the
  // source), so destinations are not percent-encoded or punycoded: that was a tenth of a page's parse.
  md.normalizeLink = (url) => url;
  md.normalizeLinkText = (text) => text;
  md.core.ruler.disable('strip_references');
  // Only a heading's text reads text tokens, and it reads an escape's (text_special) as text: joining them is not needed.
  md.core.ruler.disable('text_join');
  md.inline.ruler.before('link', 'wikilink', wikiLinkRule);
  md.core.ruler.at('inline', inlineWhereRead);
  md.helpers = { ...md.helpers, parseLinkLabel };
  lazyContinuation(md);

  // Spans of the rules that matched, recorded by a tokenizer that is markdown-it's own plus the record.
  // The record lives on the state (a WeakMap and a WeakSet cost the garbage collector more).
  class RecordingState extends md.inline.State {
    spans: Span[] = [];
    /** Text tokens made of pending text, in order; the rule that flushed them did not make them. */
    flushed: Token[] = [];
    override pushPending(): Token {
      const token = super.pushPending();
      this.flushed.push(token);
      return token;
    }
  }
  md.inline.State = RecordingState;
  md.inline.tokenize = function tokenize(this: ParserInline, inlineState: StateInline): void {
    const state = inlineState as RecordingState;
    const rules = this.ruler.getRules('');
    const end = state.posMax;
    while (state.pos < end) {
      const start = state.pos;
      const before = state.tokens.length;
      const flushedBefore = state.flushed.length;
      let ok = false;
      for (const rule of rules) {
        ok = rule(state, false);
        if (ok) break;
      }
      if (ok) {
        if (start >= state.pos) throw new Error("inline rule didn't increment state.pos");
        // A rule that made no token (plain text, most of them) leaves nothing for inlineFacts to read.
        if (state.tokens.length > before) {
          let tokens = state.tokens.slice(before);
          if (state.flushed.length > flushedBefore) {
            const flushed = state.flushed.slice(flushedBefore);
            tokens = tokens.filter((token) => !flushed.includes(token));
          }
          state.spans.push({ start, end: state.pos, tokens });
        }
        if (state.pos >= end) break;
        continue;
      }
      state.pending += state.src[state.pos++];
    }
    if (state.pending) state.pushPending();
  };
  // After emphasis is resolved (a delimiter is then markup or text) and before text fragments are joined.
  md.inline.ruler2.before('fragments_join', 'outline_facts', (state) => {
    const facts = (state.env as { facts?: Facts }).facts;
    if (facts !== undefined) facts.set(state.tokens, inlineFacts(state, (state as RecordingState).spans));
  });
  return md;
}

/**
 * What the outline reads of an inline run, each by what it needs: a wikilink or an embed (`[[`), a tag (`#`;
 * links and code matter then, as places where a tag is not), inline HTML (`<`). A heading's run is read for
 * its text as well.
 */
const READ_RE = /\[\[|[#<]/u;

/**
 * markdown-it's core `inline` rule (each inline run parsed into its children), for the runs the outline reads:
 * a run without a heading and without READ_RE's marks leaves no wikilink, tag, HTML or heading text, so
 * its tokens were made and dropped (most paragraphs: a cold build's inline parsing was ~40% of markdown-it's time).
 */
function inlineWhereRead(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.type !== 'inline') continue;
    if (tokens[i - 1]?.type !== 'heading_open') {
      if (READ_RE.test(token.content)) state.md.inline.parse(token.content, state.md, state.env, token.children!);
    } else if (PLAIN_HEADING_RE.test(token.content)) {
      // What the parse makes of it: one text token, its text as written.
      const text = new state.Token('text', '', 0);
      text.content = token.content;
      token.children!.push(text);
    } else {
      state.md.inline.parse(token.content, state.md, state.env, token.children!);
    }
  }
}

/**
 * A heading's text with no character an inline rule of the CommonMark preset (or the wikilink rule) acts on,
 * nor a line break or a tag's `#`: markdown-it would make it one text token (a quarter of Dendron's inline runs
 * are such headings).
 */
const PLAIN_HEADING_RE = /^[^\\`*_[\]<>&!~#\n]+$/u;

/**
 * The stretches of plain text of an inline run, where the remark outline read tags: its text nodes, whose
 * source shows an escaped \#word as not a tag, and which start right after code, emphasis or a link; never
 * inside a link or an image. And where inline HTML starts (remark made it a node with a block's type).
 */
function inlineFacts(state: StateInline, spans: readonly Span[]): InlineFacts {
  const src = state.src;
  // Its stretches of text are only searched for tags, and a run without `#` has none.
  const markup = src.includes('#') ? new Uint8Array(src.length) : undefined;
  const html: number[] = [];
  for (const span of spans) {
    if (span.tokens.length === 0) continue;
    for (const token of span.tokens) if (token.type === 'html_inline') html.push(span.start);
    // An emphasis run makes one token per marker character, each either markup or left as text.
    if (span.tokens.length === span.end - span.start && span.tokens.every(isDelimiter)) {
      if (markup !== undefined) {
        span.tokens.forEach((token, i) => {
          if (!isText(token)) markup[span.start + i] = 1;
        });
      }
    } else if (!span.tokens.every(isText)) {
      markup?.fill(1, span.start, span.end);
      if (span.tokens[0]?.type === 'link_open' && span.tokens[0].markup === 'autolink') {
        // An autolink shows its address as written (markdown-it would show it decoded).
        const text = span.tokens.find((token) => token.type === 'text');
        if (text !== undefined) text.content = src.slice(span.start + 1, span.end - 1);
      }
    }
  }
  const texts: number[] = [];
  if (markup === undefined) return { texts, html };
  // The runs of unmarked characters.
  for (let at = 0; at < src.length; ) {
    const marked = markup.indexOf(1, at);
    const end = marked < 0 ? src.length : marked;
    if (end > at) texts.push(at, end);
    if (marked < 0) break;
    const unmarked = markup.indexOf(0, marked);
    if (unmarked < 0) break;
    at = unmarked;
  }
  return { texts, html };
}

/**
 * A line indented four or more columns past the innermost container it still belongs to cannot start a
 * block there (it would be indented code, which cannot interrupt a paragraph), so it continues the open
 * paragraph lazily, as CommonMark and micromark have it. markdown-it measures from the innermost list
 * item instead and lets such a line (`    1. item` under a deeper list) end the paragraph.
 */
function lazyContinuation(md: Parser): void {
  const indents = new WeakMap<StateBlock, number[]>();
  const tokenize = md.block.tokenize.bind(md.block);
  md.block.tokenize = (state, startLine, endLine) => {
    let stack = indents.get(state);
    if (stack === undefined) indents.set(state, (stack = []));
    stack.push(state.blkIndent);
    try {
      tokenize(state, startLine, endLine);
    } finally {
      stack.pop();
    }
  };
  const lazy = (state: StateBlock, line: number): boolean => {
    const column = state.sCount[line]!;
    if (column >= state.blkIndent) return false;
    let container = 0;
    for (const indent of indents.get(state) ?? []) {
      if (indent > column) break;
      container = indent;
    }
    return column - container >= 4;
  };
  for (const rule of md.block.ruler.__rules__) {
    if (!rule.alt.includes('paragraph')) continue;
    const original = rule.fn;
    md.block.ruler.at(rule.name, (state, startLine, endLine, silent) => !(silent && state.parentType === 'paragraph' && lazy(state, startLine)) && original(state, startLine, endLine, silent), { alt: rule.alt });
  }
}

/**
 * markdown-it's own, except that a wikilink in a link's label is one unit, as in micromark, not a nested
 * link that voids the outer one.
 */
function parseLinkLabel(state: StateInline, start: number, disableNested?: boolean): number {
  const max = state.posMax;
  const oldPos = state.pos;
  let level = 1;
  let found = false;
  state.pos = start + 1;
  while (state.pos < max) {
    const marker = state.src.charCodeAt(state.pos);
    if (marker === 0x5d && --level === 0) {
      found = true;
      break;
    }
    const prevPos = state.pos;
    if (marker === 0x5b && wikiLinkRule(state, true)) continue;
    state.md.inline.skipToken(state);
    if (marker !== 0x5b) continue;
    if (prevPos === state.pos - 1) level++;
    else if (disableNested) {
      state.pos = oldPos;
      return -1;
    }
  }
  const labelEnd = found ? state.pos : -1;
  state.pos = oldPos;
  return labelEnd;
}

const EMPHASIS_TYPES = new Set(['text', 'em_open', 'em_close', 'strong_open', 'strong_close']);

function isDelimiter(token: Token): boolean {
  return EMPHASIS_TYPES.has(token.type);
}

/** A token that stands for plain text in the source: text (a delimiter left unused), an escape or entity, a soft line break. */
function isText(token: Token): boolean {
  return (token.type === 'text' && token.content !== '') || token.type === 'text_special' || token.type === 'softbreak';
}
