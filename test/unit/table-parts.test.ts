/**
 * A part that has failed to be written stops the rebuild at the next part it is handed, with the error a failed write
 * gets (reindex.ts), rather than after the rest of the vault has been projected for nothing; `finish` fails too.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeColumns } from '../../src/indexer/arrow-rows.js';
import { columnsOf, tableColumns } from '../../src/indexer/columns.js';
import type { IndexRow } from '../../src/indexer/rows.js';
import { IndexStore } from '../../src/indexer/store.js';
import { TableParts } from '../../src/indexer/table-parts.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

const row = (line: number): IndexRow => ({
  key: `p:a.md#${line}`, kind: 'page', path: 'a.md', line, line_end: line, section_line: 1, section_end: 99, id: '', date: null, category: '',
  tags: [], title: 'A', heading: 'H', heading_path: 'A > H', page_type: '', status: '', archived: false, citations: [], text: `line ${line}`,
  content: `line ${line}`, context: 'a h', subject: '',
});
const batchOf = (rows: IndexRow[]): ReturnType<typeof encodeColumns> => encodeColumns(tableColumns(null), rows.length, columnsOf(rows, null), null);

describe('a table written in parts', () => {
  it('writes each part as it fills, in order', async () => {
    const store = await IndexStore.open(path.join(await tempDir(), 'index'), null);
    try {
      const parts = new TableParts(store, 2, async () => undefined);
      for (let line = 1; line <= 5; line++) await parts.take([batchOf([row(line)])]);
      await parts.finish();
      expect(parts.rows).toBe(5);
      expect(await store.count()).toBe(5);
      expect(await store.fragments()).toBe(3); // two parts of two rows, the last of one
    } finally {
      store.close();
    }
  });

  it('stops at the next part after one has failed, as a failed write', async () => {
    const store = await IndexStore.open(path.join(await tempDir(), 'index'), null);
    const parts = new TableParts(store, 1, async () => undefined);
    store.close(); // every write fails from here
    await parts.take([batchOf([row(1)])]); // a part queued: its write fails on LanceDB's threads, later
    await expect(parts.finish()).rejects.toThrow(); // once it has failed
    await expect(parts.take([batchOf([row(2)])])).rejects.toMatchObject({ code: 'VK_INDEX', message: expect.stringMatching(/^the index could not be written: /) });
  });
});
