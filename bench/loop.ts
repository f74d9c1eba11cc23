/**
 * The whole loop on LoCoMo (part of `npm run eval`): each conversation's vault is searched before and
 * after the offline dream, over every kind of result, k = 10. A result counts for a question when it is
 * an evidence fact or a page (or core) result whose shown statements cite one. Reported per split (development
 * conversations 0–6, held out 7–9) and category: recall@5/@10, MRR, the mean characters of a top 10, and
 * recall within reading budgets (results taken in order while their text fits, and the search itself bounded by
 * `maxChars`).
 */
import type { LocomoConversation, LocomoQuestion } from './locomo.js';
import type { SearchResult } from '#src/indexer/search.js';
import { openVault } from '#src/vault/vault.js';
import { progress } from './report.js';
import { markdownTable } from './stats.js';

export const BUDGETS = [700, 1400, 3000] as const;
const K = 10;
const DEPTH = 50;
const NOW = new Date('2030-01-01T00:00:00Z');
const CATEGORIES = [1, 2, 3, 4];
/** Conversations 0–6 are where ranking was developed; 7–9 are held out and never tuned on. */
export const HELD_OUT_FROM = 7;

export interface LoopQuestion {
  conversation: number;
  question: LocomoQuestion;
  gold: string[];
}

interface Ranked {
  /** Dialog ids each result stands for, best first. */
  items: Array<Set<string>>;
  chars: number[];
  /** Per budget (BUDGETS), the dialog ids of the answer to the same search asked with that `maxChars`. */
  viaMaxChars: Array<Set<string>>;
}

interface Score {
  recall5: number;
  recall10: number;
  rr: number;
  chars10: number;
  budgets: number[];
  viaMaxChars: number[];
}

export interface LoopAggregate {
  n: number;
  recall5: number;
  recall10: number;
  mrr: number;
  chars10: number;
  budgets: number[];
  /** Recall when the search itself is bounded by `--max-chars` (it keeps a result's best statements that fit). */
  viaMaxChars: number[];
}

export interface LoopResults {
  /** split → phase → category ('all' too) → aggregate */
  splits: Record<string, Record<'before' | 'after', Record<string, LoopAggregate>>>;
  dreams: Array<{ conversation: number; runs: number; pages: number; ms: number; statuses: string[] }>;
}

export function score(ranked: Ranked, gold: readonly string[]): Score {
  const wanted = new Set(gold);
  const recallOf = (count: number): number => {
    const found = new Set<string>();
    for (const item of ranked.items.slice(0, count)) for (const id of item) if (wanted.has(id)) found.add(id);
    return found.size / wanted.size;
  };
  const first = ranked.items.slice(0, K).findIndex((item) => [...item].some((id) => wanted.has(id)));
  const budgets = BUDGETS.map((budget) => {
    let used = 0;
    let count = 0;
    for (const chars of ranked.chars) {
      if (used + chars > budget && count > 0) break;
      used += chars;
      count++;
    }
    return recallOf(count);
  });
  return {
    recall5: recallOf(5),
    recall10: recallOf(K),
    rr: first === -1 ? 0 : 1 / (first + 1),
    chars10: ranked.chars.slice(0, K).reduce((a, b) => a + b, 0),
    budgets,
    viaMaxChars: ranked.viaMaxChars.map((ids) => [...wanted].filter((id) => ids.has(id)).length / wanted.size),
  };
}

export function aggregate(scores: readonly Score[]): LoopAggregate {
  const n = scores.length;
  const mean = (pick: (s: Score) => number): number => (n === 0 ? Number.NaN : scores.reduce((sum, s) => sum + pick(s), 0) / n);
  return {
    n,
    recall5: mean((s) => s.recall5),
    recall10: mean((s) => s.recall10),
    mrr: mean((s) => s.rr),
    chars10: mean((s) => s.chars10),
    budgets: BUDGETS.map((_, i) => mean((s) => s.budgets[i]!)),
    viaMaxChars: BUDGETS.map((_, i) => mean((s) => s.viaMaxChars[i]!)),
  };
}

export async function rank(root: string, env: NodeJS.ProcessEnv, dialogIds: ReadonlyMap<string, string>, questions: readonly LoopQuestion[]): Promise<Ranked[]> {
  const vault = await openVault({ vault: root, env });
  try {
    await vault.reindex();
    const out: Ranked[] = [];
    const dialogs = (r: SearchResult): Set<string> =>
      new Set((r.kind === 'fact' ? [r.id ?? ''] : r.citations).map((id) => dialogIds.get(id)).filter((d): d is string => d !== undefined));
    for (const q of questions) {
      const ask = (maxChars?: number): Promise<SearchResult[]> =>
        vault.search(q.question.question, { k: DEPTH, refresh: false, recordRecall: false, now: NOW, ...(maxChars === undefined ? {} : { maxChars }) });
      const results = await ask();
      const viaMaxChars: Array<Set<string>> = [];
      for (const budget of BUDGETS) viaMaxChars.push(new Set((await ask(budget)).flatMap((r) => [...dialogs(r)])));
      out.push({ items: results.map(dialogs), chars: results.map((r) => r.text.length), viaMaxChars });
    }
    return out;
  } finally {
    await vault.close();
  }
}

/** Dreams until nothing is pending: one run consolidates at most `max_days` days. */
async function dreamAll(root: string, env: NodeJS.ProcessEnv): Promise<{ runs: number; pages: number; ms: number; statuses: string[] }> {
  const vault = await openVault({ vault: root, env });
  const started = performance.now();
  const statuses: string[] = [];
  let pages = 0;
  try {
    for (let run = 0; run < 40; run++) {
      const result = await vault.dream({ force: true, offline: true });
      statuses.push(result.status);
      pages += result.pages.created.length;
      if (result.status !== 'ok') break;
    }
  } finally {
    await vault.close();
  }
  return { runs: statuses.filter((s) => s === 'ok').length, pages, ms: Math.round(performance.now() - started), statuses };
}

export async function runLoop(
  prepared: ReadonlyArray<{ conv: LocomoConversation; root: string; dialogIds: Map<string, string>; questions: LoopQuestion[] }>,
  env: NodeJS.ProcessEnv,
): Promise<LoopResults> {
  const scores: Record<string, Record<'before' | 'after', Array<{ category: number; score: Score }>>> = {};
  const dreams: LoopResults['dreams'] = [];
  for (const { conv, root, dialogIds, questions } of prepared) {
    const split = conv.index < HELD_OUT_FROM ? 'development (0–6)' : 'held out (7–9)';
    scores[split] ??= { before: [], after: [] };
    const before = await rank(root, env, dialogIds, questions);
    const dreamt = await dreamAll(root, env);
    dreams.push({ conversation: conv.index, ...dreamt });
    const after = await rank(root, env, dialogIds, questions);
    questions.forEach((q, i) => {
      scores[split]!.before.push({ category: q.question.category, score: score(before[i]!, q.gold) });
      scores[split]!.after.push({ category: q.question.category, score: score(after[i]!, q.gold) });
    });
    progress(`eval loop: ${conv.sampleId}: ${questions.length} questions, dream ${dreamt.runs} runs (${dreamt.statuses.join(' ')}), ${dreamt.pages} pages, ${Math.round(dreamt.ms / 1000)} s`);
  }
  const splits: LoopResults['splits'] = {};
  for (const [split, phases] of Object.entries(scores)) {
    splits[split] = { before: {}, after: {} };
    for (const phase of ['before', 'after'] as const) {
      const list = phases[phase];
      for (const c of CATEGORIES) splits[split][phase][String(c)] = aggregate(list.filter((s) => s.category === c).map((s) => s.score));
      splits[split][phase].all = aggregate(list.map((s) => s.score));
    }
  }
  return { splits, dreams };
}

const f3 = (value: number | undefined): string => (value === undefined || Number.isNaN(value) ? 'n/a' : value.toFixed(3));

export function renderLoop(r: LoopResults, embedder = 'none'): string {
  const out: string[] = ['### The whole loop on LoCoMo: before and after the offline dream', ''];
  out.push(
    `Each conversation's vault (as above, embedder \`${embedder}\`) is searched with every question of categories 1–4 over all kinds of result ` +
      '(facts, page lines, core), k = 10, before the dream and after `dream --force --offline` has run until nothing is pending. A result ' +
      'counts when it is an evidence turn\'s fact, or a page or core result whose shown statements cite one (their `citations`). "chars@10" is the mean length of the ' +
      `top 10 results' text; "recall@N chars" takes results in order while their text fits in N characters; "via --max-chars N" asks ` +
      'the search itself for N characters (a page result that does not fit whole keeps its best statements that do). Ranking was developed on ' +
      'conversations 0–6 only; 7–9 are held out.',
    '',
  );
  const rows: string[][] = [
    ['split', 'phase', 'questions', 'recall@5', 'recall@10', 'MRR', 'chars@10', ...BUDGETS.map((b) => `recall@${b} chars`), ...BUDGETS.map((b) => `via --max-chars ${b}`)],
  ];
  for (const [split, phases] of Object.entries(r.splits)) {
    for (const phase of ['before', 'after'] as const) {
      const a = phases[phase].all!;
      rows.push([split, phase, String(a.n), f3(a.recall5), f3(a.recall10), f3(a.mrr), a.chars10.toFixed(0), ...a.budgets.map(f3), ...a.viaMaxChars.map(f3)]);
    }
  }
  out.push(markdownTable(rows), '');
  out.push('Per category (recall@10 / MRR):', '');
  const names: Record<string, string> = { '1': 'multi-hop', '2': 'temporal', '3': 'open-domain', '4': 'single-hop' };
  const cat: string[][] = [['split', 'phase', ...CATEGORIES.map((c) => `${c} ${names[c]}`)]];
  for (const [split, phases] of Object.entries(r.splits)) {
    for (const phase of ['before', 'after'] as const) {
      cat.push([split, phase, ...CATEGORIES.map((c) => `${f3(phases[phase][String(c)]?.recall10)} / ${f3(phases[phase][String(c)]?.mrr)}`)]);
    }
  }
  out.push(markdownTable(cat), '');
  const runs = r.dreams.reduce((a, d) => a + d.runs, 0);
  const pages = r.dreams.reduce((a, d) => a + d.pages, 0);
  out.push(`The dreams: ${runs} runs over ${r.dreams.length} conversations, ${pages} pages created, ${Math.round(r.dreams.reduce((a, d) => a + d.ms, 0) / 1000)} s in all.`);
  return out.join('\n').trim();
}
