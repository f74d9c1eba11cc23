import { describe, expect, test } from 'vitest';
import { parsePage, type ParsedPage } from '../../src/pages/parse.js';

/** The file's lines as a person sees them (what chunk line ranges point at). */
function fileLines(content: string): string[] {
  const lines = content.replace(/^\uFEFF/u, '').split(/\r\n|\r|\n/u);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

/** Every chunk's text is exactly the file's lines startLine..endLine. */
function expectExactSlices(content: string, page: ParsedPage): void {
  const lines = fileLines(content);
  for (const chunk of page.chunks) {
    expect(chunk.text).toBe(lines.slice(chunk.startLine - 1, chunk.endLine).join('\n'));
  }
}

const outline = (page: ParsedPage) => page.chunks.map((c) => ({ path: c.headingPath, heading: c.heading, lines: [c.startLine, c.endLine] }));

const COFFEE = `Intro before any heading.

# Coffee

Dark roast.

## History

Brewed since the 15th century.

### Ethiopia

Where it began.

## Empty section
## Brewing

Pour over.
`;

describe('sections and heading paths', () => {
  test('split at every heading level, with the path of enclosing headings and file line ranges', () => {
    const page = parsePage('2_Areas/Coffee.md', COFFEE);
    expect(outline(page)).toEqual([
      { path: [], heading: null, lines: [1, 1] },
      { path: ['Coffee'], heading: 'Coffee', lines: [3, 5] },
      { path: ['Coffee', 'History'], heading: 'History', lines: [7, 9] },
      { path: ['Coffee', 'History', 'Ethiopia'], heading: 'Ethiopia', lines: [11, 13] },
      { path: ['Coffee', 'Empty section'], heading: 'Empty section', lines: [15, 15] },
      { path: ['Coffee', 'Brewing'], heading: 'Brewing', lines: [16, 18] },
    ]);
    expect(page.chunks[4]!.text).toBe('## Empty section');
    expect(page.title).toBe('Coffee');
    expect(page.frontmatterLines).toBe(0);
    expectExactSlices(COFFEE, page);
  });

  test('frontmatter lines count in the line numbers', () => {
    const content = `---\ntitle: Coffee notes\ntags: [drinks]\n---\n${COFFEE}`;
    const page = parsePage('2_Areas/Coffee.md', content);
    expect(page.frontmatterLines).toBe(4);
    expect(page.title).toBe('Coffee notes');
    expect(outline(page).map((c) => c.lines)).toEqual([
      [5, 5],
      [7, 9],
      [11, 13],
      [15, 17],
      [19, 19],
      [20, 22],
    ]);
    expectExactSlices(content, page);
  });

  test('a page of only frontmatter has no chunks; its title comes from the frontmatter', () => {
    const page = parsePage('a.md', '---\ntitle: Stub\n---\n');
    expect(page.chunks).toEqual([]);
    expect(page.title).toBe('Stub');
  });

  test('the title falls back to the first H1, then to the file name', () => {
    expect(parsePage('x/y.md', '## Sub\n\n# Main\n').title).toBe('Main');
    expect(parsePage('3_Personal/My Coffee Notes.md', 'text only\n').title).toBe('My Coffee Notes');
    expect(parsePage('a/b.md', '').chunks).toEqual([]);
  });

  test('setext headings, closing #s, formatting and links in heading text', () => {
    const content = 'Title\n=====\n\nbody\n\nSub *part*\n---\n\n## Closed ##\n\n### See [[Beans|the beans]] and `code`\n';
    const page = parsePage('a.md', content);
    expect(outline(page)).toEqual([
      { path: ['Title'], heading: 'Title', lines: [1, 4] },
      { path: ['Title', 'Sub part'], heading: 'Sub part', lines: [6, 7] },
      { path: ['Title', 'Closed'], heading: 'Closed', lines: [9, 9] },
      { path: ['Title', 'Closed', 'See the beans and code'], heading: 'See the beans and code', lines: [11, 11] },
    ]);
    expectExactSlices(content, page);
  });

  test('a # line inside fenced code or a quote is not a section heading', () => {
    const content = '# Real\n\n```sh\n# a comment\n```\n\n> # quoted\n';
    const page = parsePage('a.md', content);
    expect(outline(page)).toEqual([{ path: ['Real'], heading: 'Real', lines: [1, 7] }]);
  });

  test('a shallower heading after a deeper one pops the path back', () => {
    const page = parsePage('a.md', '### Deep\n\n# Top\n\n## Mid\n');
    expect(page.chunks.map((c) => c.headingPath)).toEqual([['Deep'], ['Top'], ['Top', 'Mid']]);
  });
});

describe('line endings and encodings', () => {
  test('CRLF and a BOM give the same chunks, line numbers and texts as LF', () => {
    const lf = `---\ntitle: T\n---\n${COFFEE}`;
    const crlf = `\uFEFF${lf.replaceAll('\n', '\r\n')}`;
    const a = parsePage('a.md', lf);
    const b = parsePage('a.md', crlf);
    expect(b.chunks).toEqual(a.chunks);
    expect(b.frontmatter).toEqual(a.frontmatter);
    expect(b.chunks.some((c) => c.text.includes('\r'))).toBe(false);
    expectExactSlices(crlf, b);
  });

  test('lone CR line endings count as line breaks', () => {
    const content = '# A\r\rtext\r# B\r';
    expect(outline(parsePage('a.md', content))).toEqual([
      { path: ['A'], heading: 'A', lines: [1, 3] },
      { path: ['B'], heading: 'B', lines: [4, 4] },
    ]);
  });

  test('bytes: UTF-8 with a BOM is decoded, invalid sequences become U+FFFD', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('# Café\n\nbad '), 0xff, 0xfe, ...Buffer.from(' byte\n')]);
    const page = parsePage('a.md', bytes);
    expect(page.title).toBe('Café');
    expect(page.chunks[0]!.text).toBe('# Café\n\nbad \uFFFD\uFFFD byte');
  });
});

describe('citations and links', () => {
  const content = [
    '# Facts', // 1
    '', // 2
    'Prefers dark roast [[2026-06-09#^f-7k2m9q0a1b]] and [[2026-06-09#^f-7k2m9q0a1b|again]].', // 3
    'Embedded ![[2026-06-10#^f-a81x0c2d3e]], by path [[logs/2026-06-11#^f-0000000000]].', // 4
    'Not citations: [[#^f-7k2m9q0a1b]] [[Coffee#^f-1111111111]] [[2026-06-09#^f-BADID]] [[2026-06-09#History]].', // 5
    '`[[2026-06-12#^f-2222222222]]` in code is not a link.', // 6
    '', // 7
    '## Links', // 8
    '', // 9
    '[[Beans]] [[Beans#Roast|roast]] [[Grinders#^b1]] [[folder/Deep Note]] ![[photo.png|200]] ![[Other page]] [[Beans]]', // 10
    '', // 11
    '| a | b |', // 12
    '| - | - |', // 13
    '| [[Table Link\\|shown]] | x |', // 14
    '', // 15
    '```', // 16
    '[[In Code]]', // 17
    '```', // 18
  ].join('\n');
  const page = parsePage('p.md', content);

  test('a chunk cites the fact ids of its dated block links, unique, in order', () => {
    expect(page.chunks[0]!.citations).toEqual(['f-7k2m9q0a1b', 'f-a81x0c2d3e', 'f-0000000000']);
    expect(page.chunks[1]!.citations).toEqual([]);
  });

  test('chunk links are the targets without heading, block or alias, unique', () => {
    expect(page.chunks[0]!.links).toEqual(['2026-06-09', '2026-06-10', 'logs/2026-06-11', 'Coffee']);
    expect(page.chunks[1]!.links).toEqual(['Beans', 'Grinders', 'folder/Deep Note', 'photo.png', 'Other page', 'Table Link']);
  });

  test('page links keep heading, block, alias, embed and line', () => {
    expect(page.links.filter((l) => l.line === 10)).toEqual([
      { target: 'Beans', line: 10, embed: false },
      { target: 'Beans', heading: 'Roast', alias: 'roast', line: 10, embed: false },
      { target: 'Grinders', block: 'b1', line: 10, embed: false },
      { target: 'folder/Deep Note', line: 10, embed: false },
      { target: 'photo.png', line: 10, embed: true },
      { target: 'Other page', line: 10, embed: true },
      { target: 'Beans', line: 10, embed: false },
    ]);
    expect(page.links.find((l) => l.line === 5)).toEqual({ target: '', block: 'f-7k2m9q0a1b', line: 5, embed: false });
    expect(page.links.find((l) => l.line === 14)).toEqual({ target: 'Table Link', alias: 'shown', line: 14, embed: false });
    expect(page.links.some((l) => l.target === 'In Code' || l.target === '2026-06-12')).toBe(false);
  });
});

describe('tags and aliases', () => {
  test('frontmatter tags in any shape, then inline tags, unique', () => {
    const content = [
      '---',
      'tags: "#coffee, drinks morning"',
      'tag: [extra, "#coffee"]',
      'aliases: [Joe, Java]',
      '---',
      '# Coffee #heading-tag',
      '',
      'Body #inline and #nested/tag, #drinks again; not #123, not a\\#escaped, not x#y.',
      'In a link [[Beans#Roast]] and `#code` and [#label](http://x/#anchor) are not tags.',
      '*#emphasised* counts.',
      '',
      '```',
      '#fenced',
      '```',
    ].join('\n');
    const page = parsePage('a.md', content);
    expect(page.frontmatter.tags).toEqual(['coffee', 'drinks', 'morning', 'extra']);
    expect(page.tags).toEqual(['coffee', 'drinks', 'morning', 'extra', 'heading-tag', 'inline', 'nested/tag', 'emphasised']);
    expect(page.aliases).toEqual(['Joe', 'Java']);
  });

  test('aliases as a string are split at commas only', () => {
    expect(parsePage('a.md', '---\naliases: Coffee Beans, Joe\n---\n').aliases).toEqual(['Coffee Beans', 'Joe']);
    expect(parsePage('a.md', '---\nalias: Single Name\n---\n').aliases).toEqual(['Single Name']);
  });
});

describe('frontmatter that does not parse', () => {
  test('is reported with its line, and the whole text is indexed from line 1', () => {
    const content = '---\ntitle: Coffee\ntags: [unclosed\n---\n# Coffee\n\nDark roast [[2026-06-09#^f-7k2m9q0a1b]].\n';
    const page = parsePage('2_Areas/Coffee.md', content);
    expect(page.frontmatterError).toMatch(/line 3/u);
    expect(page.frontmatterLines).toBe(0);
    expect(page.frontmatter).toEqual({ tags: [], aliases: [], raw: {} });
    expect(page.chunks[0]!.startLine).toBe(1);
    expect(page.chunks.map((c) => c.text).join('\n')).toContain('title: Coffee');
    expect(page.chunks.flatMap((c) => c.citations)).toEqual(['f-7k2m9q0a1b']);
    expectExactSlices(content, page);
  });

  test('an unclosed block is reported and read as text', () => {
    const page = parsePage('a.md', '---\ntitle: x\n\nbody text\n');
    expect(page.frontmatterError).toMatch(/never closed/u);
    expect(page.chunks.map((c) => c.text).join('\n')).toContain('body text');
  });
});

describe('chunk size', () => {
  const para = (n: number) => `Paragraph ${n} ${'lorem ipsum dolor '.repeat(5)}`.trim();

  /** Checks the bound, exact slices, order, and that every non-blank line is in some chunk. */
  function expectBoundedCover(content: string, page: ParsedPage, max: number): void {
    const lines = fileLines(content);
    const covered = new Set<number>();
    let previousEnd = 0;
    for (const chunk of page.chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(max);
      expect(chunk.startLine).toBeGreaterThanOrEqual(previousEnd);
      previousEnd = chunk.endLine;
      if (chunk.startLine === chunk.endLine && chunk.text !== lines[chunk.startLine - 1]) {
        expect(lines[chunk.startLine - 1]).toContain(chunk.text);
      } else {
        expect(chunk.text).toBe(lines.slice(chunk.startLine - 1, chunk.endLine).join('\n'));
      }
      for (let line = chunk.startLine; line <= chunk.endLine; line++) covered.add(line);
    }
    lines.forEach((line, index) => {
      if (line.trim() !== '' && index >= page.frontmatterLines) expect(covered.has(index + 1)).toBe(true);
    });
  }

  test('an oversized section splits between paragraphs, packing small ones together', () => {
    const content = `# Big\n\n${Array.from({ length: 20 }, (_, i) => para(i)).join('\n\n')}\n`;
    const page = parsePage('a.md', content, { maxChunkChars: 300 });
    expect(page.chunks.length).toBeGreaterThan(3);
    expect(page.chunks.every((c) => c.heading === 'Big' && c.headingPath.join('/') === 'Big')).toBe(true);
    expect(page.chunks[0]!.text.startsWith('# Big')).toBe(true);
    // Each chunk starts at a paragraph and holds as many whole paragraphs as fit.
    expect(page.chunks.slice(1).every((c) => c.text.startsWith('Paragraph'))).toBe(true);
    expect(page.chunks.some((c) => c.text.split('\n\n').length > 1)).toBe(true);
    expectBoundedCover(content, page, 300);
  });

  test('a long list splits between items, a long code block between lines', () => {
    const list = Array.from({ length: 40 }, (_, i) => `- item ${i} with [[Link ${i}]]`).join('\n');
    const code = ['```js', ...Array.from({ length: 40 }, (_, i) => `const value${i} = compute(${i});`), '```'].join('\n');
    const content = `# List\n\n${list}\n\n# Code\n\n${code}\n`;
    const page = parsePage('a.md', content, { maxChunkChars: 200 });
    const listChunks = page.chunks.filter((c) => c.heading === 'List');
    expect(listChunks.length).toBeGreaterThan(2);
    expect(listChunks.slice(1).every((c) => c.text.startsWith('- item'))).toBe(true);
    expect(listChunks.flatMap((c) => c.links)).toEqual(Array.from({ length: 40 }, (_, i) => `Link ${i}`));
    expect(page.chunks.filter((c) => c.heading === 'Code').length).toBeGreaterThan(2);
    expectBoundedCover(content, page, 200);
  });

  test('a single huge line is cut into pieces of about equal size, at sentence ends or spaces', () => {
    const sentence = 'The quick brown fox jumps over the lazy dog. ';
    const line = sentence.repeat(100).trim();
    const content = `# Long\n\n${line}\nafter\n`;
    const page = parsePage('a.md', content, { maxChunkChars: 1000 });
    const pieces = page.chunks.filter((c) => c.startLine === 3);
    expect(pieces.length).toBe(5);
    expect(pieces.map((c) => c.text).join('')).toBe(line);
    for (const piece of pieces.slice(0, -1)) expect(piece.text.endsWith('. ')).toBe(true);
    expect(Math.min(...pieces.map((c) => c.text.length))).toBeGreaterThan(700);
    expectBoundedCover(content, page, 1000);
  });

  test('a huge line without spaces is hard-split, keeping surrogate pairs whole', () => {
    const line = `${'x'.repeat(9)}${'😀'.repeat(20)}`;
    const page = parsePage('a.md', line, { maxChunkChars: 10 });
    expect(page.chunks.map((c) => c.text).join('')).toBe(line);
    for (const chunk of page.chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(10);
      expect(chunk.text.isWellFormed()).toBe(true);
    }
  });

  test('links and citations go with the piece of a split line that holds them', () => {
    const line = `${'a '.repeat(30)}[[2026-06-09#^f-7k2m9q0a1b]] ${'b '.repeat(30)}[[Other]]`;
    const page = parsePage('a.md', line, { maxChunkChars: 60 });
    expect(page.chunks.flatMap((c) => c.citations)).toEqual(['f-7k2m9q0a1b']);
    expect(page.chunks.filter((c) => c.links.length > 0).length).toBe(2);
  });

  test('the default bound is 1500 characters', () => {
    const content = Array.from({ length: 100 }, (_, i) => para(i)).join('\n\n');
    const page = parsePage('a.md', content);
    expect(Math.max(...page.chunks.map((c) => c.text.length))).toBeLessThanOrEqual(1500);
    expect(Math.max(...page.chunks.map((c) => c.text.length))).toBeGreaterThan(1200);
    expectBoundedCover(content, page, 1500);
  });
});

describe('pages the parser should not be trusted with', () => {
  test('are read as plain lines, with the reason, the same headings and links, quickly', () => {
    const dense = '[['.repeat(50_000);
    const content = `# Title\n\nSee [[Beans#Roast|roast]] #tag\n\n## Junk\n\n${dense}\n\n\`\`\`\n# not a heading [[No]]\n\`\`\`\n`;
    const started = performance.now();
    const page = parsePage('a.md', content);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(page.plainTextReason).toMatch(/brackets/u);
    expect(page.parserError).toBeUndefined();
    expect(page.chunks.map((c) => c.heading)).toContain('Junk');
    expect(page.chunks[0]).toMatchObject({ headingPath: ['Title'], startLine: 1, endLine: 3, links: ['Beans'] });
    expect(page.links).toEqual([{ target: 'Beans', heading: 'Roast', alias: 'roast', line: 3, embed: false }]);
    expect(page.tags).toEqual(['tag']);
    expect(page.title).toBe('Title');
  });

  test('an ordinary long page is still read as markdown', () => {
    const section = (i: number) =>
      `## Part ${i}\n\nSome *prose* with a [[Link ${i}]], a #tag and \`code\`.\n\n- item [[A]]\n  - nested _item_\n> a quote\n\n\`\`\`\n  indented code\n\`\`\`\n`;
    const content = `# Big page\n\n${Array.from({ length: 400 }, (_, i) => section(i)).join('\n')}`;
    const page = parsePage('a.md', content);
    expect(page.plainTextReason).toBeUndefined();
    expect(page.chunks.length).toBe(401);
  });

  test.each([
    ['emphasis runs', '*a_'.repeat(30_000)],
    ['deep quotes', `${'>'.repeat(50_000)} a`],
    ['deep lists', Array.from({ length: 1_000 }, (_, i) => `${' '.repeat(i * 2)}- a`).join('\n')],
    ['a million blank lines', '\n'.repeat(1_000_000)],
    ['a huge line', 'word '.repeat(200_000)],
    ['many headings', '# h\n'.repeat(100_000)],
  ])('%s take seconds at most', (_name, content) => {
    const started = performance.now();
    const page = parsePage('a.md', content);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(page.plainTextReason).toBeDefined();
  });
});
