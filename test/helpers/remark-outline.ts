/**
 * The page outline as the index read it up to 0.1, from the remark syntax tree (remark-parse with Obsidian
 * wikilinks). Kept for the differential test only: src/pages/outline.ts reads the same outline from
 * markdown-it's token stream, several times faster, and must agree with this one on every page.
 */
import remarkWikiLink from '@flowershow/remark-wiki-link';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import type { LinkOccurrence, Outline, OutlineHeading } from '../../src/pages/outline.js';
import { inlineTags } from '../../src/pages/tags.js';
import { splitWikiLink } from '../../src/pages/wikilink.js';

/** A node of the syntax tree, as far as the outline reads it (wikiLink and embed come from the plugin). */
interface Node {
  type: string;
  value?: string;
  depth?: number;
  children?: Node[];
  data?: { alias?: string };
  position?: { start: Point; end: Point };
}
interface Point {
  line: number;
  column: number;
  offset?: number;
}

// Frozen, so it holds no state between calls.
const processor = unified().use(remarkParse).use(remarkWikiLink, { aliasDivider: '|' }).freeze();

const BLOCK_TYPES = new Set([
  'blockquote',
  'code',
  'definition',
  'footnoteDefinition',
  'heading',
  'html',
  'list',
  'listItem',
  'paragraph',
  'table',
  'thematicBreak',
]);
/** Inside these, `#word` is part of a link or code, not a tag. */
const NO_TAG_TYPES = new Set(['link', 'linkReference', 'image', 'imageReference']);

/**
 * Reads the outline of `text`, whose line N is line N of the file (lines before the body, like
 * frontmatter, are passed blank). May throw on input the parser cannot handle; parsePage falls back.
 */
export function remarkOutline(text: string): Outline {
  const root = processor.parse(text) as Node;
  const lineStarts = lineOffsets(text);
  const headings: OutlineHeading[] = [];
  const topLevel: number[] = [];
  const nested = new Set<number>();
  const links: LinkOccurrence[] = [];
  const tags: string[] = [];

  for (const node of root.children ?? []) {
    const line = node.position?.start.line;
    if (line === undefined) continue;
    topLevel.push(line);
    if (node.type === 'heading') headings.push({ line, depth: node.depth ?? 1, text: plainText(node).trim() });
  }

  // Iterative, so a deeply nested page cannot overflow the stack.
  const stack: Array<{ node: Node; tags: boolean }> = [{ node: root, tags: true }];
  while (stack.length > 0) {
    const { node, tags: tagsAllowed } = stack.pop()!;
    const start = node.position?.start;
    if (start !== undefined && BLOCK_TYPES.has(node.type)) nested.add(start.line);
    if ((node.type === 'wikiLink' || node.type === 'embed') && start !== undefined && node.value !== undefined) {
      const column = start.offset === undefined ? 0 : start.offset - (lineStarts[start.line - 1] ?? 0);
      // The plugin's wikiLink position starts after the opening [[; the link starts at the brackets.
      const at = node.type === 'wikiLink' ? Math.max(0, column - 2) : column;
      links.push({ ...splitWikiLink(node.value, node.data?.alias), line: start.line, column: at, embed: node.type === 'embed' });
    } else if (node.type === 'text' && tagsAllowed && node.position?.start.offset !== undefined && node.position.end.offset !== undefined) {
      // The source, not the value: an escaped \#word is not a tag.
      for (const tag of inlineTags(text.slice(node.position.start.offset, node.position.end.offset))) tags.push(tag);
    }
    const children = node.children ?? [];
    const childTags = tagsAllowed && !NO_TAG_TYPES.has(node.type);
    for (let index = children.length - 1; index >= 0; index--) stack.push({ node: children[index]!, tags: childTags });
  }

  links.sort((a, b) => a.line - b.line || a.column - b.column);
  return { headings, blockStarts: [topLevel, [...nested].sort((a, b) => a - b)], links, tags };
}

/** The text a heading shows: text and code as written, a wikilink by its alias or target. */
function plainText(node: Node): string {
  let out = '';
  const stack: Node[] = [node];
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (current.type === 'text' || current.type === 'inlineCode') out += current.value ?? '';
    else if (current.type === 'wikiLink' || current.type === 'embed') out += current.data?.alias ?? current.value ?? '';
    else if (current.type === 'break') out += ' ';
    const children = current.children ?? [];
    for (let index = children.length - 1; index >= 0; index--) stack.push(children[index]!);
  }
  return out.replace(/\s+/gu, ' ');
}

function lineOffsets(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) starts.push(index + 1);
  return starts;
}
