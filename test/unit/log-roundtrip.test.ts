/**
 * What the writer writes, the parser reads back identically (DESIGN §3): random facts appended with
 * appendBatch under the vault's write lock into a real temp folder, then read with readLog.
 */
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { withWriteLock } from '../../src/core/lock.js';
import { CATEGORIES, appendBatch, canonicalFact, parseLog, readLog, type AppendedFact, type CanonicalFact, type FactInput } from '../../src/logs/factlog.js';
import { FACT_ID_RE } from '../../src/logs/ids.js';
import { useTempDir } from '../helpers/tmp.js';

const DATE = '2026-06-09';
const tempDir = useTempDir();

/** Runs `fn` in a fresh temp folder that is removed afterwards (one per property run). */
async function inTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vk-prop-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function accepts(input: FactInput): boolean {
  try {
    canonicalFact(input);
    return true;
  } catch (error) {
    if (error instanceof UsageError) return false;
    throw error;
  }
}

const textUnit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      ' ', '  ', '\t', '\n', '\r\n', '\r', '\u2028', '\u2029', '\u0085', '\u00a0', '\u3000', '\uFEFF', '\u0000', '\u001b',
      '#', '#tag', ' #tag', ' #a/b', ' #123', ' #-', '^', ' ^x', '^f-0123456789', '[', ']', '[fact] ', '[cat] ', '[',
      '## ', '# ', '- ', '·', ' · ', '::', 'home city:: Lisbon', 'é', 'e\u0301', '日本', '🙂', '👨‍👩‍👧',
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
);

/** Fact text as a person or an agent might send it, including what looks like markup. */
const factText = fc
  .tuple(
    fc.constantFrom('', '[fact] ', '[cat] ', '[preference] ', '- ', '## 12:00 · x ', '# ', '^x ', '#lead '),
    fc.string({ unit: textUnit, minLength: 1, maxLength: 60 }),
    fc.constantFrom('', ' #tags', ' #a #b', ' ^x', ' ^f-0123456789', ' #1', ' [cat]', '\n#t', '\t#t\t'),
  )
  .map(([prefix, body, suffix]) => prefix + body + suffix);

const tagChar = fc.constantFrom(...'abcxyzABZ019_/-éßж日'.split(''));
const validTag = fc
  .tuple(fc.constantFrom('', '#', ' '), fc.string({ unit: tagChar, minLength: 1, maxLength: 8 }))
  .filter(([, tag]) => /\D/u.test(tag))
  .map(([prefix, tag]) => prefix + tag);

const factInput: fc.Arbitrary<FactInput> = fc
  .record({
    text: factText,
    category: fc.option(fc.constantFrom(...CATEGORIES, 'FACT', ' Preference '), { nil: undefined }),
    tags: fc.option(fc.array(validTag, { maxLength: 4 }), { nil: undefined }),
  })
  .filter(accepts);

const hhmm = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const source = fc.oneof(fc.constantFrom('cli', 'claude-code/3f9a1c', 'mcp', '', ' two  words\n'), fc.string({ unit: textUnit, maxLength: 20 }));
const batch = fc.record({ time: hhmm, source, facts: fc.array(factInput, { minLength: 1, maxLength: 6 }) });

/** Content a person or a broken tool may have left in the log before the program appends. */
const priorContent = fc.oneof(
  fc.constantFrom('', `# ${DATE}\n`, `# ${DATE}`, `# ${DATE}\n\n## 09:00 · cli\n- [fact] kept ^f-0000000001`, 'free text\r', 'a\r\n', '\n\n', '\uFEFF', '- [fact] no id\n'),
  fc.string({ unit: textUnit, maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }),
);

async function appendAll(root: string, batches: readonly { time: string; source: string; facts: readonly FactInput[] }[]): Promise<{ appended: AppendedFact[]; canonical: CanonicalFact[] }> {
  const appended: AppendedFact[] = [];
  const canonical: CanonicalFact[] = [];
  for (const b of batches) {
    const facts = b.facts.map(canonicalFact);
    canonical.push(...facts);
    appended.push(...(await withWriteLock(root, (lock) => appendBatch(lock, DATE, b.time, b.source, facts))));
  }
  return { appended, canonical };
}

function expectReadBack(parsed: Awaited<ReturnType<typeof readLog>>, appended: readonly AppendedFact[], canonical: readonly CanonicalFact[]): void {
  const byLine = new Map(parsed.facts.map((f) => [f.line, f]));
  appended.forEach((fact, i) => {
    expect(fact.path).toBe(`logs/${DATE}.md`);
    expect(fact.id).toMatch(FACT_ID_RE);
    expect({ category: fact.category, text: fact.text, tags: fact.tags }).toEqual(canonical[i]);
    const read = byLine.get(fact.line);
    expect(read, `no fact read at line ${fact.line}`).toBeDefined();
    expect({ category: read!.category, text: read!.text, tags: read!.tags, id: read!.id, time: read!.time, source: read!.source, line: read!.line }).toEqual({
      category: fact.category,
      text: fact.text,
      tags: fact.tags,
      id: fact.id,
      time: fact.time,
      source: fact.source,
      line: fact.line,
    });
    expect(read!.explicitId).toBe(true);
  });
  const ids = appended.map((f) => f.id);
  expect(new Set(ids).size).toBe(ids.length);
}

describe('appendBatch then readLog', () => {
  it('reads back exactly what was appended, with unique ids', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { minLength: 1, maxLength: 4 }), async (batches) => {
        await inTempDir(async (root) => {
          const { appended, canonical } = await appendAll(root, batches);
          const parsed = await readLog(root, DATE);
          expect(parsed.skipped).toEqual([]);
          expect(parsed.facts).toHaveLength(appended.length);
          expectReadBack(parsed, appended, canonical);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('appends after whatever a person left in the file, changing none of it', async () => {
    await fc.assert(
      fc.asyncProperty(priorContent, fc.array(batch, { minLength: 1, maxLength: 3 }), async (prior, batches) => {
        await inTempDir(async (root) => {
          await mkdir(path.join(root, 'logs'));
          const file = path.join(root, 'logs', `${DATE}.md`);
          await writeFile(file, prior);
          const before = await readLog(root, DATE);
          const priorBytes = await readFile(file);
          const { appended, canonical } = await appendAll(root, batches);
          const after = await readLog(root, DATE);
          // Append-only: the old bytes are a prefix of the new file.
          expect((await readFile(file)).subarray(0, priorBytes.length).equals(priorBytes)).toBe(true);
          // What was there reads the same (facts, ids, line numbers, skipped lines), and nothing new is skipped.
          expect(after.facts.slice(0, before.facts.length)).toEqual(before.facts);
          expect(after.skipped).toEqual(before.skipped);
          expect(after.facts).toHaveLength(before.facts.length + appended.length);
          expectReadBack(after, appended, canonical);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('gives the same text appended twice in one minute two ids', async () => {
    const root = await tempDir();
    const fact = canonicalFact({ text: 'Likes green tea' });
    const first = await withWriteLock(root, (lock) => appendBatch(lock, DATE, '10:00', 'cli', [fact, fact]));
    const second = await withWriteLock(root, (lock) => appendBatch(lock, DATE, '10:00', 'cli', [fact]));
    const ids = [...first, ...second].map((f) => f.id);
    expect(new Set(ids).size).toBe(3);
    expect((await readLog(root, DATE)).facts.map((f) => f.id)).toEqual(ids);
  });

  it('writes the title, a header per batch and one line per fact', async () => {
    const root = await tempDir();
    const [a] = await withWriteLock(root, (lock) =>
      appendBatch(lock, DATE, '14:32', 'claude-code/3f9a1c', [canonicalFact({ text: 'Prefers dark roast coffee #coffee', category: 'preference' })]),
    );
    const [b] = await withWriteLock(root, (lock) => appendBatch(lock, DATE, '15:00', 'cli', [canonicalFact({ text: 'home city:: Lisbon', tags: ['location'] })]));
    expect(await readFile(path.join(root, 'logs', `${DATE}.md`), 'utf8')).toBe(
      [`# ${DATE}`, '', '## 14:32 · claude-code/3f9a1c', `- [preference] Prefers dark roast coffee #coffee ^${a!.id}`, '', '## 15:00 · cli', `- [fact] [home city:: Lisbon] #location ^${b!.id}`, ''].join('\n'),
    );
    expect([a!.line, b!.line]).toEqual([4, 7]);
  });

  it.each([
    ['a fact line', `# ${DATE}\n\n- [fact] typed by hand`],
    ['free text', 'notes without a newline'],
    ['a lone CR', `# ${DATE}\r\rnotes\r`],
    ['CRLF', `# ${DATE}\r\n\r\n- [fact] typed on Windows\r\n`],
  ])('appends correctly to a file ending in %s', async (_name, prior) => {
    const root = await tempDir();
    await mkdir(path.join(root, 'logs'));
    const file = path.join(root, 'logs', `${DATE}.md`);
    await writeFile(file, prior);
    const before = parseLog(prior, DATE);
    const appended = await withWriteLock(root, (lock) => appendBatch(lock, DATE, '10:00', 'cli', [canonicalFact({ text: 'appended' })]));
    const content = await readFile(file, 'utf8');
    expect(content.startsWith(prior)).toBe(true);
    const after = parseLog(content, DATE);
    expect(after.facts.slice(0, -1)).toEqual(before.facts);
    expect(after.facts.at(-1)).toMatchObject({ text: 'appended', id: appended[0]!.id, line: appended[0]!.line, time: '10:00', source: 'cli' });
    // The batch header sits on its own line, right above the fact.
    expect(content.split(/\r\n|\r|\n/)[appended[0]!.line - 2]).toBe('## 10:00 · cli');
  });
});

describe('canonicalFact', () => {
  it('folds white space and line breaks, and moves trailing #tags into tags', () => {
    expect(canonicalFact({ text: '  Prefers\tdark\r\nroast  coffee #coffee #drinks ', category: ' Preference ', tags: ['#morning', 'coffee'] })).toEqual({
      category: 'preference',
      text: 'Prefers dark roast coffee',
      tags: ['morning', 'coffee', 'drinks'],
    });
  });

  it('refuses what cannot be written as a fact line', () => {
    expect(() => canonicalFact({ text: ' \n\t ' })).toThrow(UsageError);
    expect(() => canonicalFact({ text: 'x', category: 'mood' })).toThrow(/unknown category 'mood'/);
    expect(() => canonicalFact({ text: 'x', tags: ['two words'] })).toThrow(/invalid tag/);
    expect(() => canonicalFact({ text: 'x', tags: ['123'] })).toThrow(/invalid tag/);
    expect(() => canonicalFact({ text: 'x'.repeat(100_001) })).toThrow(/limited to 100000 characters/);
  });

  it('handles a text of many tags in linear time', { timeout: 30_000 }, () => {
    const tags = Array.from({ length: 200_000 }, (_, i) => `t${i}`);
    const fact = canonicalFact({ text: `x ${tags.map((t) => `#${t}`).join(' ')}` });
    expect(fact.text).toBe('x');
    expect(fact.tags).toEqual(tags);
  });
});
