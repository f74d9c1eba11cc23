/** Retrieval metrics for the LoCoMo eval: evidence recall@k and reciprocal rank, per question and averaged. */

export interface QuestionScore {
  /** Share of the gold evidence found in the top 5 / top 10. */
  recall5: number;
  recall10: number;
  /** 1 / rank of the first gold item within the top 10, else 0 (MRR@10 when averaged). */
  rr: number;
}

export interface Aggregate {
  n: number;
  recall5: number;
  recall10: number;
  mrr: number;
}

/** Scores one ranking (item ids, best first; null for a result that is not an item) against its gold ids. */
export function scoreRanking(ranked: ReadonlyArray<string | null>, gold: readonly string[]): QuestionScore {
  const wanted = new Set(gold);
  if (wanted.size === 0) throw new RangeError('a question without evidence cannot be scored');
  const recallAt = (k: number): number => {
    const found = new Set(ranked.slice(0, k).filter((id): id is string => id !== null && wanted.has(id)));
    return found.size / wanted.size;
  };
  const first = ranked.slice(0, 10).findIndex((id) => id !== null && wanted.has(id));
  return { recall5: recallAt(5), recall10: recallAt(10), rr: first === -1 ? 0 : 1 / (first + 1) };
}

export function aggregate(scores: readonly QuestionScore[]): Aggregate {
  const n = scores.length;
  const mean = (pick: (s: QuestionScore) => number): number => (n === 0 ? Number.NaN : scores.reduce((sum, s) => sum + pick(s), 0) / n);
  return { n, recall5: mean((s) => s.recall5), recall10: mean((s) => s.recall10), mrr: mean((s) => s.rr) };
}

/** Averages per category (keys as strings, "all" for every score given). */
export function aggregateByCategory(scores: ReadonlyArray<{ category: number; score: QuestionScore }>): Record<string, Aggregate> {
  const out: Record<string, Aggregate> = {};
  const categories = [...new Set(scores.map((s) => s.category))].sort((a, b) => a - b);
  for (const category of categories) out[String(category)] = aggregate(scores.filter((s) => s.category === category).map((s) => s.score));
  out.all = aggregate(scores.map((s) => s.score));
  return out;
}
