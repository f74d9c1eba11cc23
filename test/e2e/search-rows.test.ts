/**
 * The store reads a query's rows straight from LanceDB's IPC buffers (result-rows.ts, `readIpc`). Here LanceDB
 * itself answers the store's kinds of query (full text over two fields, with a filter, with no match, nearest
 * vectors) on a real table, and every buffer it hands over reads the same with readIpc as with Arrow's decoding;
 * so do the columns a search reads of keyed facts (`readIpcColumns`) from a vault's own table.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Lance from '@lancedb/lancedb';
import type * as Arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { readBatch, readIpc, readIpcColumns, type Cell, type ResultRows } from '../../src/indexer/result-rows.js';
import { runJson } from '../helpers/cli.js';
import { makeProjectionVault } from '../helpers/projection-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const fromLance = createRequire(createRequire(import.meta.url).resolve('@lancedb/lancedb'));
const lancedb = fromLance('@lancedb/lancedb') as typeof Lance;
// The Arrow LanceDB loads, and the one-file build the store loads in its place (store.ts, arrowAsOneFile).
const arrows: Array<[string, typeof Arrow]> = [
  ['Arrow', fromLance('apache-arrow') as typeof Arrow],
  ['one-file Arrow', fromLance('apache-arrow/Arrow.esnext.min') as typeof Arrow],
];

/** What LanceDB's native query hands over, batch by batch (the store drives it the same way). */
async function buffers(query: Lance.Query | Lance.VectorQuery): Promise<Buffer[]> {
  const native = (query as unknown as { inner: { execute(): Promise<{ next(): Promise<Buffer | null> }> } }).inner;
  const batches = await native.execute();
  const out: Buffer[] = [];
  for (let buffer = await batches.next(); buffer !== null; buffer = await batches.next()) out.push(buffer);
  return out;
}

describe('reading LanceDB query results', () => {
  it('gives the rows Arrow gives for every buffer of full-text and vector queries', async () => {
    const db = await lancedb.connect(path.join(await tempDir(), 'index'));
    const words = ['coffee', 'tea', 'lisbon', 'café', 'naïve', '😀', 'pour-over', 'roast'];
    const rows = Array.from({ length: 300 }, (_, i) => ({
      shown: JSON.stringify([`k${i}`, i % 3 === 0 ? 'fact' : 'page', `notes/${i}.md`, i, `${words[i % words.length]} note ${i} ${'x'.repeat(i % 50)}`]),
      content: `${words[i % words.length]} ${words[(i * 7) % words.length]} note ${i}`,
      context: `${words[(i + 3) % words.length]} context`,
      kind: i % 3 === 0 ? 'fact' : 'page',
      vector: Array.from({ length: 8 }, (_, j) => Math.sin(i * 0.37 + j)),
    }));
    const table = await db.createTable('rows', rows);
    try {
      for (const column of ['content', 'context']) await table.createIndex(column, { config: lancedb.Index.fts({ stem: true, language: 'English', removeStopWords: true, withPosition: false }) });
      // A few rows added after the index: LanceDB searches them flat, in a second batch of their own.
      await table.add(rows.slice(0, 20).map((row, i) => ({ ...row, shown: JSON.stringify([`late${i}`, 'fact', 'logs/late.md', i, row.content]) })));
      const text = (words: string, limit: number): Lance.Query =>
        table.query().fullTextSearch(new lancedb.MultiMatchQuery(words, ['content', 'context'], { boosts: [1, 0.85] })).select(['shown', '_score']).limit(limit);
      const queries: Array<[string, Lance.Query | Lance.VectorQuery, string]> = [
        ['full text', text('coffee roast', 60), '_score'],
        ['full text, a large fetch', text('note', 500), '_score'],
        ['full text with a filter', text('coffee tea', 60).where("kind = 'fact'"), '_score'],
        ['full text, no match', text('zebra', 60), '_score'],
        ['vector', table.query().nearestTo(Float32Array.from({ length: 8 }, (_, j) => Math.cos(j))).distanceType('cosine').select(['shown', '_distance']).limit(60), '_distance'],
      ];
      let read = 0;
      for (const [name, query, rawColumn] of queries) {
        for (const buffer of await buffers(query)) {
          for (const [arrowName, arrow] of arrows) {
            const expected: ResultRows = { shown: [], raw: [] };
            for (const batch of arrow.tableFromIPC(buffer).batches) readBatch(batch, rawColumn, expected);
            const out: ResultRows = { shown: [], raw: [] };
            const ok = readIpc(buffer, rawColumn, out);
            // A result of no rows may come without the selected columns: then Arrow decodes it (to none).
            if (expected.raw.length > 0) expect(ok, `${name}, ${arrowName}`).toBe(true);
            if (ok) {
              expect(out, `${name}, ${arrowName}`).toEqual(expected);
              read += out.raw.length;
            }
          }
        }
      }
      expect(read).toBeGreaterThan(2 * 300);
    } finally {
      table.close();
      db.close();
    }
  });

  it("reads a vault's key, subject, date and line columns (Utf8, a nullable Utf8, Int32) as Arrow does", async () => {
    // The store's own table, built by the CLI: keyed facts and pages (whose date is null).
    const root = await makeProjectionVault(await tempDir());
    await runJson(['--vault', root, 'reindex', '--clear']);
    const db = await lancedb.connect(path.join(root, '.vaultkeeper/index'));
    const table = await db.openTable('rows');
    try {
      const want = { key: 'utf8', subject: 'utf8', date: 'utf8', line: 'int32' } as const;
      let read = 0;
      for (const where of ["kind = 'fact' AND subject != ''", 'true']) {
        for (const buffer of await buffers(table.query().where(where).select(Object.keys(want)))) {
          for (const [arrowName, arrow] of arrows) {
            const expected: Record<string, Cell[]> = { key: [], subject: [], date: [], line: [] };
            for (const batch of arrow.tableFromIPC(buffer).batches) {
              for (const name of Object.keys(want)) for (let i = 0; i < batch.numRows; i++) expected[name]!.push((batch.getChild(name)!.get(i) as Cell) ?? null);
            }
            const out: Record<string, Cell[]> = { key: [], subject: [], date: [], line: [] };
            expect(readIpcColumns(buffer, want, out), `${where}, ${arrowName}`).toBe(true);
            expect(out, `${where}, ${arrowName}`).toEqual(expected);
            read += out.key!.length;
          }
        }
      }
      const all: Record<string, Cell[]> = { key: [], subject: [], date: [], line: [] };
      for (const buffer of await buffers(table.query().select(Object.keys(want)))) readIpcColumns(buffer, want, all);
      expect(all.date).toContain(null);
      expect(all.subject!.some((subject) => subject !== '')).toBe(true);
      expect(read).toBeGreaterThan(1_000);
    } finally {
      table.close();
      db.close();
    }
  }, 60_000);
});
