import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parsePage, type ParsedPage } from '../../src/pages/parse.js';
import { plainOutline } from '../../src/pages/plain.js';

const utf8 = new TextDecoder('utf-8', { fatal: false });

function fileLines(content: string | Uint8Array): string[] {
  const text = (typeof content === 'string' ? content : utf8.decode(content)).replace(/^\uFEFF/u, '');
  const lines = text === '' ? [] : text.split(/\r\n|\r|\n/u);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

/** What every parse must give, whatever the input: bounded chunks that are exact, ordered slices covering every non-blank body line. */
function expectWellFormed(content: string | Uint8Array, page: ParsedPage, max: number): void {
  const lines = fileLines(content);
  const covered = new Set<number>();
  let previousEnd = 0;
  for (const chunk of page.chunks) {
    expect(chunk.text.length).toBeLessThanOrEqual(max);
    expect(chunk.text.trim()).not.toBe('');
    expect(chunk.startLine).toBeGreaterThan(page.frontmatterLines);
    expect(chunk.startLine).toBeGreaterThanOrEqual(previousEnd);
    expect(chunk.endLine).toBeGreaterThanOrEqual(chunk.startLine);
    expect(chunk.endLine).toBeLessThanOrEqual(lines.length);
    expect(chunk.heading).toBe(chunk.headingPath.at(-1) ?? null);
    const slice = lines.slice(chunk.startLine - 1, chunk.endLine).join('\n');
    if (chunk.text !== slice) {
      // Only a single line too long for a chunk is cut within itself.
      expect(chunk.startLine).toBe(chunk.endLine);
      expect(slice.length).toBeGreaterThan(max);
      expect(slice).toContain(chunk.text);
    }
    for (let line = chunk.startLine; line <= chunk.endLine; line++) covered.add(line);
    previousEnd = chunk.endLine;
  }
  lines.forEach((line, index) => {
    if (index >= page.frontmatterLines && line.trim() !== '') expect(covered.has(index + 1)).toBe(true);
  });
  for (const link of page.links) expect(link.line).toBeGreaterThan(page.frontmatterLines);
  expect(typeof page.title).toBe('string');
}

/** Pieces of markdown, wikilinks, frontmatter and line endings, so random pages hit the parser's edge cases. */
const TOKENS = [
  '\n', '\n', '\n\n', '\r\n', '\r', ' ', '\t', '\uFEFF', '\u0000', '\uD800', '😀', 'é',
  '---', '---\n', '...', '# ', '## ', '###### ', '####### ', '=====', '- ', '* ', '1. ', '> ', '>>> ', '    ',
  '```', '~~~', '`', '[[', ']]', '[', ']', '(', ')', '|', '!', '![[', '#', '#tag ', '^', '^f-7k2m9q0a1b',
  '[[2026-06-09#^f-7k2m9q0a1b]]', '[[Note#Heading|alias]]', '![[img.png|100]]', '[[a\\|b]]', '[[#^block]]',
  'title: x', 'tags: [a, b]', 'key: [unclosed', '<div>', '</div>', '<!--', '-->', '*', '_', '**', '\\',
  '&amp;', '&#35;', 'word', 'Some words here.', ':: ', '[^1]', '[^1]: note', '| a | b |', '|---|---|',
];
const markdownish = fc.array(fc.constantFrom(...TOKENS), { maxLength: 300 }).map((parts) => parts.join(''));
const maxChunk = fc.integer({ min: 2, max: 400 });

describe('parsePage never throws and keeps its invariants', () => {
  test('on random strings of any code units', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 2000 }), maxChunk, (content, max) => {
        expectWellFormed(content, parsePage('p.md', content, { maxChunkChars: max }), max);
      }),
      { numRuns: 300 },
    );
  });

  test('on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4000 }), maxChunk, (bytes, max) => {
        expectWellFormed(bytes, parsePage('p.md', bytes, { maxChunkChars: max }), max);
      }),
      { numRuns: 300 },
    );
  });

  test('on random markdown, with and without frontmatter', () => {
    fc.assert(
      fc.property(fc.boolean(), markdownish, maxChunk, (front, body, max) => {
        const content = front ? `---\ntitle: T\ntags: [a]\n---\n${body}` : body;
        expectWellFormed(content, parsePage('p.md', content, { maxChunkChars: max }), max);
      }),
      { numRuns: 500 },
    );
  });

  test('the plain reading agrees on the invariants when used for the same input', () => {
    fc.assert(
      fc.property(markdownish, (body) => {
        const lines = fileLines(body);
        const outline = plainOutline(lines);
        for (const heading of outline.headings) expect(lines[heading.line - 1]).toMatch(/^ {0,3}#/u);
        for (const link of outline.links) expect(lines[link.line - 1]!.slice(link.column)).toMatch(/^!?\[\[/u);
      }),
      { numRuns: 300 },
    );
  });

  test('odd options fall back to a sane bound', () => {
    const content = 'a b c d e f g\n\nh i j';
    for (const max of [0, -5, 1, Number.NaN, 2.7]) {
      const page = parsePage('p.md', content, { maxChunkChars: max });
      expect(page.chunks.map((c) => c.text).join('')).toContain('a');
    }
    expect(parsePage('p.md', content, { maxChunkChars: Infinity }).chunks).toHaveLength(1);
  });
});
