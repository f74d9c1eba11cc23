/**
 * The fact-log parser (DESIGN §3) on random, hostile and hand-edited input: it never throws, reports
 * what it skipped with line numbers, and gives lines without `^id` stable, unique derived ids.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CATEGORIES, parseLog, type ParsedLog } from '../../src/logs/factlog.js';
import { FACT_ID_RE, factId } from '../../src/logs/ids.js';

const DATE = '2026-06-09';
const TAG_RE = /^[\p{L}\p{N}_/-]+$/u;

/** What must hold of any parse, whatever the input. */
function expectWellFormedResult(parsed: ParsedLog): void {
  expect(parsed.date).toBe(DATE);
  const factLines = parsed.facts.map((f) => f.line);
  const skippedLines = parsed.skipped.map((s) => s.line);
  for (const lines of [factLines, skippedLines]) {
    for (let i = 1; i < lines.length; i++) expect(lines[i]!).toBeGreaterThan(lines[i - 1]!);
    for (const line of lines) {
      expect(line).toBeGreaterThanOrEqual(1);
      expect(line).toBeLessThanOrEqual(parsed.lineCount);
    }
  }
  // A line is a fact or skipped, never both, except a fact whose repeated ^id was replaced (it is reported).
  const both = factLines.filter((l) => skippedLines.includes(l));
  for (const line of both) expect(parsed.skipped.find((s) => s.line === line)!.reason).toMatch(/^duplicate id/);
  const ids = parsed.facts.map((f) => f.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const fact of parsed.facts) {
    expect(CATEGORIES).toContain(fact.category);
    expect(fact.date).toBe(DATE);
    expect(fact.text).not.toBe('');
    expect(fact.text).toBe(fact.text.trim());
    expect(fact.text).not.toMatch(/[\r\n]/);
    expect(fact.id).toMatch(fact.explicitId ? /^[A-Za-z0-9-]+$/ : FACT_ID_RE);
    for (const tag of fact.tags) expect(tag).toMatch(TAG_RE);
  }
  for (const skip of parsed.skipped) {
    expect(skip.reason).not.toBe('');
    expect(skip.excerpt.length).toBeLessThanOrEqual(80);
  }
}

/** Pieces that mean something to the parser, mixed with arbitrary code points and lone surrogates. */
const logUnit = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '\n', '\r\n', '\r', '\t', ' ', '  ', '#', '# ', '## ', '##', '^', '[', ']', '- ', '* ', '+ ', '-', '·', ' · ',
      '[fact] ', '[preference] ', '[FACT] ', '[bogus] ', '[', '#tag', ' #a', '#123', '^f-0123456789', ' ^x', '^',
      `# ${DATE}`, '## 14:32 · cli', '## 09:05', '\uFEFF', '\u0000', '\u2028', '\u2029', '\u0085', '\uFFFD', '::',
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
);
const logText = fc.string({ unit: logUnit, maxLength: 300 });

/** Lines that look like a log, each of which may be damaged. */
const logLines = fc
  .array(
    fc.oneof(
      fc.constantFrom(`# ${DATE}`, '', '## 14:32 · cli', '## 14:33 · claude-code/3f9a1c', '## 7:5 · x'),
      fc.tuple(fc.constantFrom('- ', '* ', '+ ', '-', ''), fc.constantFrom('[fact] ', '[skill] ', '[nope] ', ''), logText, fc.constantFrom('', ' #a', ' #a #b/c', ' ^f-0123456789', ' #t ^abc')).map((parts) => parts.join('')),
      logText,
    ),
    { maxLength: 30 },
  )
  .chain((lines) => fc.constantFrom('\n', '\r\n', '\r').map((eol) => lines.join(eol)));

describe('parseLog never throws', () => {
  it('on random strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 500 }), logText, logLines), (content) => {
        expectWellFormedResult(parseLog(content, DATE));
      }),
      { numRuns: 1000 },
    );
  });

  it('on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => {
        expectWellFormedResult(parseLog(bytes, DATE));
      }),
      { numRuns: 1000 },
    );
  });

  it('on random bytes spliced into a real log', () => {
    const log = Buffer.from(`# ${DATE}\n\n## 14:32 · cli\n- [preference] Prefers dark roast coffee #coffee ^f-7k2m9q0a1b\n- [fact] home city:: Lisbon\n`);
    fc.assert(
      fc.property(fc.nat({ max: log.length }), fc.uint8Array({ maxLength: 64 }), (at, junk) => {
        const content = Buffer.concat([log.subarray(0, at), junk, log.subarray(at)]);
        expectWellFormedResult(parseLog(content, DATE));
      }),
      { numRuns: 500 },
    );
  });

  it('is deterministic, and a string parses like its UTF-8 bytes', () => {
    fc.assert(
      fc.property(logLines, (content) => {
        const first = parseLog(content, DATE);
        expect(parseLog(content, DATE)).toEqual(first);
        // Lone surrogates become U+FFFD on the way to bytes, and the parser sees the same.
        expect(parseLog(Buffer.from(content, 'utf8'), DATE)).toEqual(parseLog(content.toWellFormed(), DATE));
      }),
      { numRuns: 500 },
    );
  });
});

describe('parseLog on hostile input', () => {
  const lfLog = `# ${DATE}\n\n## 14:32 · cli\n- [preference] Prefers dark roast coffee #coffee ^f-7k2m9q0a1b\n- [fact] home city:: Lisbon #location\n`;

  it('reads CRLF and lone-CR line breaks like LF ones', () => {
    const lf = parseLog(lfLog, DATE);
    expect(lf.facts).toHaveLength(2);
    expect(lf.skipped).toEqual([]);
    expect(parseLog(lfLog.replaceAll('\n', '\r\n'), DATE)).toEqual(lf);
    expect(parseLog(lfLog.replaceAll('\n', '\r'), DATE)).toEqual(lf);
  });

  it('ignores byte-order marks at the start, as a string or as bytes', () => {
    const lf = parseLog(lfLog, DATE);
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(parseLog(`\uFEFF${lfLog}`, DATE)).toEqual(lf);
    expect(parseLog(Buffer.concat([bom, Buffer.from(lfLog)]), DATE)).toEqual(lf);
    // A tool that adds a BOM to a file that had one: string and bytes still read alike.
    expect(parseLog(`\uFEFF\uFEFF${lfLog}`, DATE)).toEqual(lf);
    expect(parseLog(Buffer.concat([bom, bom, Buffer.from(lfLog)]), DATE)).toEqual(lf);
  });

  it('reads a fact line holding invalid UTF-8 with replacement characters, and keeps the lines around it', () => {
    const content = Buffer.concat([
      Buffer.from(`# ${DATE}\n\n## 14:32 · cli\n- [fact] before ^f-0000000001\n- [fact] bad `),
      Buffer.from([0xff, 0xc3, 0x28, 0xe2, 0x82]),
      Buffer.from(' bytes\n- [fact] after ^f-0000000002\n'),
    ]);
    const parsed = parseLog(content, DATE);
    expectWellFormedResult(parsed);
    expect(parsed.skipped).toEqual([]);
    expect(parsed.facts.map((f) => f.line)).toEqual([4, 5, 6]);
    expect(parsed.facts[1]!.text).toMatch(/^bad \uFFFD+\( ?\uFFFD* bytes$/u);
    expect(parsed.facts.map((f) => f.id)).toContain('f-0000000002');
  });

  it('keeps a NUL inside a fact as text', () => {
    const parsed = parseLog(`## 10:00 · cli\n- [fact] a\u0000b ^f-0000000001\n`, DATE);
    expect(parsed.facts).toMatchObject([{ text: 'a\u0000b', id: 'f-0000000001', line: 2 }]);
  });

  it('reports a NUL-only or binary line as skipped rather than failing', () => {
    const parsed = parseLog(Buffer.from([0x00, 0x00, 0x0a, 0x01, 0x02, 0xff, 0x0a]), DATE);
    expect(parsed.facts).toEqual([]);
    expect(parsed.skipped.map((s) => s.line)).toEqual([1, 2]);
  });

  const MB = 1 << 20;
  it.each([
    ['plain text', 'a'.repeat(MB)],
    ["'#' junk", '#'.repeat(MB)],
    ["'^' junk", '^'.repeat(MB)],
    ["'[' junk", '['.repeat(MB)],
    ["a fact of '[' junk", `- [${'['.repeat(MB)}`],
    ["a fact of '#' junk", `- ${'#'.repeat(MB)}`],
    ['a fact of spaces', `- x${' '.repeat(MB)}y`],
    ['a fact of block ids', `- x ${'^a '.repeat(MB / 3)}`],
  ])('reads a 1 MB line of %s between two facts', (_name, line) => {
    const content = `## 10:00 · cli\n- [fact] first ^f-0000000001\n${line}\n- [fact] last ^f-0000000002\n`;
    const parsed = parseLog(content, DATE);
    expectWellFormedResult(parsed);
    expect(parsed.lineCount).toBe(4);
    expect(parsed.facts.filter((f) => f.line !== 3).map((f) => [f.line, f.id])).toEqual([
      [2, 'f-0000000001'],
      [4, 'f-0000000002'],
    ]);
    // The long line is either a fact or a skipped line; it is never dropped without a word.
    expect([...parsed.facts.map((f) => f.line), ...parsed.skipped.map((s) => s.line)]).toContain(3);
  });

  // A quadratic tag loop took ~40 s on this line; linear parsing takes well under a second.
  it('reads a 2 MB fact line of tags in linear time', { timeout: 30_000 }, () => {
    const tags = 700_000;
    const parsed = parseLog(`- [fact] x ${'#a '.repeat(tags)}^f-0000000001\n`, DATE);
    expect(parsed.facts).toHaveLength(1);
    expect(parsed.facts[0]!.text).toBe('x');
    expect(parsed.facts[0]!.tags).toHaveLength(tags);
  });
});

describe('parseLog on hand-edited logs', () => {
  it('reads the DESIGN §3 example exactly', () => {
    const parsed = parseLog(
      `# ${DATE}\n\n## 14:32 · claude-code/3f9a1c\n- [preference] Prefers dark roast coffee #coffee ^f-7k2m9q0a1b\n- [fact] home city:: Lisbon #location ^f-a81x0c2d3e\n`,
      DATE,
    );
    expect(parsed.skipped).toEqual([]);
    expect(parsed.facts).toEqual([
      { id: 'f-7k2m9q0a1b', date: DATE, time: '14:32', batch: 3, source: 'claude-code/3f9a1c', category: 'preference', text: 'Prefers dark roast coffee', tags: ['coffee'], line: 4, explicitId: true },
      { id: 'f-a81x0c2d3e', date: DATE, time: '14:32', batch: 3, source: 'claude-code/3f9a1c', category: 'fact', text: 'home city:: Lisbon', tags: ['location'], line: 5, explicitId: true },
    ]);
  });

  const handLog = [
    `# ${DATE}`,
    '',
    '## 14:32 · cli',
    '- [preference] Likes green tea #tea',
    '- Likes green tea',
    '* [Decision] Moves to Porto in July',
    '+ [fact] Likes green tea',
    '',
    'Some free text a person wrote.',
    '- [mood] Feeling great',
    '### Notes',
    '-',
    '- [fact]   ',
    '## 18:00 · phone',
    '- Likes green tea',
  ].join('\n');

  it('gives lines without ^id the derived id of DESIGN §3, the same on every parse', () => {
    const first = parseLog(handLog, DATE);
    const second = parseLog(handLog, DATE);
    expect(second.facts.map((f) => f.id)).toEqual(first.facts.map((f) => f.id));
    expect(first.facts.map((f) => [f.line, f.category, f.text, f.time, f.source, f.explicitId])).toEqual([
      [4, 'preference', 'Likes green tea', '14:32', 'cli', false],
      [5, 'fact', 'Likes green tea', '14:32', 'cli', false],
      [6, 'decision', 'Moves to Porto in July', '14:32', 'cli', false],
      [7, 'fact', 'Likes green tea', '14:32', 'cli', false],
      [15, 'fact', 'Likes green tea', '18:00', 'phone', false],
    ]);
    // The same text in the same batch counts up an ordinal, so identical texts get distinct ids.
    expect(first.facts.map((f) => f.id)).toEqual([
      factId(DATE, '14:32', 'cli', 'Likes green tea', 0),
      factId(DATE, '14:32', 'cli', 'Likes green tea', 1),
      factId(DATE, '14:32', 'cli', 'Moves to Porto in July', 0),
      factId(DATE, '14:32', 'cli', 'Likes green tea', 2),
      factId(DATE, '18:00', 'phone', 'Likes green tea', 0),
    ]);
    const ids = first.facts.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(FACT_ID_RE);
  });

  it('keeps derived ids when a person adds unrelated lines above them', () => {
    const before = parseLog(handLog, DATE);
    const edited = handLog.replace('## 14:32 · cli\n', '## 14:32 · cli\n\nA note.\n- [fact] Something else\n');
    const after = parseLog(edited, DATE);
    const idOf = (parsed: ParsedLog, text: string): string[] => parsed.facts.filter((f) => f.text === text).map((f) => f.id);
    expect(idOf(after, 'Likes green tea')).toEqual(idOf(before, 'Likes green tea'));
    expect(idOf(after, 'Moves to Porto in July')).toEqual(idOf(before, 'Moves to Porto in July'));
  });

  it('gives facts before any batch header an empty time and source', () => {
    const parsed = parseLog('- [fact] written first\n', DATE);
    expect(parsed.facts).toMatchObject([{ time: '', source: '', text: 'written first', id: factId(DATE, '', '', 'written first', 0) }]);
  });

  it('reports unknown categories, free text and other headings in skipped, with their line numbers', () => {
    const parsed = parseLog(handLog, DATE);
    expect(parsed.skipped.map((s) => s.line)).toEqual([9, 10, 11, 12, 13]);
    const byLine = new Map(parsed.skipped.map((s) => [s.line, s]));
    expect(byLine.get(9)).toMatchObject({ reason: 'not a fact line', excerpt: 'Some free text a person wrote.' });
    expect(byLine.get(10)!.reason).toMatch(/unknown category \[mood\]/);
    expect(byLine.get(10)!.reason).toContain(CATEGORIES.join(', '));
    expect(byLine.get(11)!.reason).toMatch(/heading/);
    expect(byLine.get(12)!.excerpt).toBe('-');
    expect(byLine.get(13)!.reason).toMatch(/without text/);
  });

  it('skips a title only where the title belongs', () => {
    const parsed = parseLog(`# ${DATE}\n## 10:00 · cli\n- [fact] a\n# ${DATE}\n# 2020-01-01\n`, DATE);
    expect(parsed.skipped.map((s) => s.line)).toEqual([4, 5]);
    expect(parseLog(`# 2020-01-01\n`, DATE).skipped.map((s) => s.line)).toEqual([1]);
  });

  it('reads a repeated explicit id once and gives the second line a derived id, reporting it', () => {
    const parsed = parseLog('## 10:00 · cli\n- [fact] a ^f-0000000001\n- [fact] b ^f-0000000001\n', DATE);
    expect(parsed.facts.map((f) => [f.text, f.id, f.explicitId])).toEqual([
      ['a', 'f-0000000001', true],
      ['b', factId(DATE, '10:00', 'cli', 'b', 0), false],
    ]);
    expect(parsed.skipped).toMatchObject([{ line: 3, reason: expect.stringMatching(/duplicate id/) }]);
  });

  it('never gives a line without ^id the id a later line carries', () => {
    // The program wrote the second line; a person then typed the same fact by hand above it.
    const written = factId(DATE, '14:32', 'cli', 'Likes green tea', 0);
    const parsed = parseLog(`## 14:32 · cli\n- [fact] Likes green tea\n- [fact] Likes green tea ^${written}\n`, DATE);
    expect(parsed.skipped).toEqual([]);
    expect(parsed.facts.map((f) => f.line)).toEqual([2, 3]);
    expect(parsed.facts[1]).toMatchObject({ id: written, explicitId: true });
    expect(parsed.facts[0]!.id).not.toBe(written);
    expect(parsed.facts[0]!.id).toMatch(FACT_ID_RE);
  });

  it('reads tags and ids only at the end of a line', () => {
    const parsed = parseLog('- [fact] #not-a-tag-alone\n- [fact] a #x b #y #z ^id-1\n- [fact] price is #1 #2\n- [fact] ^caret in text ^f-0000000009\n', DATE);
    expect(parsed.facts.map((f) => [f.text, f.tags, f.id])).toEqual([
      ['#not-a-tag-alone', [], factId(DATE, '', '', '#not-a-tag-alone', 0)],
      ['a #x b', ['y', 'z'], 'id-1'],
      ['price is #1 #2', [], factId(DATE, '', '', 'price is #1 #2', 0)],
      ['^caret in text', [], 'f-0000000009'],
    ]);
  });

  it('counts lines the way an editor does, with or without a final newline', () => {
    expect(parseLog('', DATE)).toMatchObject({ lineCount: 0, endsWithNewline: false });
    expect(parseLog('a', DATE)).toMatchObject({ lineCount: 1, endsWithNewline: false });
    expect(parseLog('a\n', DATE)).toMatchObject({ lineCount: 1, endsWithNewline: true });
    expect(parseLog('a\r\nb\r\n', DATE)).toMatchObject({ lineCount: 2, endsWithNewline: true });
    expect(parseLog('a\n\n', DATE)).toMatchObject({ lineCount: 2, endsWithNewline: true });
  });
});
