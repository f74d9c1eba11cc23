/**
 * The whole loop on LoCoMo (part of `npm run eval`): each conversation's vault is searched before and
 * after the offline dream, over every kind of result, k = 10. A result counts for a question when it is
 * an evidence fact or a page (or core) result whose shown statements cite one. Reported per split (development
 * conversations 0–6, held out 7–9) and category: recall@5/@10, MRR, the mean characters of a top 10, and
 * recall within reading budgets (results taken in order while their text fits, and the search itself bounded by
 * `maxChars`); answer containment (a short gold answer in the texts that fit in 1,400 characters, answers.ts);
 * and what the dream made, read from the files after it (wiki-metrics.ts): statements that are a log line
 * verbatim, entity pages, people merged, hubs without a lead, MEMORY.md's durable lines.
 */
import type { LocomoConversation, LocomoQuestion } from './locomo.js';
import type { SearchResult } from '#src/indexer/search.js';
import { openVault } from '#src/vault/vault.js';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { answerForms, answerHaystacks, containsAnswer, holdsAnswer } from './answers.js';
import { expectedEntities } from './expected-entities.js';
import { progress } from './report.js';
import { markdownTable } from './stats.js';
import { measureWiki, type WikiMetrics } from './wiki-metrics.js';

export const BUDGETS = [700, 1400, 3000] as const;
/** The reading budget answer containment is measured in. */
export const ANSWER_BUDGET = 1400;
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
  /** The short gold answer (answers.ts isShortAnswer), when the question has one. */
  answer?: string;
}

interface Ranked {
  /** Dialog ids each result stands for, best first. */
  items: Array<Set<string>>;
  chars: number[];
  /** Each result's text, best first (answer containment). */
  texts?: string[];
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
  /** Whether the short gold answer is in the texts that fit in ANSWER_BUDGET; null without one. */
  answer: boolean | null;
  /** The same, a relative gold date ("the Friday before 15 July 2023") matched only as written. */
  answerStrict: boolean | null;
  /** Whether some one line of the vault's markdown holds the answer at all: the ceiling of `answer` for any ranking. */
  written: boolean | null;
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
  /** Questions with a short gold answer, and the share of them whose answer is in the first ANSWER_BUDGET characters. */
  answers: number;
  containment: number;
  /** Containment with relative gold dates matched only as written (answers.ts `resolve: false`). */
  containmentStrict: number;
  /** The share of the short answers some one line of the vault holds (Score.written). */
  written: number;
}

/** What the dream made of one conversation (wiki-metrics.ts), with the names it was expected to page. */
export interface ConversationWiki extends WikiMetrics {
  conversation: number;
  /** Expected entities as "Name (kind, turns)", for the reader to judge the rule. */
  names: string[];
}

export interface LoopResults {
  /** split → phase → category ('all' too) → aggregate */
  splits: Record<string, Record<'before' | 'after', Record<string, LoopAggregate>>>;
  dreams: Array<{ conversation: number; runs: number; pages: number; ms: number; statuses: string[] }>;
  /** split → the wiki of each of its conversations after the dream */
  wiki: Record<string, ConversationWiki[]>;
  /** Each question with a short answer: whether it was contained before and after, and the texts read after (JSON only, to study misses). */
  answers: AnswerTrace[];
}

export interface AnswerTrace {
  conversation: number;
  category: number;
  question: string;
  answer: string;
  before: boolean;
  after: boolean;
  /** The texts after the dream that fit in ANSWER_BUDGET. */
  texts: string[];
}

/** How many results, taken in order, fit in `budget` characters (the first always counts). */
export function fitting(chars: readonly number[], budget: number): number {
  let used = 0;
  let count = 0;
  for (const c of chars) {
    if (used + c > budget && count > 0) break;
    used += c;
    count++;
  }
  return count;
}

export function score(ranked: Ranked, gold: readonly string[], answer?: string, written?: readonly string[]): Score {
  const wanted = new Set(gold);
  const recallOf = (count: number): number => {
    const found = new Set<string>();
    for (const item of ranked.items.slice(0, count)) for (const id of item) if (wanted.has(id)) found.add(id);
    return found.size / wanted.size;
  };
  const first = ranked.items.slice(0, K).findIndex((item) => [...item].some((id) => wanted.has(id)));
  const budgets = BUDGETS.map((budget) => recallOf(fitting(ranked.chars, budget)));
  const texts = (ranked.texts ?? []).slice(0, Math.min(K, fitting(ranked.chars, ANSWER_BUDGET)));
  return {
    recall5: recallOf(5),
    recall10: recallOf(K),
    rr: first === -1 ? 0 : 1 / (first + 1),
    chars10: ranked.chars.slice(0, K).reduce((a, b) => a + b, 0),
    budgets,
    viaMaxChars: ranked.viaMaxChars.map((ids) => [...wanted].filter((id) => ids.has(id)).length / wanted.size),
    answer: answer === undefined ? null : containsAnswer(texts, answerForms(answer)),
    answerStrict: answer === undefined ? null : containsAnswer(texts, answerForms(answer, { resolve: false })),
    written: answer === undefined || written === undefined ? null : holdsAnswer(written, answerForms(answer)),
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
    answers: scores.filter((s) => s.answer !== null).length,
    containment: share(scores.filter((s) => s.answer !== null).map((s) => s.answer === true)),
    containmentStrict: share(scores.filter((s) => s.answerStrict !== null).map((s) => s.answerStrict === true)),
    written: share(scores.filter((s) => s.written !== null).map((s) => s.written === true)),
  };
}

const share = (flags: readonly boolean[]): number => (flags.length === 0 ? Number.NaN : flags.filter(Boolean).length / flags.length);

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
      out.push({ items: results.map(dialogs), chars: results.map((r) => r.text.length), texts: results.slice(0, K).map((r) => r.text), viaMaxChars });
    }
    return out;
  } finally {
    await vault.close();
  }
}

/**
 * Every non-empty line of the vault's markdown (logs, and after the dream its pages and MEMORY.md; folders
 * starting with a dot left out), normalized for answer matching: what a perfect ranking could show.
 */
async function vaultLines(root: string): Promise<string[]> {
  const lines: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.name.endsWith('.md')) for (const line of (await readFile(path, 'utf8')).split('\n')) if (line.trim() !== '') lines.push(line);
    }
  };
  await walk(root);
  return answerHaystacks(lines);
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
  const wiki: LoopResults['wiki'] = {};
  const answers: AnswerTrace[] = [];
  for (const { conv, root, dialogIds, questions } of prepared) {
    const split = conv.index < HELD_OUT_FROM ? 'development (0–6)' : 'held out (7–9)';
    scores[split] ??= { before: [], after: [] };
    const before = await rank(root, env, dialogIds, questions);
    const writtenBefore = await vaultLines(root);
    const dreamt = await dreamAll(root, env);
    dreams.push({ conversation: conv.index, ...dreamt });
    const after = await rank(root, env, dialogIds, questions);
    const writtenAfter = await vaultLines(root);
    questions.forEach((q, i) => {
      const was = score(before[i]!, q.gold, q.answer, writtenBefore);
      const is = score(after[i]!, q.gold, q.answer, writtenAfter);
      scores[split]!.before.push({ category: q.question.category, score: was });
      scores[split]!.after.push({ category: q.question.category, score: is });
      if (q.answer === undefined) return;
      const read = (after[i]!.texts ?? []).slice(0, Math.min(K, fitting(after[i]!.chars, ANSWER_BUDGET)));
      answers.push({ conversation: conv.index, category: q.question.category, question: q.question.question, answer: q.answer, before: was.answer === true, after: is.answer === true, texts: read });
    });
    const expected = expectedEntities(conv);
    (wiki[split] ??= []).push({
      conversation: conv.index,
      names: expected.entities.map((e) => `${e.name} (${e.speaker ? 'speaker' : `${e.kind}, ${e.turns} turns`})`),
      ...(await measureWiki(root, expected)),
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
  return { splits, dreams, wiki, answers };
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
  out.push(...renderContainment(r, names), '');
  const runs = r.dreams.reduce((a, d) => a + d.runs, 0);
  const pages = r.dreams.reduce((a, d) => a + d.pages, 0);
  out.push(`The dreams: ${runs} runs over ${r.dreams.length} conversations, ${pages} pages created, ${Math.round(r.dreams.reduce((a, d) => a + d.ms, 0) / 1000)} s in all.`, '');
  out.push(...renderWiki(r));
  return out.join('\n').trim();
}

const pct = (value: number): string => (Number.isNaN(value) ? 'n/a' : `${(value * 100).toFixed(1)}%`);

function renderContainment(r: LoopResults, names: Record<string, string>): string[] {
  const out = [
    `**Answer containment within ${ANSWER_BUDGET.toLocaleString('en-US')} characters.** For each question whose gold answer (LoCoMo's \`answer\`) is short ` +
      '(at most 5 words once normalized, a bare yes or no aside), is the answer in the text of the top 10 results taken in order while they fit in ' +
      `${ANSWER_BUDGET.toLocaleString('en-US')} characters (the cut of "recall@1400 chars", the first result always taken)? Both sides are normalized alike ` +
      '(lower case, NFKC, ordinals and number words as digits, punctuation to spaces, articles dropped; bench/answers.ts) and matched as whole words ' +
      'within one result; a date in the answer is also looked for in its other common forms ("7 May 2023", "May 7th, 2023", "2023-05-07"; a month with ' +
      'its year or a year alone as written), and a date said relative to another ("the Friday before 15 July 2023", "the week before 9 June 2023") also as ' +
      'the day, week (from Monday) or weekend (by its Saturday) it names. Share of the short answers found (their count in brackets):',
    '',
  ];
  const rows: string[][] = [['split', 'phase', 'all', ...CATEGORIES.map((c) => `${c} ${names[c]}`)]];
  const cell = (a: LoopAggregate | undefined): string => (a === undefined ? 'n/a' : `${pct(a.containment)} (${a.answers})`);
  for (const [split, phases] of Object.entries(r.splits)) {
    for (const phase of ['before', 'after'] as const) rows.push([split, phase, cell(phases[phase].all), ...CATEGORIES.map((c) => cell(phases[phase][String(c)]))]);
  }
  out.push(markdownTable(rows), '');
  const strict = Object.entries(r.splits)
    .map(([split, phases]) => `${split} ${pct(phases.before.all?.containmentStrict ?? Number.NaN)} → ${pct(phases.after.all?.containmentStrict ?? Number.NaN)}`)
    .join('; ');
  out.push(`Read strictly (a relative gold date matched only as written, as this table was read before 2026-11-29), all categories, before → after: ${strict}.`);
  const written = Object.entries(r.splits)
    .map(([split, phases]) => `${split} ${pct(phases.before.all?.written ?? Number.NaN)} → ${pct(phases.after.all?.written ?? Number.NaN)}`)
    .join('; ');
  out.push(
    '',
    `Written anywhere (the ceiling of containment for any ranking and any budget): the share of the short answers that some one line of the vault's markdown holds, matched alike — the logs before the dream, the logs, pages and MEMORY.md after it; before → after: ${written}.`,
  );
  return out;
}

/** The wiki columns per split, pooled over its conversations. */
export function wikiSummary(list: readonly ConversationWiki[]): {
  statements: number;
  verbatim: number;
  entitiesFound: number;
  entitiesExpected: number;
  /** Pages merging people, and the distinct sets of people they merge. */
  merged: number;
  mergedPeople: number;
  hubs: number;
  hubsWithoutLead: number;
  memoryMin: number;
  memoryQuestions: number;
  memoryChatter: number;
} {
  const sum = (pick: (w: ConversationWiki) => number): number => list.reduce((a, w) => a + pick(w), 0);
  return {
    statements: sum((w) => w.statements),
    verbatim: sum((w) => w.verbatim),
    entitiesFound: sum((w) => w.entities.found.length),
    entitiesExpected: sum((w) => w.entities.expected.length),
    merged: sum((w) => w.merged.length),
    mergedPeople: sum((w) => new Set(w.merged.map((m) => m.names.join(' + '))).size),
    hubs: sum((w) => w.hubs),
    hubsWithoutLead: sum((w) => w.hubsWithoutLead.length),
    memoryMin: list.length === 0 ? 0 : Math.min(...list.map((w) => w.memory.lines)),
    memoryQuestions: sum((w) => w.memory.questions.length),
    memoryChatter: sum((w) => w.memory.chatter.length),
  };
}

/** Merged pages grouped by the people they merge: a hub and its parts are one line ("Deborah + Jolene on 29 pages, e.g. …"). */
function mergedGroups(merged: ConversationWiki['merged']): string {
  const groups = new Map<string, string[]>();
  for (const m of merged) groups.set(m.names.join(' + '), [...(groups.get(m.names.join(' + ')) ?? []), m.page]);
  return [...groups].map(([names, pages]) => `${names} on ${pages.length === 1 ? pages[0] : `${pages.length} pages, e.g. ${[...pages].sort((a, b) => a.length - b.length || a.localeCompare(b))[0]}`}`).join('; ')
}

function renderWiki(r: LoopResults): string[] {
  const out = [
    '**What the dream made** (read from the files after the last run, bench/wiki-metrics.ts). A statement is a list item citing exactly one fact, outside ' +
      '`## Related`, `## Parts` and `## Mentions`; it is a log line verbatim when its text without citations, with links as their text and without the ' +
      "dream's marks (`(until …)`, `(due …)`, `(disputed)`) equals the cited fact's, whitespace normalized. Entity pages: the names expected " +
      '(the two speakers, and every capitalized name compromise reads as a person, place or organization in ≥ 3 turns, a speaker\'s nickname such as ' +
      '"Mel" folded into the speaker; bench/expected-entities.ts) that resolve to a page by title or alias. People merged: `type: person` pages whose title ' +
      'and aliases name two different expected people. A hub (a page with `## Parts`) has a lead when something other than "Part of [[…]]." stands between ' +
      'its H1 and its first `##`. MEMORY.md: its list items outside `## Often recalled`, the fewest of any conversation, and those ending in "?" or ' +
      'opening (after a "Name: " label) with a greeting, thanks, goodbye or interjection.',
    '',
  ];
  const rows: string[][] = [['split', 'statements', 'log line verbatim', 'entity pages', 'people merged (pages)', 'hubs without a lead', 'MEMORY.md lines (fewest)', 'MEMORY.md questions / chatter']];
  for (const [split, list] of Object.entries(r.wiki)) {
    const w = wikiSummary(list);
    rows.push([
      split,
      String(w.statements),
      w.statements === 0 ? 'n/a' : `${pct(w.verbatim / w.statements)} (${w.verbatim})`,
      `${w.entitiesFound}/${w.entitiesExpected}`,
      w.merged === 0 ? '0' : `${w.merged} pages (${w.mergedPeople} ${w.mergedPeople === 1 ? 'pair' : 'pairs'})`,
      `${w.hubsWithoutLead}/${w.hubs}`,
      String(w.memoryMin),
      `${w.memoryQuestions} / ${w.memoryChatter}`,
    ]);
  }
  out.push(markdownTable(rows), '');
  out.push('Per conversation: the names expected (✗: no page), people merged, MEMORY.md lines.', '');
  for (const list of Object.values(r.wiki)) {
    for (const w of list) {
      const names = w.names.map((label, i) => `${label}${w.entities.missing.includes(w.entities.expected[i]!) ? ' ✗' : ''}`).join(', ');
      const merged = w.merged.length === 0 ? '' : `; merged: ${mergedGroups(w.merged)}`;
      const flagged = [...w.memory.questions, ...w.memory.chatter];
      const memory = `; MEMORY.md ${w.memory.lines} ${w.memory.lines === 1 ? 'line' : 'lines'}${flagged.length === 0 ? '' : `, ${flagged.length} a question or chatter (e.g. "${flagged[0]!.slice(0, 80)}")`}`;
      out.push(`- conversation ${w.conversation}: ${names}${merged}${memory}.`);
    }
  }
  return out;
}
