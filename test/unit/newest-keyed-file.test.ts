/**
 * The keyed files (newest-keyed-file.ts) on a real LanceDB table: the rows read from encoded batches are the rows
 * written (the archived bit, a null date, a subject not in ASCII); the files answer as the store's LanceDB path in
 * both scopes; a tie at a subject's top is left to LanceDB; a pass that deletes a subject's newest row reads it again.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeColumns } from '../../src/indexer/arrow-rows.js';
import { columnsOf, tableColumns } from '../../src/indexer/columns.js';
import { keyedOfBatch, NewestKeyedFiles, NewestKeyedPass } from '../../src/indexer/newest-keyed-file.js';
import type { IndexRow } from '../../src/indexer/rows.js';
import { IndexStore } from '../../src/indexer/store.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const URI = '.vaultkeeper/index';

const row = (key: string, subject: string, date: string | null, line: number, archived = false): IndexRow => ({
  key, kind: 'fact', path: key.split('#')[0]!, line, line_end: line, section_line: line, section_end: line, id: '', date, category: 'fact',
  tags: [], title: '', heading: '', heading_path: '', page_type: '', status: '', archived, citations: [], text: `${subject}:: ${key}`,
  content: key, context: '', subject,
});
const batchOf = (rows: IndexRow[]): ReturnType<typeof encodeColumns> => encodeColumns(tableColumns(null), rows.length, columnsOf(rows, null), null);

const ROWS = [
  row('f:logs/2026-01-01.md#a', 'home city', '2026-01-01', 4),
  row('f:logs/2026-01-03.md#b', 'home city', '2026-01-03', 4),
  row('p:5_Archives/old.md#c', 'home city', '2026-01-09', 7, true),
  row('f:logs/2026-01-02.md#d', 'café de préférence', '2026-01-02', 5),
  row('f:logs/2026-01-02.md#e', 'café de préférence', '2026-01-02', 9),
  row('f:logs/2026-01-04.md#f', 'tied', '2026-01-04', 3),
  row('p:Work.md#g', 'tied', '2026-01-04', 3),
  row('p:Notes.md#h', 'undated', null, 2),
  row('f:logs/2026-01-01.md#i', '', '2026-01-01', 5),
];

async function tableWith(rows: IndexRow[]): Promise<{ root: string; store: IndexStore }> {
  const root = await tempDir();
  await mkdir(path.join(root, '.vaultkeeper'), { recursive: true });
  const store = await IndexStore.open(path.join(root, URI), null);
  await store.add(rows);
  return { root, store };
}

describe('the keyed files', () => {
  it('reads the keyed rows of an encoded batch as they were written', () => {
    expect(keyedOfBatch(batchOf(ROWS))).toEqual(
      ROWS.filter((r) => r.subject !== '').map((r) => ({ key: r.key, subject: r.subject, date: r.date ?? '', line: r.line, archived: r.archived })),
    );
  });

  it('answers as LanceDB in both scopes, leaves a tie to it, and reads a subject again when its newest row goes', async () => {
    const { root, store } = await tableWith(ROWS);
    try {
      const pass = await NewestKeyedPass.begin(root, URI, store, true);
      pass.addBatches([batchOf(ROWS)]);
      await pass.write(store);
      const state = (await store.state())!;
      const files = new NewestKeyedFiles(root, URI);
      const plain = ['home city', 'café de préférence', 'undated'];
      for (const archived of [false, true]) {
        expect(files.newest(state, archived, plain)).toEqual(await store.newestKeyed(plain, { where: null, archived }, state));
      }
      // The archived page's row is the newest only when archived rows count.
      expect(files.newest(state, true, ['home city'])?.get('home city')?.key).toBe('p:5_Archives/old.md#c');
      expect(files.newest(state, false, ['home city'])?.get('home city')?.key).toBe('f:logs/2026-01-03.md#b');
      // Two rows of one date and line: LanceDB's order breaks the tie, so the files do not answer.
      expect(files.newest(state, false, ['home city', 'tied'])).toBeNull();
      // Another state than the head's: no answer.
      expect(new NewestKeyedFiles(root, URI).newest(`${state}x`, false, plain)).toBeNull();

      // A pass that deletes the newest current home city: the files then name the one before it.
      const next = await NewestKeyedPass.begin(root, URI, store, false);
      await store.deleteKeys(['f:logs/2026-01-03.md#b']);
      next.remove(['f:logs/2026-01-03.md#b']);
      await next.write(store);
      const after = (await store.state())!;
      expect(after).not.toBe(state);
      const again = new NewestKeyedFiles(root, URI);
      expect(again.newest(after, false, ['home city'])?.get('home city')?.key).toBe('f:logs/2026-01-01.md#a');
      for (const archived of [false, true]) {
        expect(again.newest(after, archived, plain)).toEqual(await store.newestKeyed(plain, { where: null, archived }, after));
      }
    } finally {
      store.close();
    }
  });
});
