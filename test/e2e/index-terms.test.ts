/**
 * The index terms (terms.ts) against LanceDB's own English analyzer, which the index used up to manifest
 * version 7: LanceDB is the oracle. Every distinct word of the project's docs and of a list of hard cases is
 * written as a row twice, once as it is to a table analyzed by LanceDB, once as its terms to a table indexed as
 * the store indexes (FTS_OPTIONS); each word finds the same rows in both. Then lines of text: queries over both
 * give the same rows with the same BM25 scores, so the document lengths agree too.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Lance from '@lancedb/lancedb';
import { describe, expect, it } from 'vitest';
import { FTS_OPTIONS } from '../../src/indexer/store.js';
import { indexTerms } from '../../src/indexer/terms.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const lancedb = createRequire(createRequire(import.meta.url).resolve('@lancedb/lancedb'))('@lancedb/lancedb') as typeof Lance;
const ROOT = path.resolve(import.meta.dirname, '../..');

/** What the index's full-text fields were built with up to manifest version 7. */
const LANCEDB_ENGLISH = { stem: true, language: 'English', removeStopWords: true, asciiFolding: true, lowercase: true, withPosition: false };

/** Words stemming, stop words, case, folding and the length limit treat specially. */
const HARD = [
  'being', 'Being', 'its', 'willing', 'thats', 'THE', 'There', 'skies', 'dying', 'news', 'early', 'gently', 'generously', 'communism',
  'ΟΔΟΣ', 'οδοσ', 'οδος', 'Σ', 'σς', 'straße', 'STRASSE', 'İstanbul', 'Łódź', 'Æsir', 'Øresund', 'naïve', 'café', 'Lukáš', 'lukas', 'ﬁnancial',
  'x'.repeat(39), 'x'.repeat(40), 'é'.repeat(19), 'é'.repeat(20), 'İ'.repeat(19), '東京', '٣', '४२', 'Ⅻ', 'ǅemal', "Ana's", 'co-op',
];

const SUFFIXES = ['s', 'es', 'ing', 'ed', 'ly', 'ness', 'ational', 'ization', 'fulness', 'iveness', 'ement', 'ously'];

/** Every .md file under a folder of the repo. */
function markdown(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' }).filter((rel) => rel.endsWith('.md')).map((rel) => readFileSync(path.join(ROOT, dir, rel), 'utf8'));
}

const TEXTS = [...markdown('docs'), readFileSync(path.join(ROOT, 'README.md'), 'utf8'), ...markdown('vault-template')];

async function fullTextTable(dir: string, name: string, values: readonly string[], options: Lance.FtsOptions): Promise<Lance.Table> {
  const db = await lancedb.connect(dir);
  const table = await db.createTable(name, values.map((text, id) => ({ id, text })));
  await table.createIndex('text', { config: lancedb.Index.fts(options) });
  return table;
}

async function hits(table: Lance.Table, query: string, limit: number): Promise<Array<{ id: number; score: number }>> {
  if (query === '') return [];
  const rows = (await table.query().fullTextSearch(new lancedb.MatchQuery(query, 'text')).select(['id', '_score']).limit(limit).toArray()) as Array<{ id: number; _score: number }>;
  return rows.map((row) => ({ id: row.id, score: row._score })).sort((a, b) => b.score - a.score || a.id - b.id);
}

describe('index terms against LanceDB', () => {
  it('each word finds the same rows as LanceDB analyzing it finds', async () => {
    const written = [...new Set(TEXTS.flatMap((text) => text.match(/[\p{Alphabetic}\p{N}]+/gu) ?? []))];
    // And endings the stemmer takes off, on every tenth word.
    const endings = written.filter((_, i) => i % 10 === 0).flatMap((word) => SUFFIXES.map((suffix) => word + suffix));
    const words = [...new Set([...written, ...endings, ...HARD])];
    expect(words.length).toBeGreaterThan(9_000);
    const dir = await tempDir();
    const lance = await fullTextTable(dir, 'lance', words, LANCEDB_ENGLISH);
    const ours = await fullTextTable(dir, 'ours', words.map(indexTerms), FTS_OPTIONS);
    // One query per term: it must find every word of that term and no other, in both tables.
    const byTerm = new Map<string, string>();
    for (const word of words) if (!byTerm.has(indexTerms(word))) byTerm.set(indexTerms(word), word);
    const differ: string[] = [];
    for (const [terms, word] of byTerm) {
      const want = (await hits(lance, word, words.length)).map((hit) => hit.id).sort((a, b) => a - b);
      const got = (await hits(ours, terms, words.length)).map((hit) => hit.id).sort((a, b) => a - b);
      if (want.join() !== got.join()) differ.push(word);
    }
    expect(differ).toEqual([]);
  }, 120_000);

  it('lines of text give the same hits with the same scores', async () => {
    const lines = [...new Set(TEXTS.flatMap((text) => text.split('\n')).filter((line) => /\p{L}/u.test(line)))];
    const dir = await tempDir();
    const lance = await fullTextTable(dir, 'lance', lines, LANCEDB_ENGLISH);
    const ours = await fullTextTable(dir, 'ours', lines.map(indexTerms), FTS_OPTIONS);
    let compared = 0;
    for (let i = 0; i < lines.length; i += Math.ceil(lines.length / 150)) {
      // Two to four words of a line, as a person's query picks them.
      const words = lines[i]!.match(/[\p{Alphabetic}\p{N}]+/gu) ?? [];
      const query = words.filter((_, j) => j % 3 === 0).slice(0, 4).join(' ');
      const want = await hits(lance, query, 20);
      expect(await hits(ours, indexTerms(query), 20)).toEqual(want);
      if (want.length > 0) compared++;
    }
    expect(compared).toBeGreaterThan(100);
  }, 120_000);
});
