/** Tombstones (DESIGN §5): the file format, whole-word `repeats`, and bad lines ignored but reported. */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withWriteLock } from '../../src/core/lock.js';
import { normalizeText } from '../../src/text/normalize.js';
import { TOMBSTONES_FILE, appendTombstones, hashedText, parseTombstones, readTombstones, type Tombstone } from '../../src/tombstones/tombstones.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const stone = (id: string, text: string): string => JSON.stringify({ id, text, at: '2026-06-09T10:00:00.000Z' });

describe('parseTombstones', () => {
  it('reads ids and texts, and repeats() matches runs of whole words after normalizing', () => {
    const set = parseTombstones([stone('f-aaaaaaaaaa', 'dark roast'), stone('f-bbbbbbbbbb', 'wifi password is hunter2')].join('\n') + '\n');
    expect(set.badLines).toEqual([]);
    expect(set.entries.map((e) => e.id)).toEqual(['f-aaaaaaaaaa', 'f-bbbbbbbbbb']);
    expect(set.hasId('f-aaaaaaaaaa')).toBe(true);
    expect(set.hasId('f-cccccccccc')).toBe(false);
    expect(set.repeats('Prefers DARK-roast coffee')).toBe(true);
    expect(set.repeats('Prefers darkroast coffee')).toBe(false);
    expect(set.repeats('Prefers dark roasted coffee')).toBe(false);
    expect(set.repeats('Note: the Wi-Fi password is "hunter2".')).toBe(false); // "wi fi" is two words
    expect(set.repeats('Note: the WiFi password is "hunter2".')).toBe(true);
    expect(set.repeats('the wifi password is hunter22')).toBe(false);
  });

  it('a hashed entry (what forget writes) repeats like a text one, and old text entries still count beside it', () => {
    const hashed = JSON.stringify({ id: 'f-bbbbbbbbbb', ...hashedText('wifi password is hunter2'), at: '2026-06-09T10:00:00.000Z' });
    expect(hashed).not.toContain('hunter2');
    const set = parseTombstones([stone('f-aaaaaaaaaa', 'dark roast'), hashed].join('\n'));
    expect(set.badLines).toEqual([]);
    expect(set.repeats('Note: the WiFi password is "hunter2".')).toBe(true);
    expect(set.repeats('the wifi password is hunter22')).toBe(false);
    expect(set.repeats('Prefers DARK-roast coffee')).toBe(true);
    expect(set.hasId('f-bbbbbbbbbb')).toBe(true);
  });

  it('normalizes tombstone texts written by hand', () => {
    const set = parseTombstones(stone('f-aaaaaaaaaa', '  Dark-Roast!! ') + '\n');
    expect(set.repeats('likes dark roast')).toBe(true);
  });

  it('reports bad lines by number, still reads the good ones, and keeps forgetting the id a damaged line names', () => {
    const content = [
      stone('f-aaaaaaaaaa', 'dark roast'),
      '{not json',
      '',
      JSON.stringify({ id: 'f-bbbbbbbbbb' }),
      JSON.stringify({ id: '', text: 'x', at: 'y' }),
      '["f-cccccccccc"]',
      '   ',
      stone('f-dddddddddd', 'green tea'),
      'null',
    ].join('\r\n');
    const set = parseTombstones(content);
    expect(set.badLines).toEqual([2, 4, 5, 6, 9]);
    expect(set.entries.map((e) => e.id)).toEqual(['f-aaaaaaaaaa', 'f-bbbbbbbbbb', 'f-dddddddddd']);
    // A line torn after its id (a full disk under an older version) must not bring its fact back.
    expect(set.hasId('f-bbbbbbbbbb')).toBe(true);
    expect(parseTombstones('{"id":"f-eeeeeeeeee","text":"dark ro').hasId('f-eeeeeeeeee')).toBe(true);
    expect(set.repeats('green tea please')).toBe(true);
  });

  it('never repeats on a tombstone whose text normalizes to nothing', () => {
    const set = parseTombstones(stone('f-aaaaaaaaaa', '!!!') + '\n');
    expect(set.hasId('f-aaaaaaaaaa')).toBe(true);
    expect(set.repeats('!!! anything at all')).toBe(false);
  });

  it('a tombstoned text repeats in itself and in any text that quotes it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }), (text, before, after) => {
        fc.pre(normalizeText(text) !== '');
        const set = parseTombstones(stone('f-aaaaaaaaaa', normalizeText(text)));
        expect(set.repeats(text)).toBe(true);
        expect(set.repeats(`${before} ${text} ${after}`)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on junk', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ maxLength: 50 }), (content, probe) => {
        const set = parseTombstones(content);
        set.repeats(probe);
        const lines = content.split(/\r?\n/).length;
        for (const line of set.badLines) expect(line).toBeLessThanOrEqual(lines);
      }),
      { numRuns: 500 },
    );
  });
});

describe('tombstones.jsonl on disk', () => {
  it('reads an absent file as no tombstones', async () => {
    const set = await readTombstones(await tempDir());
    expect(set.entries).toEqual([]);
    expect(set.repeats('anything')).toBe(false);
  });

  it('appends one JSON object a line, starting on a fresh line after a hand edit', async () => {
    const root = await tempDir();
    await mkdir(path.join(root, '.vaultkeeper'));
    await writeFile(path.join(root, TOMBSTONES_FILE), stone('f-aaaaaaaaaa', 'dark roast')); // no final newline
    const entries: Tombstone[] = [
      { id: 'f-bbbbbbbbbb', text: 'green tea', at: '2026-06-10T00:00:00.000Z', reason: 'wrong' },
      { id: 'f-cccccccccc', text: 'line\nbreak "quoted"', at: '2026-06-10T00:00:00.000Z' },
    ];
    await withWriteLock(root, (lock) => appendTombstones(lock, entries));
    const content = await readFile(path.join(root, TOMBSTONES_FILE), 'utf8');
    const lines = content.split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).map((l) => JSON.parse(l) as Tombstone)).toEqual([JSON.parse(stone('f-aaaaaaaaaa', 'dark roast')), ...entries]);
    const set = await readTombstones(root);
    expect(set.badLines).toEqual([]);
    expect(set.entries).toEqual([JSON.parse(stone('f-aaaaaaaaaa', 'dark roast')), ...entries]);
  });

  it('writes nothing for no entries', async () => {
    const root = await tempDir();
    await withWriteLock(root, (lock) => appendTombstones(lock, []));
    await expect(readFile(path.join(root, TOMBSTONES_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
