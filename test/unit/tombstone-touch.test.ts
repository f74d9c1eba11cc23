/**
 * The files a new tombstone can change (indexer/tombstone-touch.ts), on real files: a log or page is re-projected
 * when it names the fact's id or a line of it holds every word of the fact's text, however the file spells them
 * (case, NFKC forms), whether it is read the quick way (ASCII and a log's `·` headers) or decoded and normalized.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { touchedByTombstones } from '../../src/indexer/tombstone-touch.js';
import { normalizeText } from '../../src/text/normalize.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();
const ID = 'f-aaaaaaaaa1';
const tombstone = { id: ID, text: normalizeText('Prefers dark roast coffee'), at: '2026-06-10T00:00:00Z' };
const log = (date: string, lines: string): [string, string] => [`logs/${date}.md`, `# ${date}\n\n## 09:00 · cli\n${lines}`];

describe('touchedByTombstones', () => {
  it('finds the fact, its repeats in any case or NFKC form, and the pages citing a touched log', async () => {
    const files = Object.fromEntries([
      log('2026-06-01', `- [preference] Prefers dark roast coffee ^${ID}\n`), // the fact itself
      log('2026-06-02', '- [fact] She PREFERS Dark Roast Coffee, always ^f-aaaaaaaaa2\n'), // a repeat, ASCII and `·`: read the quick way
      log('2026-06-03', '- [fact] Prefers dark roast\n- [fact] coffee in the morning ^f-aaaaaaaaa3\n'), // the words on two lines: untouched
      log('2026-06-04', '- [fact] Prefers ｄａｒｋ roast coffee — and café au lait ^f-aaaaaaaaa4\n'), // fullwidth letters: NFKC
      log('2026-06-05', '- [fact] With the \u212Aelvin sign: prefers dar\u212A roast coffee ^f-aaaaaaaaa5\n'), // K (U+212A) folds to k
      log('2026-06-06', '- [fact] Tea, not coffee ^f-aaaaaaaaa6\n'), // untouched
      log('2026-06-07', `- [fact] An id written by hand, then a combining mark: ${ID}\u0301 ^f-aaaaaaaaa7\n`), // the id as written
      ['2_Areas/Coffee.md', '# Coffee\n\n- Likes tea. [[2026-06-02#^f-aaaaaaaaa2]]\n'], // cites a touched log
      ['2_Areas/Tea.md', '# Tea\n\n- Likes tea. [[2026-06-06#^f-aaaaaaaaa6]]\n'], // untouched
      ['2_Areas/Roast.md', '# Roast\n\n- Prefers dark roast coffee on weekdays\n'], // a page line repeating it
    ]);
    const root = path.join(await tempDir(), 'vault');
    await writeTree(root, files);
    const rels = Object.keys(files);
    const touched = touchedByTombstones(root, rels.filter((rel) => rel.startsWith('logs/')), rels.filter((rel) => !rel.startsWith('logs/')), [tombstone]);
    expect([...touched!].sort()).toEqual(['2_Areas/Coffee.md', '2_Areas/Roast.md', 'logs/2026-06-01.md', 'logs/2026-06-02.md', 'logs/2026-06-04.md', 'logs/2026-06-05.md', 'logs/2026-06-07.md']);
  });

  it('counts a file it cannot read, and asks for every file for a tombstone without its words', async () => {
    const root = path.join(await tempDir(), 'vault');
    await writeTree(root, Object.fromEntries([log('2026-06-01', '- [fact] Tea ^f-aaaaaaaaa2\n')]));
    expect([...touchedByTombstones(root, ['logs/2026-06-01.md', 'logs/2026-06-09.md'], [], [tombstone])!]).toEqual(['logs/2026-06-09.md']);
    expect(touchedByTombstones(root, ['logs/2026-06-01.md'], [], [{ id: ID, hash: 'sha256:00', words: 4, at: tombstone.at }])).toBeNull();
  });
});
