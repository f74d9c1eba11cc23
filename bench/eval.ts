/**
 * `npm run eval`: retrieval quality on LoCoMo. Each of the 10 conversations becomes its own vault (one
 * day log per session, one fact per dialog turn); every question of categories 1–4 is searched with
 * k = 10 and scored by evidence recall@5, recall@10 and MRR@10, per category and overall, for each
 * embedder, on the questions as published and on the audit-corrected set, next to a plain BM25 over
 * the same turns. Flags:
 *   --data PATH        locomo10.json (default ../shared/data/locomo/locomo10.json from the repository)
 *   --audit PATH       locomo_audit_errors.json (default: beside --data)
 *   --embedders none,hash,use-lite   (transformers is tried when listed or by default, run only if its model is on disk)
 *   --conversations N | A-B   only the first N conversations (a quick look), or those numbered A to B
 *                      (0-based, e.g. 0-6 to develop on, 7-9 for the held-out split)
 *   --parts facts,loop,updates,errors   which parts to run (default all): the facts-only systems, the
 *                      loop before/after the offline dream (loop.ts), the update-stream benchmark (updates.ts),
 *                      the consolidators' error rates (dream-errors.ts, in its own process; --error-days N, 40)
 *   --loop-embedder NAME   the loop's embedder (default none; e.g. use-lite, with VAULTKEEPER_VECTOR_WEIGHT to sweep)
 *   --captions         remember shared images' captions with the turn ("[shares a photo of …]")
 *   --json-out FILE    also write the loop's and the update stream's results as JSON (e.g. with
 *                      `--parts loop --conversations 0-1 --no-write` for a quick look at a subset)
 *   --no-write / --keep
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigSchema } from '#src/core/config.js';
import { errorMessage } from '#src/core/errors.js';
import { createEmbedder } from '#src/embed/embedder.js';
import { openVault } from '#src/vault/vault.js';
import { buildBm25 } from './bm25.js';
import { runNode } from './child.js';
import { aggregateByCategory, scoreRanking, type Aggregate, type QuestionScore } from './metrics.js';
import { applyAudit, loadConversation, normalizeEvidence, readAudit, readLocomo, turnText, type LocomoConversation, type LocomoQuestion } from './locomo.js';
import { BENCHMARKS_DOC, REPO_ROOT, print, progress, writeSection } from './report.js';
import { duration, machineInfo, markdownTable, ms, summarize, type MachineInfo } from './stats.js';
import { cleanEnv, setEmbedder } from './vaults.js';
import { goldText, isShortAnswer } from './answers.js';
import { renderLoop, runLoop, wikiSummary, type LoopResults } from './loop.js';
import { renderUpdates, runUpdates, type UpdateResults } from './updates.js';

const CATEGORIES = [1, 2, 3, 4];
const CATEGORY_NAMES: Record<string, string> = { '1': 'multi-hop', '2': 'temporal', '3': 'open-domain', '4': 'single-hop' };
const K = 10;
/** Far after every session: the recency boost (at most 10%, half-life 90 days) is below 1e-7 here and reorders nothing. */
const NOW = new Date('2030-01-01T00:00:00Z');
const REFERENCE = { name: 'plain BM25 (reference, measured outside this project)', recall5: 0.5, recall10: 0.568, mrr: 0.423 };

type SetName = 'all' | 'corrected';

interface SystemResult {
  name: string;
  model: string;
  /** Indexing time summed over the conversations (ms), null for the in-bench BM25. */
  indexMs: number | null;
  search: { p50: number; p95: number } | null;
  errors: number;
  sets: Record<SetName, Record<string, Aggregate>>;
}

interface EvalResults {
  machine: MachineInfo;
  data: { file: string; sha256: string; conversations: number; sessions: number; turns: number };
  settings: { embedders: string[]; captions: boolean; k: number; now: string; conversations: number };
  questions: Record<SetName, Record<string, number>>;
  audit: { file: string; recited: number; dropped: number; unmatched: string[] } | { error: string };
  evidence: { unknownIds: number; questionsWithoutEvidence: number };
  systems: SystemResult[];
  notRun: Array<{ name: string; reason: string }>;
  reference: typeof REFERENCE;
}

interface ScoredQuestion {
  question: LocomoQuestion;
  /** Gold evidence per set; absent when the question is not in that set. */
  gold: Partial<Record<SetName, string[]>>;
}

function settings() {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      audit: { type: 'string' },
      embedders: { type: 'string', default: 'none,hash,use-lite,transformers' },
      conversations: { type: 'string' },
      parts: { type: 'string', default: 'facts,loop,updates,errors' },
      'error-days': { type: 'string', default: '40' },
      'loop-embedder': { type: 'string', default: 'none' },
      captions: { type: 'boolean', default: false },
      'json-out': { type: 'string' },
      'no-write': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
    },
  });
  const data = path.resolve(values.data ?? path.join(REPO_ROOT, '..', 'shared', 'data', 'locomo', 'locomo10.json'));
  return {
    data,
    audit: path.resolve(values.audit ?? path.join(path.dirname(data), 'locomo_audit_errors.json')),
    embedders: values.embedders.split(',').map((e) => e.trim()).filter((e) => e !== ''),
    range: conversationRange(values.conversations),
    parts: new Set(values.parts.split(',').map((p) => p.trim())),
    errorDays: values['error-days'],
    loopEmbedder: values['loop-embedder'],
    captions: values.captions,
    write: !values['no-write'],
    jsonOut: values['json-out'] === undefined ? undefined : path.resolve(values['json-out']),
    keep: values.keep,
  };
}

/** `--conversations`: N means 0 to N-1; A-B means A to B inclusive. */
function conversationRange(value: string | undefined): { from: number; to: number } {
  if (value === undefined) return { from: 0, to: Infinity };
  const range = /^(\d+)-(\d+)$/.exec(value);
  if (range !== null && Number(range[1]) <= Number(range[2])) return { from: Number(range[1]), to: Number(range[2]) };
  const limit = Number(value);
  if (!(Number.isInteger(limit) && limit >= 1)) throw new Error(`--conversations must be a positive number or a range A-B, got '${value}'`);
  return { from: 0, to: limit - 1 };
}

async function main(): Promise<void> {
  const s = settings();
  const raw = await readFile(s.data).catch((error: unknown) => {
    throw new Error(`cannot read the LoCoMo data at ${s.data} (${errorMessage(error)}); pass --data PATH to locomo10.json`);
  });
  const conversations = (await readLocomo(s.data)).filter((c) => c.index >= s.range.from && c.index <= s.range.to);
  const env = cleanEnv();
  const base = await mkdtemp(path.join(os.tmpdir(), 'vk-eval-'));
  try {
    progress(`eval: ${conversations.length} conversations from ${s.data}; vaults in ${base}`);

    let audit: EvalResults['audit'];
    let corrected = new Map<string, LocomoQuestion>();
    try {
      const entries = await readAudit(s.audit);
      const all = conversations.flatMap((c) => c.questions);
      const applied = applyAudit(all, entries);
      corrected = new Map(applied.questions.map((q) => [q.id, q]));
      audit = { file: s.audit, recited: applied.recited, dropped: applied.dropped, unmatched: applied.unmatched };
    } catch (error) {
      audit = { error: `audit not applied: ${errorMessage(error)}` };
      progress(`eval: ${audit.error}`);
    }

    const notRun: EvalResults['notRun'] = [];
    const embedders: string[] = [];
    for (const name of s.embedders) {
      const reason = await unavailable(name, env, base);
      if (reason === null) embedders.push(name);
      else {
        notRun.push({ name, reason });
        progress(`eval: ${name} not run: ${reason}`);
      }
    }

    // Vaults and gold sets, once per conversation.
    const prepared: Array<{ conv: LocomoConversation; root: string; dialogIds: Map<string, string>; questions: ScoredQuestion[] }> = [];
    let unknownIds = 0;
    let questionsWithoutEvidence = 0;
    for (const conv of conversations) {
      const root = path.join(base, `conv-${conv.index}`);
      const loaded = await loadConversation(root, conv, { captions: s.captions });
      const known = new Set(loaded.dialogIds.values());
      const questions: ScoredQuestion[] = [];
      for (const q of conv.questions) {
        if (!CATEGORIES.includes(q.category)) continue;
        const gold: ScoredQuestion['gold'] = {};
        const sets: Array<[SetName, LocomoQuestion | undefined]> = [['all', q], ['corrected', 'error' in audit ? undefined : corrected.get(q.id)]];
        for (const [set, version] of sets) {
          if (version === undefined) continue;
          const evidence = version.evidence.filter((id) => known.has(id));
          if (set === 'all') unknownIds += version.evidence.length - evidence.length;
          if (evidence.length === 0) {
            if (set === 'all') questionsWithoutEvidence++;
            continue;
          }
          gold[set] = evidence;
        }
        if (gold.all !== undefined || gold.corrected !== undefined) questions.push({ question: q, gold });
      }
      prepared.push({ conv, root, dialogIds: loaded.dialogIds, questions });
    }
    const counts = (set: SetName): Record<string, number> => {
      const out: Record<string, number> = {};
      for (const p of prepared) for (const q of p.questions) if (q.gold[set] !== undefined) out[q.question.category] = (out[q.question.category] ?? 0) + 1;
      out.all = Object.values(out).reduce((a, b) => a + b, 0);
      return out;
    };

    const systems: SystemResult[] = [];
    if (s.parts.has('facts')) {
      systems.push(bm25System(prepared, s.captions));
      for (const name of embedders) {
        systems.push(...(await embedderSystem(name, prepared, env)));
      }
    }
    const json: { loop?: LoopResults & { summary: Record<string, ReturnType<typeof wikiSummary>> }; updates?: UpdateResults } = {};
    if (s.parts.has('loop')) {
      for (const p of prepared) await setEmbedder(p.root, s.loopEmbedder);
      const answers = goldAnswers(raw);
      const loop = await runLoop(
        prepared.map((p) => ({
          ...p,
          questions: p.questions
            .filter((q) => q.gold.all !== undefined)
            .map((q) => {
              const answer = answers.get(q.question.id);
              return { conversation: p.conv.index, question: q.question, gold: q.gold.all!, ...(answer !== undefined && isShortAnswer(answer) ? { answer } : {}) };
            }),
        })),
        env,
      );
      json.loop = { ...loop, summary: Object.fromEntries(Object.entries(loop.wiki).map(([split, list]) => [split, wikiSummary(list)])) };
      const markdown = `${renderLoop(loop, s.loopEmbedder)}\n\n${machineLine(machineInfo())}`;
      print(markdown);
      if (s.write) await writeSection(BENCHMARKS_DOC, 'eval-loop', markdown);
    }
    if (s.parts.has('updates')) {
      const updates = await runUpdates(path.join(base, 'updates'), env);
      json.updates = updates;
      const markdown = `${renderUpdates(updates)}\n\n${machineLine(machineInfo())}`;
      print(markdown);
      if (s.write) await writeSection(BENCHMARKS_DOC, 'eval-updates', markdown);
    }
    if (s.parts.has('errors')) {
      // How often consolidation is wrong (issue 26): offline and scripted models, its own section in benchmarks.md.
      const args = ['--days', s.errorDays, '--data', s.data, ...(s.write ? [] : ['--no-write'])];
      const errors = await runNode(path.join(import.meta.dirname, 'dream-errors.js'), args, { env });
      if (errors.code !== 0) throw new Error(`dream-errors exited ${errors.code}: ${errors.stderr.trim().split('\n').at(-1) ?? ''}`);
      print(errors.stdout.trim());
    }
    if (s.jsonOut !== undefined && (json.loop !== undefined || json.updates !== undefined)) {
      // NaN (an empty category) is not JSON: it is written as null.
      await writeFile(s.jsonOut, `${JSON.stringify(json, (_key, value: unknown) => (typeof value === 'number' && Number.isNaN(value) ? null : value), 2)}\n`);
      progress(`eval: wrote ${s.jsonOut}`);
    }
    if (!s.parts.has('facts')) return;

    const results: EvalResults = {
      machine: machineInfo(),
      data: {
        file: s.data,
        sha256: createHash('sha256').update(raw).digest('hex'),
        conversations: conversations.length,
        sessions: conversations.reduce((sum, c) => sum + c.sessions.length, 0),
        turns: conversations.reduce((sum, c) => sum + c.sessions.reduce((t, x) => t + x.turns.length, 0), 0),
      },
      settings: { embedders: s.embedders, captions: s.captions, k: K, now: NOW.toISOString(), conversations: conversations.length },
      questions: { all: counts('all'), corrected: counts('corrected') },
      audit,
      evidence: { unknownIds, questionsWithoutEvidence },
      systems,
      notRun,
      reference: REFERENCE,
    };
    const markdown = render(results);
    print(markdown);
    if (s.write) {
      await writeSection(BENCHMARKS_DOC, 'eval', markdown);
      await writeFile(path.join(REPO_ROOT, 'eval-results.json'), `${JSON.stringify(results, null, 2)}\n`);
      progress('eval: wrote docs/benchmarks.md and eval-results.json');
    }
  } finally {
    if (s.keep) progress(`eval: vaults kept in ${base}`);
    else await rm(base, { recursive: true, force: true });
  }
}

/** Each question's gold answer by question id (`locomo_<conversation>_qa<index>`, as readLocomo numbers them), read from the data as published. */
function goldAnswers(raw: Buffer): Map<string, string> {
  const data = JSON.parse(raw.toString('utf8')) as Array<{ qa?: Array<{ answer?: unknown }> }>;
  const out = new Map<string, string>();
  data.forEach((conv, c) =>
    (conv.qa ?? []).forEach((q, i) => {
      const answer = goldText(q.answer);
      if (answer !== null) out.set(`locomo_${c}_qa${i}`, answer);
    }),
  );
  return out;
}

function machineLine(m: MachineInfo): string {
  return `Measured ${m.date.slice(0, 16).replace('T', ' ')} UTC on ${m.cpu}, ${m.cores} cores, Node ${m.node}, load ${m.load1.toFixed(2)}.`;
}

/** Why an embedder cannot run here (null when it can): models are only ever loaded from disk. */
async function unavailable(name: string, env: NodeJS.ProcessEnv, base: string): Promise<string | null> {
  if (name === 'none' || name === 'hash') return null;
  const root = path.join(base, 'probe');
  const config = ConfigSchema.parse({ index: { embedder: name, fallback: 'none' } });
  let warning = '';
  try {
    const embedder = await createEmbedder(config.index, { root, env, onWarning: (m) => (warning = m) });
    // The warning ends with how to fix it and the fallback taken; the cause is what the report needs.
    if (embedder === null) return (warning.split(/ To fix:| Using /)[0] ?? '').trim() || `${name} could not be loaded`;
    await embedder.embed(['probe']);
    return null;
  } catch (error) {
    return errorMessage(error);
  }
}

function bm25System(prepared: ReadonlyArray<{ conv: LocomoConversation; questions: ScoredQuestion[] }>, captions: boolean): SystemResult {
  progress('eval: plain BM25 over the same turns');
  const scores = newScores();
  for (const { conv, questions } of prepared) {
    const docs = conv.sessions.flatMap((session) =>
      session.turns.map((turn) => ({ id: normalizeEvidence([turn.dia_id])[0] ?? turn.dia_id, text: turnText(turn, captions) })),
    );
    const index = buildBm25(docs);
    for (const q of questions) record(scores, q, index.search(q.question.question, K));
  }
  return { name: 'plain BM25 (in this run)', model: 'bm25 k1=1.2 b=0.75 stop words', indexMs: null, search: null, errors: 0, sets: finish(scores) };
}

/**
 * The hybrid search as a user gets it, and, as a diagnostic, the embedder's vector list alone (the
 * full-text list alone is the `none` row), to show what each side brings to the fusion.
 */
async function embedderSystem(
  name: string,
  prepared: ReadonlyArray<{ conv: LocomoConversation; root: string; dialogIds: Map<string, string>; questions: ScoredQuestion[] }>,
  env: NodeJS.ProcessEnv,
): Promise<SystemResult[]> {
  const [{ IndexStore }, { indexUri }, { whereClause }] = await Promise.all([
    import('#src/indexer/store.js'),
    import('#src/indexer/reindex.js'),
    import('#src/indexer/search.js'),
  ]);
  const scores = newScores();
  const vectorScores = newScores();
  let indexMs = 0;
  let errors = 0;
  let model = name;
  const times: number[] = [];
  for (const { conv, root, dialogIds, questions } of prepared) {
    await setEmbedder(root, name);
    const vault = await openVault({ vault: root, env });
    const indexed = await vault.reindex({ onNote: (m) => (m.startsWith('rebuilding') ? undefined : progress(`eval: ${m}`)) });
    indexMs += indexed.ms;
    const embedder = await vault.loadEmbedder();
    model = embedder?.model ?? 'none';
    progress(`eval: ${name} · ${conv.sampleId}: ${indexed.facts} turns indexed in ${duration(indexed.ms)}, ${questions.length} questions`);
    const toDialog = (id: string | null): string | null => (id === null || id === '' ? null : (dialogIds.get(id) ?? null));
    for (const q of questions) {
      let ranked: Array<string | null> = [];
      const started = performance.now();
      try {
        const results = await vault.search(q.question.question, { k: K, kind: 'fact', refresh: false, recordRecall: false, now: NOW });
        ranked = results.map((r) => toDialog(r.id));
      } catch (error) {
        errors++;
        if (errors <= 5) progress(`eval: search failed for "${q.question.question}": ${errorMessage(error)}`);
      }
      times.push(performance.now() - started);
      record(scores, q, ranked);
    }
    if (embedder === null) continue;
    const store = await IndexStore.open(indexUri(vault.ctx), embedder.dimensions);
    try {
      const where = whereClause({ kind: 'fact' });
      for (const q of questions) {
        const [vector] = await embedder.embed([q.question.question]);
        const hits = await store.nearest(vector!, where, K);
        record(vectorScores, q, hits.map((hit) => toDialog(hit.id)));
      }
    } finally {
      store.close();
    }
  }
  const t = summarize(times);
  const hybrid: SystemResult = { name, model, indexMs, search: { p50: t.p50, p95: t.p95 }, errors, sets: finish(scores) };
  if (model === 'none') return [hybrid];
  return [hybrid, { name: `${name}: vector list alone (diagnostic)`, model, indexMs: null, search: null, errors: 0, sets: finish(vectorScores) }];
}

type Scores = Record<SetName, Array<{ category: number; score: QuestionScore }>>;

function newScores(): Scores {
  return { all: [], corrected: [] };
}

function record(scores: Scores, q: ScoredQuestion, ranked: ReadonlyArray<string | null>): void {
  for (const set of ['all', 'corrected'] as const) {
    const gold = q.gold[set];
    if (gold !== undefined) scores[set].push({ category: q.question.category, score: scoreRanking(ranked, gold) });
  }
}

function finish(scores: Scores): SystemResult['sets'] {
  return { all: aggregateByCategory(scores.all), corrected: aggregateByCategory(scores.corrected) };
}

const f3 = (value: number | undefined): string => (value === undefined || Number.isNaN(value) ? 'n/a' : value.toFixed(3));

function render(r: EvalResults): string {
  const m = r.machine;
  const out: string[] = [];
  out.push('### Retrieval quality on LoCoMo (`npm run eval`)', '');
  out.push(
    `Measured ${m.date.slice(0, 16).replace('T', ' ')} UTC on ${m.cpu}, ${m.cores} cores, Node ${m.node}. ` +
      `Data: \`locomo10.json\` (sha256 ${r.data.sha256.slice(0, 12)}…), ${r.data.conversations} conversations, ${r.data.sessions} sessions, ${r.data.turns.toLocaleString('en-US')} turns; ` +
      `one vault per conversation, one day log per session, one fact per turn ("Speaker: text"${r.settings.captions ? ', image captions included' : ''}). ` +
      `Each question of categories 1–4 is searched with k = ${r.settings.k} over facts (\`kind: fact\`, no recall log); ` +
      'recall@k is the share of a question\'s evidence turns in the top k, averaged over questions; MRR counts the first evidence turn in the top 10.',
    '',
  );
  const q = r.questions;
  out.push(
    `Questions: ${q.all.all} as published (${CATEGORIES.map((c) => `cat ${c}: ${q.all[c] ?? 0}`).join(', ')}); ` +
      `${q.corrected.all} in the audit-corrected set (${CATEGORIES.map((c) => `cat ${c}: ${q.corrected[c] ?? 0}`).join(', ')}).`,
  );
  if ('error' in r.audit) out.push(`The audit-corrected set is not reported: ${r.audit.error}.`);
  else {
    out.push(
      `Audit (\`locomo_audit_errors.json\`): ${r.audit.recited} WRONG_CITATION questions scored against the audit's \`correct_evidence\`; ` +
        `${r.audit.dropped} questions whose gold answer the audit finds wrong (hallucinated, temporal, attribution, ambiguous, incomplete) are dropped from the corrected set, ` +
        'since such a question does not reliably ask for what its evidence holds' +
        (r.audit.unmatched.length > 0 ? `; ${r.audit.unmatched.length} audit entries did not match a question and were ignored.` : '.'),
    );
  }
  out.push(
    `Evidence ids are normalized ("D10: 3", "D:11:26", lists and ranges); ${r.evidence.unknownIds} cited ids name no turn of their conversation and are left out` +
      (r.evidence.questionsWithoutEvidence > 0 ? `, which leaves ${r.evidence.questionsWithoutEvidence} questions without evidence (not scored).` : '.'),
    '',
  );

  const rows: string[][] = [['system', 'model', 'set', 'questions', 'recall@5', 'recall@10', 'MRR', 'index time', 'search p50']];
  for (const system of r.systems) {
    for (const set of ['all', 'corrected'] as const) {
      const a = system.sets[set].all;
      if (a === undefined || a.n === 0) continue;
      rows.push([
        system.name,
        `\`${system.model}\``,
        set === 'all' ? 'as published' : 'audit-corrected',
        String(a.n),
        f3(a.recall5),
        f3(a.recall10),
        f3(a.mrr),
        system.indexMs === null ? '' : duration(system.indexMs),
        system.search === null ? '' : ms(system.search.p50),
      ]);
    }
  }
  rows.push([REFERENCE.name, '', 'as published', '', f3(REFERENCE.recall5), f3(REFERENCE.recall10), f3(REFERENCE.mrr), '', '']);
  out.push(markdownTable(rows), '');
  out.push(
    'The embedder rows are the hybrid search a user gets (full-text and vector scores fused into one 0–1 score, docs/cli.md). Rows marked diagnostic score the ' +
      "embedder's vector list alone (the 10 nearest facts); the `none` row is the full-text list alone. Index time is the sum over the " +
      'conversations of `reindex` into a new vault (embedding included, empty cache); search p50 is per question, in process.',
    '',
  );

  for (const [set, label] of [['all', 'as published'], ['corrected', 'audit-corrected']] as const) {
    out.push(`Per category (${label}; recall@10 / MRR):`, '', perCategoryTable(r.systems, set), '');
  }

  const errors = r.systems.filter((x) => x.errors > 0);
  for (const x of errors) out.push(`${x.name}: ${x.errors} searches failed and were scored as empty.`);
  for (const x of r.notRun) out.push(`Not run: **${x.name}** — ${x.reason}`);
  return out.join('\n').trim();
}

/** One row a system: recall@10 / MRR per LoCoMo category and overall, for one question set. */
function perCategoryTable(systems: EvalResults['systems'], set: 'all' | 'corrected'): string {
  const rows: string[][] = [['system', ...CATEGORIES.map((c) => `${c} ${CATEGORY_NAMES[c]}`), 'all']];
  for (const system of systems) {
    const a = system.sets[set];
    rows.push([system.name, ...[...CATEGORIES.map(String), 'all'].map((c) => `${f3(a[c]?.recall10)} / ${f3(a[c]?.mrr)}`)]);
  }
  return markdownTable(rows);
}

try {
  await main();
} catch (error) {
  process.stderr.write(`eval: ${errorMessage(error)}\n`);
  process.exitCode = 1;
}
