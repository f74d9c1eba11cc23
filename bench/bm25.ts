/**
 * A plain BM25 (Okapi, k1 = 1.2, b = 0.75; lower-cased alphanumeric words, common English stop words
 * dropped, no stemming) over a handful of documents: the same-run baseline the LoCoMo eval sets the
 * index against. With these choices it lands within about 0.01 of the reference figures quoted in
 * ../shared/data/README.md; without stop-word removal it scores about 0.04 lower.
 */
import { parseQuery } from '#src/indexer/query.js';
import { indexTerms } from '#src/indexer/terms.js';

const WORD = /[\p{L}\p{N}]+/gu;
const STOP_WORDS = new Set(
  ('a an and are as at be but by did do does for from has have how i in is it its me my of on or our so than that the their ' +
    'them then there these they this to was we were what when where which who why will with you your').split(' '),
);

export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).filter((word) => !STOP_WORDS.has(word));
}

export interface Bm25Index {
  /** Document ids ranked by score for `query`, best first; ties keep document order. Zero scores are left out. */
  search(query: string, k: number): string[];
}

export function buildBm25(docs: ReadonlyArray<{ id: string; text: string }>, k1 = 1.2, b = 0.75): Bm25Index {
  const terms = docs.map((doc) => {
    const counts = new Map<string, number>();
    const words = tokenize(doc.text);
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
    return { id: doc.id, counts, length: words.length };
  });
  const df = new Map<string, number>();
  for (const doc of terms) for (const word of doc.counts.keys()) df.set(word, (df.get(word) ?? 0) + 1);
  const n = terms.length;
  const avg = terms.reduce((sum, d) => sum + d.length, 0) / Math.max(1, n);
  const idf = (word: string): number => {
    const f = df.get(word) ?? 0;
    return Math.log(1 + (n - f + 0.5) / (f + 0.5));
  };
  return {
    search(query, k) {
      const words = [...new Set(tokenize(query))];
      const scored = terms.map((doc, index) => {
        let score = 0;
        for (const word of words) {
          const tf = doc.counts.get(word);
          if (tf === undefined) continue;
          score += (idf(word) * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * doc.length) / avg));
        }
        return { id: doc.id, score, index };
      });
      return scored
        .filter((s) => s.score > 0)
        .sort((x, y) => y.score - x.score || x.index - y.index)
        .slice(0, k)
        .map((s) => s.id);
    },
  };
}

/**
 * The in-memory floor of issue 31: the index's own two term fields (`content` and `context`, terms.ts's terms,
 * read from the LanceDB table) in a tokenized inverted index of typed arrays, scored as LanceDB scores a
 * two-field query (BM25 per field, k1 1.2, b 0.75, the context field at `contextWeight`), the best k by a
 * partial selection. What a search costs when nothing but scoring is done, in the same process.
 */
export interface IndexFields {
  keys: string[];
  content: string[];
  context: string[];
}

export async function readIndexFields(indexDir: string): Promise<IndexFields> {
  const lancedb = await import('@lancedb/lancedb');
  const db = await lancedb.connect(indexDir);
  const table = await db.openTable('rows');
  const out: IndexFields = { keys: [], content: [], context: [] };
  for await (const batch of table.query().select(['key', 'content', 'context'])) {
    for (let i = 0; i < batch.numRows; i++) {
      out.keys.push(String(batch.getChild('key')!.get(i)));
      out.content.push(String(batch.getChild('content')!.get(i) ?? ''));
      out.context.push(String(batch.getChild('context')!.get(i) ?? ''));
    }
  }
  table.close();
  db.close();
  return out;
}

interface FieldPostings {
  terms: Map<string, number>;
  /** Term t's postings are docs[start[t] .. start[t + 1]), with their term frequencies. */
  start: Int32Array;
  docs: Int32Array;
  tfs: Uint16Array;
  lengths: Float32Array;
  average: number;
}

function postingsOf(texts: readonly string[]): FieldPostings {
  const terms = new Map<string, number>();
  const counts: number[] = [];
  const docTerms: Int32Array[] = [];
  const lengths = new Float32Array(texts.length);
  let total = 0;
  texts.forEach((text, doc) => {
    const words = text === '' ? [] : text.split(' ');
    lengths[doc] = words.length;
    total += words.length;
    const ids = new Int32Array(words.length);
    words.forEach((word, i) => {
      let id = terms.get(word);
      if (id === undefined) terms.set(word, (id = counts.push(0) - 1));
      ids[i] = id;
    });
    ids.sort();
    for (let i = 0; i < ids.length; i++) if (i === 0 || ids[i] !== ids[i - 1]) counts[ids[i]!]!++;
    docTerms.push(ids);
  });
  const start = new Int32Array(counts.length + 1);
  for (let t = 0; t < counts.length; t++) start[t + 1] = start[t]! + counts[t]!;
  const fill = start.slice(0, counts.length);
  const docs = new Int32Array(start[counts.length]!);
  const tfs = new Uint16Array(start[counts.length]!);
  docTerms.forEach((ids, doc) => {
    for (let i = 0; i < ids.length; ) {
      let j = i;
      while (j < ids.length && ids[j] === ids[i]) j++;
      const at = fill[ids[i]!]!++;
      docs[at] = doc;
      tfs[at] = j - i;
      i = j;
    }
  });
  return { terms, start, docs, tfs, lengths, average: total / Math.max(1, texts.length) };
}

export interface PostingsIndex {
  /** The keys of the best k rows for the query's terms (terms.ts's terms of its words), best first. */
  search(query: string, k: number): string[];
}

export function buildPostings(fields: IndexFields, contextWeight: number, k1 = 1.2, b = 0.75): PostingsIndex {
  const n = fields.keys.length;
  const both = [
    { postings: postingsOf(fields.content), weight: 1 },
    { postings: postingsOf(fields.context), weight: contextWeight },
  ];
  const scores = new Float32Array(n);
  const touched = new Int32Array(n);
  return {
    search(query, k) {
      const words = [...new Set(indexTerms(parseQuery(query).terms.join(' ')).split(' ').filter((w) => w !== ''))];
      let count = 0;
      for (const { postings: p, weight } of both) {
        for (const word of words) {
          const t = p.terms.get(word);
          if (t === undefined) continue;
          const from = p.start[t]!;
          const to = p.start[t + 1]!;
          const idf = Math.log(1 + (n - (to - from) + 0.5) / (to - from + 0.5));
          for (let i = from; i < to; i++) {
            const doc = p.docs[i]!;
            const tf = p.tfs[i]!;
            if (scores[doc] === 0) touched[count++] = doc;
            scores[doc]! += (weight * idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * p.lengths[doc]!) / p.average));
          }
        }
      }
      // The best k by a small insertion list: k is 10, the touched rows up to the whole table.
      const best: number[] = [];
      for (let i = 0; i < count; i++) {
        const doc = touched[i]!;
        const s = scores[doc]!;
        if (best.length === k && s <= scores[best[k - 1]!]!) continue;
        let at = Math.min(best.length, k - 1);
        while (at > 0 && scores[best[at - 1]!]! < s) at--;
        best.splice(at, 0, doc);
        if (best.length > k) best.pop();
      }
      const keys = best.map((doc) => fields.keys[doc]!);
      for (let i = 0; i < count; i++) scores[touched[i]!] = 0;
      return keys;
    },
  };
}
