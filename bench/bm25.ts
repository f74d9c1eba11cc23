/**
 * A plain BM25 (Okapi, k1 = 1.2, b = 0.75; lower-cased alphanumeric words, common English stop words
 * dropped, no stemming) over a handful of documents: the same-run baseline the LoCoMo eval sets the
 * index against. With these choices it lands within about 0.01 of the reference figures quoted in
 * ../shared/data/README.md; without stop-word removal it scores about 0.04 lower.
 */

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
