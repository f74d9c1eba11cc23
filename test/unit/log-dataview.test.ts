/**
 * Keyed facts are Dataview inline fields (DESIGN §3): the writer puts `subject:: value` in brackets, which
 * Dataview reads anywhere in a line, and the parser reads both that and every older form, with the ids
 * of old lines unchanged.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withWriteLock } from '../../src/core/lock.js';
import { appendBatch, canonicalFact, factText, formatFactLine, parseLog, writtenText } from '../../src/logs/factlog.js';
import { factId } from '../../src/logs/ids.js';
import { bracketedFields } from '../helpers/dataview.js';
import { useTempDir } from '../helpers/tmp.js';

const DATE = '2026-06-09';
const tempDir = useTempDir();

describe('keyed facts in the log', () => {
  it('are written as bracketed inline fields that Dataview reads after the category', async () => {
    const root = await tempDir();
    const facts = [canonicalFact({ text: 'home city:: Lisbon', tags: ['location'] }), canonicalFact({ text: 'Prefers dark roast coffee', category: 'preference' })];
    const appended = await withWriteLock(root, (lock) => appendBatch(lock, DATE, '14:32', 'cli', facts));
    const lines = (await readFile(path.join(root, 'logs', `${DATE}.md`), 'utf8')).split('\n');
    const keyed = lines[appended[0]!.line - 1]!;
    expect(keyed).toBe(`- [fact] [home city:: Lisbon] #location ^${appended[0]!.id}`);
    expect(bracketedFields(keyed)).toEqual([{ key: 'home city', value: 'Lisbon' }]);
    expect(bracketedFields(lines[appended[1]!.line - 1]!)).toEqual([]);

    const parsed = parseLog(lines.join('\n'), DATE);
    expect(parsed.facts.map((f) => [f.text, f.tags, f.id])).toEqual([
      ['home city:: Lisbon', ['location'], appended[0]!.id],
      ['Prefers dark roast coffee', [], appended[1]!.id],
    ]);
  });

  it('reads the older unbracketed form to the same fact, with the same ids', () => {
    const old = [`# ${DATE}`, '', '## 09:00 · cli', '- [fact] home city:: Porto #location ^f-a81x0c2d3e', '- [fact] employer:: Acme', ''].join('\n');
    const parsed = parseLog(old, DATE);
    expect(parsed.skipped).toEqual([]);
    expect(parsed.facts.map((f) => [f.text, f.id, f.explicitId])).toEqual([
      ['home city:: Porto', 'f-a81x0c2d3e', true],
      // A derived id hashes the text as the line holds it, exactly as before brackets existed.
      ['employer:: Acme', factId(DATE, '09:00', 'cli', 'employer:: Acme', 0), false],
    ]);
    // Both forms of one keyed fact are the same fact to everything downstream.
    const bracketed = parseLog(old.replace('home city:: Porto', '[home city:: Porto]'), DATE);
    expect(bracketed.facts[0]).toEqual({ ...parsed.facts[0], text: 'home city:: Porto' });
  });

  it('keeps a hand-written bracketed line without an id on a stable derived id', () => {
    const log = `# ${DATE}\n\n## 10:00 · me\n- [fact] [partner:: Ana] #family\n`;
    const [fact] = parseLog(log, DATE).facts;
    expect(fact).toMatchObject({ text: 'partner:: Ana', tags: ['family'], explicitId: false });
    expect(fact!.id).toBe(factId(DATE, '10:00', 'me', '[partner:: Ana]', 0));
  });

  it('writes the old form when Dataview would read the field wrong, and round-trips either way', () => {
    const cases: [text: string, bracketed: boolean][] = [
      ['home city:: Lisbon', true],
      ['reading:: [[Dune]] by Herbert', true],
      ['mood:: happy (mostly)', true],
      ['emoticon:: :-]', false],
      ['path:: C:\\temp', false],
      ['weird [key]:: value', false],
      ['Caroline: I said:: yes', false],
      ['Caroline: I went hiking', false],
      ['[not keyed] at all', false],
    ];
    for (const [text, bracketed] of cases) {
      const canonical = canonicalFact({ text });
      expect(canonical.text, text).toBe(text);
      const line = formatFactLine(canonical, 'f-0000000000');
      expect(writtenText(text) !== text, text).toBe(bracketed);
      const keyed = /^([^:]+?)::(.*)$/.exec(text);
      if (bracketed) expect(bracketedFields(line), text).toEqual([{ key: keyed![1]!.trim(), value: keyed![2]!.trim() }]);
      expect(parseLog(`## 10:00 · x\n${line}\n`, DATE).facts[0]!.text, text).toBe(text);
    }
  });

  it('takes a bracketed field given as text as the keyed fact it stands for', () => {
    expect(canonicalFact({ text: '[home city:: Lisbon]' }).text).toBe('home city:: Lisbon');
    expect(factText('[home city:: Lisbon]')).toBe('home city:: Lisbon');
    expect(factText('[fact] only')).toBe('[fact] only');
  });
});
