/**
 * The facts the index pass keeps of each log (logs/log-facts.ts), on real files: an entry vouches for a log only
 * at the size and mtime it names, an id hash is found only at a fact's place, a mask holds every mask of a text
 * made of some of its words, and a torn or foreign file vouches for nothing.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { idHash, LOG_FACTS_DIR, logFactsText, LogFactsReader, mayHoldWords, textMask, wordMask, writeLogFacts } from '../../src/logs/log-facts.js';
import { normalizeText } from '../../src/text/normalize.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const A = 'logs/2026-06-01.md';
const B = 'logs/2026-06-02.md';
const facts = [
  { id: 'f-aaaaaaaaa1', text: 'Prefers dark roast coffee' },
  { id: 'f-aaaaaaaaa2', text: 'Walked the dog in the rain' },
];

describe('log facts', () => {
  it('vouch for a log at the size and mtime they name, and find its ids at a fact’s place only', async () => {
    const root = await tempDir();
    await writeLogFacts(root, new Map([[A, { size: 100, mtimeMs: 5.5, ...logFactsText(facts) }], [B, { size: 7, mtimeMs: 1, ...logFactsText([]) }]]));
    const ids = new LogFactsReader(root, 'ids');
    expect(ids.kept(A, { size: 100, mtimeMs: 5.5 })).toBe(true);
    expect(ids.kept(A, { size: 101, mtimeMs: 5.5 })).toBe(false);
    expect(ids.kept(A, { size: 100, mtimeMs: 6 })).toBe(false);
    expect(ids.kept('logs/2026-07-01.md', { size: 100, mtimeMs: 5.5 })).toBe(false);
    expect(ids.mayHoldId(A, idHash('f-aaaaaaaaa2'))).toBe(true);
    expect(ids.mayHoldId(B, idHash('f-aaaaaaaaa2'))).toBe(false);
    expect(ids.mayHoldId(A, idHash('f-zzzzzzzzz9'))).toBe(false);
    // Across two facts' hashes (4 hex digits of each): not at a fact's place, so not found.
    const straddle = idHash('f-aaaaaaaaa1').slice(4) + idHash('f-aaaaaaaaa2').slice(0, 4);
    expect(ids.mayHoldId(A, straddle)).toBe(false);

    const words = new LogFactsReader(root, 'words');
    const masks = words.words(A)!;
    expect(masks.length).toBe(4);
    expect(mayHoldWords(masks, wordMask(normalizeText('dark roast')))).toBe(true);
    expect(mayHoldWords(words.words(B)!, wordMask(normalizeText('dark roast')))).toBe(false);

    // A log gone leaves its month's file; the other entries stay as they were.
    await writeLogFacts(root, new Map([[B, null]]));
    const after = new LogFactsReader(root, 'ids');
    expect(after.kept(B, { size: 7, mtimeMs: 1 })).toBe(false);
    expect(after.kept(A, { size: 100, mtimeMs: 5.5 })).toBe(true);
  });

  it('vouch only for a stamp written as a stat prints it, and find an id hash on its own log’s line', async () => {
    const root = await tempDir();
    await writeLogFacts(root, new Map([[A, { size: 100, mtimeMs: 5.5, ...logFactsText(facts) }], [B, { size: 7, mtimeMs: 1, ...logFactsText([facts[1]!]) }]]));
    const file = path.join(root, LOG_FACTS_DIR, 'ids', '2026-06');
    // A stamp written by hand another way (the same numbers) vouches for nothing: the log is read instead.
    await writeFile(file, (await readFile(file, 'latin1')).replace(`${A}\t100\t5.5\t`, `${A}\t0100\t5.50\t`), 'latin1');
    const ids = new LogFactsReader(root, 'ids');
    expect(ids.kept(A, { size: 100, mtimeMs: 5.5 })).toBe(false);
    expect(ids.kept(B, { size: 7, mtimeMs: 1 })).toBe(true);
    // The hash of a fact of both logs is found on each log's line, never on the other's.
    expect(ids.mayHoldId(B, idHash('f-aaaaaaaaa2'))).toBe(true);
    expect(ids.mayHoldId(B, idHash('f-aaaaaaaaa1'))).toBe(false);
    expect(ids.mayHoldId(A, idHash('f-aaaaaaaaa2'))).toBe(true);
  });

  it('a text made of some of a fact’s words has a mask the fact’s holds', () => {
    const words = 'the spare key is under blue flowerpot alarm code garden hose priya leila nairobi wednesday'.split(' ');
    for (let seed = 1; seed < 200; seed++) {
      const text = words.filter((_, i) => (seed * (i + 7)) % 3 !== 0).join(' ');
      const part = text.split(' ').filter((_, i) => (seed + i) % 2 === 0).join(' ');
      expect(mayHoldWords(Uint32Array.from(wordMask(text)), wordMask(part))).toBe(true);
    }
  });

  it('a log’s ids text is its facts’ id hashes, each 8 hex digits, in order', () => {
    const facts = Array.from({ length: 500 }, (_, i) => ({ id: `f-${(i * 7919).toString(36).padStart(10, 'q')}`, text: '' }));
    expect(facts.some((fact) => idHash(fact.id).startsWith('0'))).toBe(true); // the padding is exercised
    expect(logFactsText(facts).ids).toBe(facts.map((fact) => idHash(fact.id)).join(''));
    expect(logFactsText([]).ids).toBe('');
  });

  it('a text’s mask read from its characters is the mask of its normalized words, ASCII or not', () => {
    const same = (text: string): void => expect(textMask(text), JSON.stringify(text)).toEqual(wordMask(normalizeText(text)));
    // Every ASCII character alone, between words and at either end: separators, controls, letters of both cases.
    for (let code = 0; code < 128; code++) {
      const char = String.fromCharCode(code);
      for (const text of [char, `Ab${char}cD`, `${char}word`, `word${char}`, `${char}${char}`]) same(text);
    }
    // Texts drawn from ASCII, a few with a character NFKC or lower case changes (the long way), from a fixed seed.
    const alphabet = 'aZ09 .,-_:;!?#@/\\\'"()[]{}+=*&^%$~`|<>\t\n\r\x01\x7fTheQuick';
    const wide = ['é', 'ß', 'ﬁ', 'Σ', '１', '—', ' ', '😀', 'İ'];
    let seed = 7;
    const next = (n: number): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    for (let i = 0; i < 2_000; i++) {
      let text = '';
      for (let j = next(40); j > 0; j--) text += alphabet[next(alphabet.length)];
      if (i % 10 === 0) text = text.slice(0, next(text.length + 1)) + wide[next(wide.length)] + text.slice(next(text.length + 1));
      same(text);
    }
    for (const text of ['', '   ', 'Prefers dark roast coffee', 'Moved to Zürich in May', 'e-mail: a.b@c.de (work)', 'ﬁne ＡＢＣ']) same(text);
  });

  it('a month file read once in a process serves its later readers until it is written or replaced', async () => {
    const root = await tempDir();
    await writeLogFacts(root, new Map([[A, { size: 100, mtimeMs: 5.5, ...logFactsText(facts) }]]));
    expect(new LogFactsReader(root, 'ids').mayHoldId(A, idHash('f-aaaaaaaaa1'))).toBe(true);
    // Written by this process: the next reader sees the new entry, not the month as first read.
    await writeLogFacts(root, new Map([[B, { size: 7, mtimeMs: 1, ...logFactsText([facts[1]!]) }]]));
    const second = new LogFactsReader(root, 'ids');
    expect(second.kept(B, { size: 7, mtimeMs: 1 })).toBe(true);
    expect(second.mayHoldId(B, idHash('f-aaaaaaaaa2'))).toBe(true);
    // Replaced by another writer (a new file renamed in, as writeConfined does): read again.
    const file = path.join(root, LOG_FACTS_DIR, 'ids', '2026-06');
    const text = await readFile(file, 'latin1');
    await writeFile(`${file}.new`, text.replace(`${B}\t7\t1\t`, `${B}\t8\t1\t`), 'latin1');
    await rename(`${file}.new`, file);
    const third = new LogFactsReader(root, 'ids');
    expect(third.kept(B, { size: 7, mtimeMs: 1 })).toBe(false);
    expect(third.kept(B, { size: 8, mtimeMs: 1 })).toBe(true);
  });

  it('a torn line or a file of another format vouches for nothing', async () => {
    const root = await tempDir();
    await writeLogFacts(root, new Map([[A, { size: 100, mtimeMs: 5.5, ...logFactsText(facts) }], [B, { size: 7, mtimeMs: 1, ...logFactsText(facts) }]]));
    const file = path.join(root, LOG_FACTS_DIR, 'ids', '2026-06');
    const text = await readFile(file, 'latin1');
    await writeFile(file, text.slice(0, -5), 'latin1'); // B's line torn
    const torn = new LogFactsReader(root, 'ids');
    expect(torn.kept(A, { size: 100, mtimeMs: 5.5 })).toBe(true);
    expect(torn.kept(B, { size: 7, mtimeMs: 1 })).toBe(false);
    await writeFile(file, text.replace('log facts 1', 'log facts 9'), 'latin1');
    expect(new LogFactsReader(root, 'ids').kept(A, { size: 100, mtimeMs: 5.5 })).toBe(false);
  });
});
