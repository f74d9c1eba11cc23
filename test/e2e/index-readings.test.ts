/**
 * A log's state-change readings kept with its row hashes (indexer/state-readings.ts): a log projected again reads
 * only the texts it did not hold, and what it gives is what a rebuild gives, whatever a person edits by hand.
 */
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROWS_DIR, readManifest, shardOf } from '../../src/indexer/manifest.js';
import { ReadingMemo, type StoredReadings } from '../../src/indexer/state-readings.js';
import { readStateChange, subjectWords } from '../../src/text/state-change.js';
import type { Vault } from '../../src/vault/vault.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const LOG = 'logs/2026-06-01.md';
const MOVED = 'I moved to Lisbon last weekend';
const JOINED = 'I work at Acme as an engineer now';
const HEADER = '# 2026-06-01\n\n## 09:00 · cli\n';

/** The readings the log's shard keeps. */
async function storedReadings(vault: Vault): Promise<StoredReadings | undefined> {
  const shard = JSON.parse(await readFile(path.join(vault.root, ROWS_DIR, `${shardOf(LOG)}.json`), 'utf8')) as Record<string, { readings?: StoredReadings }>;
  return shard[LOG]?.readings;
}

/** Every file's row hashes now, and after a rebuild from scratch: equal when the incremental passes lost nothing. */
async function againstRebuild(vault: Vault): Promise<void> {
  const rowsOf = async (): Promise<Record<string, Map<string, string>>> => {
    const m = await readManifest(vault.root);
    return Object.fromEntries(Object.entries(m!.files).map(([rel, entry]) => [rel, entry.rows]));
  };
  const incremental = await rowsOf();
  await vault.reindex({ clear: true });
  expect(await rowsOf()).toEqual(incremental);
}

describe('state-change readings kept with a log', () => {
  it('are kept for the cued facts, and a fact appended is read alone', async () => {
    const vault = await makeVault(await tempDir(), {
      config: 'index:\n  embedder: none\n',
      files: { [LOG]: `${HEADER}- [fact] ${MOVED} ^f-aaaaaaaaa1\n- [fact] Likes green tea ^f-aaaaaaaaa2\n` },
    });
    await vault.reindex();
    const change = readStateChange(MOVED)!;
    expect(await storedReadings(vault)).toEqual([[MOVED, change.key, subjectWords(change)]]); // "Likes green tea" has no cue: not kept

    await appendFile(path.join(vault.root, LOG), `\n## 10:00 · cli\n- [fact] ${JOINED} ^f-aaaaaaaaa3\n`);
    const pass = await vault.reindex();
    expect(pass).toMatchObject({ added: 1, removed: 0 });
    const joined = readStateChange(JOINED)!;
    expect(joined.key).not.toBe(change.key);
    expect(await storedReadings(vault)).toEqual([
      [MOVED, change.key, subjectWords(change)],
      [JOINED, joined.key, subjectWords(joined)],
    ]);
    await againstRebuild(vault);
  });

  it('follow a log edited by hand: an earlier fact reworded is read again, one removed is dropped', async () => {
    const vault = await makeVault(await tempDir(), {
      config: 'index:\n  embedder: none\n',
      files: { [LOG]: `${HEADER}- [fact] ${MOVED} ^f-aaaaaaaaa1\n- [fact] Likes green tea ^f-aaaaaaaaa2\n` },
    });
    await vault.reindex();
    // The same fact id, a new text stating another change of state: its row's subject is the new one.
    await writeFile(path.join(vault.root, LOG), `${HEADER}- [fact] ${JOINED} ^f-aaaaaaaaa1\n- [fact] Likes green tea ^f-aaaaaaaaa2\n`);
    const pass = await vault.reindex();
    expect(pass.files.updated).toBe(1);
    const joined = readStateChange(JOINED)!;
    expect(await storedReadings(vault)).toEqual([[JOINED, joined.key, subjectWords(joined)]]);
    const hit = (await vault.search('Acme engineer', { refresh: false, recordRecall: false }))[0];
    expect(hit?.id).toBe('f-aaaaaaaaa1');
    await againstRebuild(vault);

    // No cued fact left: the log keeps no readings.
    await writeFile(path.join(vault.root, LOG), `${HEADER}- [fact] Likes green tea ^f-aaaaaaaaa2\n`);
    await vault.reindex();
    expect(await storedReadings(vault)).toBeUndefined();
    await againstRebuild(vault);
  });
});

describe('state-change readings kept with a page', () => {
  it('are kept for its dated statements, and follow the page edited by hand', async () => {
    const PAGE = '2_Areas/Home.md';
    const vault = await makeVault(await tempDir(), {
      config: 'index:\n  embedder: none\n',
      files: { [LOG]: `${HEADER}- [fact] ${MOVED} ^f-aaaaaaaaa1\n`, [PAGE]: `# Home\n\n- Moved to Lisbon. [[2026-06-01#^f-aaaaaaaaa1]]\n` },
    });
    await vault.reindex();
    const shardFor = async (): Promise<StoredReadings | undefined> => {
      const shard = JSON.parse(await readFile(path.join(vault.root, ROWS_DIR, `${shardOf(PAGE)}.json`), 'utf8')) as Record<string, { readings?: StoredReadings }>;
      return shard[PAGE]?.readings;
    };
    // The statement's text without its list marker and citation (projection.ts), as read.
    const moved = readStateChange('Moved to Lisbon.')!;
    expect(await shardFor()).toEqual([['Moved to Lisbon. ', moved.key, subjectWords(moved)]]);
    await writeFile(path.join(vault.root, PAGE), `# Home\n\n- Works at Acme as an engineer. [[2026-06-01#^f-aaaaaaaaa1]]\n`);
    await vault.reindex();
    const works = readStateChange('Works at Acme as an engineer.')!;
    expect(await shardFor()).toEqual([['Works at Acme as an engineer. ', works.key, subjectWords(works)]]);
    await againstRebuild(vault);
  });
});

describe('ReadingMemo', () => {
  it('answers from the readings it was given, reads the rest, and keeps only the texts read', () => {
    // A kept reading is trusted as it is (the reader gives the same for the same text): a planted one shows it is used.
    const memo = new ReadingMemo([
      [MOVED, 'planted key', 'planted words'],
      ['Moved to Oslo, a fact since removed', 'home city', 'home city'],
    ]);
    expect(memo.read(MOVED)).toEqual({ key: 'planted key', words: 'planted words' });
    const joined = readStateChange(JOINED)!;
    expect(memo.read(JOINED)).toEqual({ key: joined.key, words: subjectWords(joined) });
    expect(memo.read('Likes green tea')).toBeNull(); // no cue phrase: not read, not kept
    expect(memo.read('I think I moved to Porto')).toBeNull(); // cued, no sure reading: kept as none
    expect(memo.stored()).toEqual([
      [MOVED, 'planted key', 'planted words'],
      [JOINED, joined.key, subjectWords(joined)],
      ['I think I moved to Porto', '', ''],
    ]);
  });
});
