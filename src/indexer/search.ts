/**
 * Hybrid search: full-text (BM25 with stemming, over a fact's own text and, at a lower weight, its
 * context) and vector results, fused into one score from 0 to 1. Questions work as queries (query.ts);
 * a superseded keyed value ranks below the current one; a page result is one statement of a section
 * (statements.ts); k, a character budget and a minimum score bound what comes back. Results come
 * in a deterministic order: score, then date (newest first), then path, then line.
 */
import { isGeneratedPage, RECORDS_DIR } from '../vault/layout.js';
import path from 'node:path';
import { isValidDate } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import type { Embedder } from '../embed/embedder.js';
import { byCodeUnit } from '../text/compare.js';
import { appendConfinedSync } from '../vault/confined-write.js';
import type { VaultContext } from '../vault/context.js';
import { parseQuery, passesFilters, termCoverage, titleCoverage, type ParsedQuery } from './query.js';
import { ROW_KINDS, type RowKind } from './rows.js';
import { sqlString, type Hit, type IndexStore } from './store.js';
import { inLineOrder, shownText, toUnits, trimUnit, unitText, type Scored, type Unit } from './units.js';
import { RECALL_FILE } from '../recall/events.js';
import { withoutCitations } from '../text/citation.js';

/**
 * A vector neighbour always exists, however unrelated; below this cosine similarity it is noise, not a
 * match. Feature hashing scores unrelated texts near 0; sentence encoders near 0.1–0.2.
 */
export function minSimilarity(model: string): number {
  return model.startsWith('hash') ? 0.1 : 0.3;
}
/** Superseded values (an older keyed fact, a page's History, a line marked `(until DATE)`) rank at half weight. */
const HISTORY_WEIGHT = 0.5;
const UNTIL_RE = /\(until \d{4}-\d{2}-\d{2}\)\s*$/;
/**
 * A line of a small-talk record (dream/records.ts) says only that greetings were exchanged; it is found through
 * the words of the turns it cites, so it ranks below what was said about anyone, as superseded values do.
 */
const RECORD_WEIGHT = 0.5;
/** A result dated today (a fact's day, a section's newest citation) keeps its score; an old one loses up to 10%, half of that after about three months. */
const RECENCY_WEIGHT = 0.1;
const RECENCY_HALF_LIFE_DAYS = 90;
/**
 * The weight of the context field (a fact's neighbours, a section's title and headings) against the
 * text's own words. Measured on LoCoMo conversations 0–6 (docs/benchmarks.md).
 */
export const CONTEXT_WEIGHT = 0.85;
/**
 * A row whose own text holds all of the query's words scores this much more than one holding none of them
 * (in proportion between): measured on LoCoMo conversations 0–6 (docs/benchmarks.md).
 */
const COVERAGE_WEIGHT = 0.05;
/**
 * A page statement whose page title the query names (all of its words) scores this much more, in proportion to
 * the title words named: the dream files a subject's statements on its page (measured on LoCoMo conversations 0–6,
 * docs/benchmarks.md). Facts have no title; a score above 1 is shown as 1.
 */
export const TITLE_WEIGHT = 0.2;
/** The BM25 score that maps to 0.5: a full-text score s becomes s / (s + TEXT_HALF_SCORE), in 0–1 (about 0.3 for one word in a vault of a few facts, 0.7–0.9 for a question's rarer words in thousands). */
const TEXT_HALF_SCORE = 4;

export interface SearchOptions {
  k?: number;
  kind?: RowKind | undefined;
  category?: string | undefined;
  tag?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  /** Include archived pages (5_Archives/ or status: archived). */
  archived?: boolean | undefined;
  /** A budget on the characters of all results' text together: results past it are left out. */
  maxChars?: number | undefined;
  /** Leave out results scoring below this (0–1). */
  minScore?: number | undefined;
  now?: Date;
  /** The vector list's weight in the fusion (default DEFAULT_VECTOR_WEIGHT; env VAULTKEEPER_VECTOR_WEIGHT for experiments). */
  vectorWeight?: number;
  /** Append a recall event to .vaultkeeper/recall.jsonl (default true). */
  recordRecall?: boolean;
}

export interface SearchResult {
  kind: RowKind;
  path: string;
  /** The lines shown: a fact's line, or the first line of a page result's first statement and the last of its last. */
  line: number;
  line_end: number;
  /**
   * Each statement shown, in line order (a fact: its line), so a caller can tell the lines of the text from the
   * lines between them, with the fact ids it cites (a page line's inline citations, left out of `text`).
   */
  statements: Array<{ line: number; line_end: number; citations: string[] }>;
  /** The whole section a page result comes from (a fact: its line), to read the rest. */
  section: { line: number; line_end: number };
  id: string | null;
  title: string | null;
  heading: string | null;
  /** The section's headings, outermost first, joined by ' > ' (null for a fact). */
  heading_path: string | null;
  /** What to read: a fact's text, or a page result's statements in line order without their inline citations (see `statements`). */
  text: string;
  /** 0–1, higher is better (docs/cli.md). */
  score: number;
  date: string | null;
  link: string;
  category: string | null;
  tags: string[];
  citations: string[];
}

export function validateSearch(query: string, options: SearchOptions): void {
  if (query.trim() === '') throw new UsageError('search needs a query', 'e.g. vaultkeeper search "coffee preferences"');
  if (options.kind !== undefined && !ROW_KINDS.includes(options.kind)) {
    throw new UsageError(`unknown kind '${options.kind}'`, `use one of: ${ROW_KINDS.join(', ')}`);
  }
  for (const [name, value] of [['--since', options.since], ['--until', options.until]] as const) {
    if (value !== undefined && !isValidDate(value)) throw new UsageError(`${name} must be a date YYYY-MM-DD, got '${value}'`);
  }
  if (options.k !== undefined && (!Number.isInteger(options.k) || options.k < 1 || options.k > 1000)) {
    throw new UsageError(`-k must be a whole number from 1 to 1000, got '${options.k}'`);
  }
  if (options.maxChars !== undefined && (!Number.isInteger(options.maxChars) || options.maxChars < 1)) {
    throw new UsageError(`--max-chars must be a positive whole number, got '${options.maxChars}'`);
  }
  if (options.minScore !== undefined && !(options.minScore >= 0 && options.minScore <= 1)) {
    throw new UsageError(`--min-score must be a number from 0 to 1, got '${options.minScore}'`);
  }
  parseQuery(query);
}

export function whereClause(options: SearchOptions): string | null {
  const parts: string[] = [];
  if (options.kind !== undefined) parts.push(`kind = ${sqlString(options.kind)}`);
  if (options.category !== undefined) parts.push(`category = ${sqlString(options.category.toLowerCase())}`);
  if (options.tag !== undefined) parts.push(`array_has(tags, ${sqlString(options.tag.replace(/^#/, ''))})`);
  if (options.since !== undefined) parts.push(`date >= ${sqlString(options.since)}`);
  if (options.until !== undefined) parts.push(`date <= ${sqlString(options.until)}`);
  if (!options.archived) parts.push('archived = false');
  return parts.length === 0 ? null : parts.join(' AND ');
}

export async function search(
  ctx: VaultContext,
  store: IndexStore,
  embedder: Embedder | null,
  query: string,
  options: SearchOptions = {},
): Promise<SearchResult[]> {
  validateSearch(query, options);
  const parsed = parseQuery(query);
  const k = options.k ?? 10;
  const filtered = parsed.phrases.length > 0 || parsed.excluded.length > 0;
  const depth = Math.max(50, k * 5) * (filtered ? 4 : 1);
  const where = whereClause(options);
  // The filters besides the archived flag, which the store applies as it finds best (store.ts).
  const filter = { where: whereClause({ ...options, archived: true }), archived: options.archived ?? false };
  const terms = [...new Set([...parsed.terms, ...parsed.phrases.flatMap((p) => p.split(' '))])];
  const [text, vectorHits] = await Promise.all([
    store.fullTextWithState({ terms, contextWeight: CONTEXT_WEIGHT }, filter, depth),
    embedder === null
      ? Promise.resolve([] as Hit[])
      : embedder.embed([query]).then(async ([vector]) => {
          const floor = 1 - minSimilarity(embedder.model);
          return (await store.nearest(vector!, where, depth)).filter((hit) => hit.raw <= floor);
        }),
  ]);
  const textHits = text.hits;
  const keep = (hit: Hit): boolean => passesFilters(hit.kind === 'fact' ? hit.text : `${hit.title}\n${hit.heading_path}\n${hit.text}`, parsed);
  const floor = embedder === null ? 0 : minSimilarity(embedder.model);
  const scored = fuse(filtered ? textHits.filter(keep) : textHits, filtered ? vectorHits.filter(keep) : vectorHits, {
    vectorWeight: embedder === null ? 0 : vectorWeight(options),
    similarityFloor: floor,
    now: options.now ?? new Date(),
    query: parsed,
  });
  const current = await supersede(store, scored, filter, text.state);
  const results = bound(distinct(rank(toUnits(withoutRepeats(current)))), k, options).map(toResult);
  if (options.recordRecall ?? true) await recordSearch(ctx, query, options, results);
  return results;
}

/** Appends the search's recall event to .vaultkeeper/recall.jsonl (what `recordRecall` asks for). */
export async function recordSearch(ctx: VaultContext, query: string, options: SearchOptions, results: readonly SearchResult[]): Promise<void> {
  // A recall event only ranks MEMORY.md; on a read-only or full disk the answer matters more than the count.
  await recordRecall(ctx.root, query, options, results).catch((error: unknown) => {
    if (!['EROFS', 'EACCES', 'EPERM', 'ENOSPC'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  });
}

/**
 * The vector list's weight in the fusion, relative to full text. Measured with use-lite on LoCoMo conversations 0–6,
 * before and after the dream (docs/benchmarks.md): 0.25 finds the most; higher weights let weak vector neighbours
 * push exact full-text matches out of the top 10.
 */
export const DEFAULT_VECTOR_WEIGHT = 0.25;

function vectorWeight(options: SearchOptions): number {
  const fromEnv = Number(process.env.VAULTKEEPER_VECTOR_WEIGHT);
  return options.vectorWeight ?? (Number.isFinite(fromEnv) && process.env.VAULTKEEPER_VECTOR_WEIGHT !== undefined ? fromEnv : DEFAULT_VECTOR_WEIGHT);
}

/**
 * One score from 0 to 1 per hit: the full-text score squashed as s / (s + TEXT_HALF_SCORE), the vector
 * similarity rescaled from its noise floor to 1, averaged by weight (DEFAULT_VECTOR_WEIGHT); then up to 5% less for a row whose own
 * text lacks the query's words, a page's History at half weight and a fact's age as a small discount.
 */
export function fuse(
  textHits: readonly Hit[],
  vectorHits: readonly Hit[],
  options: { vectorWeight: number; similarityFloor: number; now: Date; query: ParsedQuery },
): Scored[] {
  const byKey = new Map<string, { hit: Hit; text: number; vector: number }>();
  for (const hit of textHits) byKey.set(hit.key, { hit, text: hit.raw / (hit.raw + TEXT_HALF_SCORE), vector: 0 });
  for (const hit of vectorHits) {
    const similarity = Math.max(0, (1 - hit.raw - options.similarityFloor) / (1 - options.similarityFloor));
    const entry = byKey.get(hit.key) ?? { hit, text: 0, vector: 0 };
    entry.vector = similarity;
    byKey.set(hit.key, entry);
  }
  const today = options.now.getTime();
  // The sections of one page share its title: each title's coverage is worked out once.
  const titles = new Map<string, number>();
  const titleShare = (title: string): number => {
    let share = titles.get(title);
    if (share === undefined) titles.set(title, (share = titleCoverage(title, options.query)));
    return share;
  };
  return [...byKey.values()].map(({ hit, text, vector }) => {
    let score = (text + options.vectorWeight * vector) / (1 + options.vectorWeight);
    score *= (1 + COVERAGE_WEIGHT * termCoverage(hit.text, options.query)) / (1 + COVERAGE_WEIGHT);
    if (hit.kind === 'page') score *= 1 + TITLE_WEIGHT * titleShare(hit.title);
    // A page's History holds superseded values (schema.md): findable, below current ones. Its Conflicts hold the
    // newest values of a subject, disputed: they keep their weight, since nothing newer exists.
    // A line ending in `(until DATE)` is a superseded value wherever it stands (a page's Mentions repeat one so).
    if (hit.kind !== 'fact' && (/(^|> )History( >|$)/i.test(hit.heading_path) || UNTIL_RE.test(hit.text))) score *= HISTORY_WEIGHT;
    if (hit.kind === 'page' && hit.path.startsWith(RECORDS_DIR)) score *= RECORD_WEIGHT;
    if (hit.date !== null) {
      const ageDays = Math.max(0, (today - Date.parse(`${hit.date}T12:00:00Z`)) / 86_400_000);
      score *= 1 - RECENCY_WEIGHT * (1 - 0.5 ** (ageDays / RECENCY_HALF_LIFE_DAYS));
    }
    return { hit, score };
  });
}

/**
 * Among keyed facts of one subject only the newest value (latest date, then the later-written line)
 * keeps its score; older ones rank as History does, whether or not the newest was found too, and below
 * the newest when it was: a keyed line's few words outscore the plain sentence that changed it
 * ("home city:: Berlin", then "I moved to Lisbon last weekend"; text/state-change.ts).
 */
async function supersede(store: IndexStore, scored: Scored[], filter: { where: string | null; archived: boolean }, state: string | null): Promise<Scored[]> {
  const subjects = [...new Set(scored.filter((s) => s.hit.subject !== '').map((s) => s.hit.subject))];
  if (subjects.length === 0) return scored;
  // At the table state the full-text query ended at (store.ts), without reading it again.
  const newest = await store.newestKeyed(subjects, filter, state);
  const found = new Map(scored.filter((s) => s.hit.subject !== '').map((s) => [s.hit.key, s.score]));
  return scored.map((entry) => {
    const current = entry.hit.subject === '' ? undefined : newest.get(entry.hit.subject);
    if (current === undefined || current.key === entry.hit.key) return entry;
    const score = entry.score * HISTORY_WEIGHT;
    const below = found.get(current.key);
    return { ...entry, score: below === undefined ? score : Math.min(score, below * SUPERSEDED_BELOW) };
  });
}

/** How far below its subject's current value a found older value ranks at most. */
const SUPERSEDED_BELOW = 0.99;

/** The documented order: score, then date (newest first), then path, then line. */
function rank(units: Unit[]): Unit[] {
  const keyed = units.map((unit) => ({ unit, date: newest(unit.members), line: Math.min(...unit.members.map((m) => m.hit.line)) }));
  keyed.sort(
    (a, b) =>
      b.unit.score - a.unit.score ||
      byCodeUnit(b.date ?? '', a.date ?? '') ||
      byCodeUnit(a.unit.members[0]!.hit.path, b.unit.members[0]!.hit.path) ||
      a.line - b.line,
  );
  return keyed.map((entry) => entry.unit);
}

/** A MEMORY.md line's text as its page states it: without the list marker and the " — [[Page]]" it ends with. */
const CORE_SOURCE_RE = /\s+—\s+\[\[[^\]]+\]\]\s*$/u;
const statementKey = (hit: Hit): string =>
  withoutCitations(hit.kind === 'core' ? hit.text.replace(CORE_SOURCE_RE, '') : hit.text)
    .replace(/^\s*[-*+]\s+/u, '')
    .trim();

/**
 * A MEMORY.md line repeats a page's statement without its citation: where the page line was found too, the
 * page line stands for both (it shows when it was said, and its fact), at the better of their scores.
 */
export function withoutRepeats(scored: readonly Scored[]): Scored[] {
  const pages = new Map<string, number>();
  scored.forEach((s, i) => {
    if (s.hit.kind === 'page' && s.hit.citations.length > 0) pages.set(statementKey(s.hit), i);
  });
  if (pages.size === 0) return [...scored];
  const out = [...scored];
  const dropped = new Set<number>();
  scored.forEach((s, i) => {
    if (s.hit.kind !== 'core') return;
    const page = pages.get(statementKey(s.hit));
    if (page === undefined) return;
    dropped.add(i);
    if (s.score > out[page]!.score) out[page] = { ...out[page]!, score: s.score };
  });
  return out.filter((_, i) => !dropped.has(i));
}

/**
 * One fact, one slot (issue 25): a statement whose facts a better result already shows (a MEMORY.md line
 * and the page line it repeats, a page's lead and the note it quotes, a mention and its statement, a fact
 * and the page line citing it) is left out; a unit keeps its members that add a fact.
 */
/** The section of a page's summaries of lists (docs/formats.md). */
const AT_A_GLANCE = 'At a glance';

function distinct(units: readonly Unit[]): Unit[] {
  const shown = new Set<string>();
  const out: Unit[] = [];
  for (const unit of units) {
    const ids = (m: Scored): string[] => (m.hit.kind === 'fact' ? [m.hit.id] : m.hit.citations);
    const members = unit.members.filter((m) => ids(m).length === 0 || ids(m).some((id) => !shown.has(id)));
    if (members.length === 0) continue;
    // A digest lists what was learned: it places no fact (DESIGN §6), so it takes no fact's slot either. A
    // summary of lists (`## At a glance`, dream/summaries.ts) names each thing in a word or two: the lines it
    // gathers keep their slots, since they tell the rest.
    for (const m of members) if (!isGeneratedPage(m.hit.path) && m.hit.heading !== AT_A_GLANCE) for (const id of ids(m)) shown.add(id);
    out.push(members.length === unit.members.length ? unit : { members, score: unit.score });
  }
  return out;
}

/**
 * The first k units above the minimum score whose texts fit the character budget together: a unit that
 * does not fit whole keeps its best statements that do, and the first is cut to fit if need be.
 */
function bound(units: readonly Unit[], k: number, options: SearchOptions): Unit[] {
  const out: Unit[] = [];
  let chars = 0;
  for (const unit of units) {
    if (out.length >= k || shownScore(unit.score) < (options.minScore ?? 0)) break;
    const length = unitText(unit.members).length;
    if (options.maxChars !== undefined && chars + length > options.maxChars) {
      const trimmed = trimUnit(unit, options.maxChars - chars);
      if (trimmed !== null) out.push(trimmed);
      else if (out.length === 0) out.push(cut(unit, options.maxChars));
      break;
    }
    chars += length;
    out.push(unit);
  }
  return out;
}

/** The anchor alone, its text cut to `maxChars`. */
function cut(unit: Unit, maxChars: number): Unit {
  const anchor = unit.members[0]!;
  return { members: [{ ...anchor, hit: { ...anchor.hit, text: shownText(anchor.hit).slice(0, maxChars) } }], score: unit.score };
}

/** The score as reported, which --min-score compares against. */
function shownScore(score: number): number {
  return Math.round(Math.min(1, score) * 1e6) / 1e6;
}

function newest(members: readonly Scored[]): string | null {
  let date: string | null = null;
  for (const { hit } of members) if (hit.date !== null && (date === null || hit.date > date)) date = hit.date;
  return date;
}

function toResult(unit: Unit): SearchResult {
  const hit = unit.members[0]!.hit;
  const members = inLineOrder(unit.members);
  return {
    kind: hit.kind,
    path: hit.path,
    line: members[0]!.hit.line,
    line_end: Math.max(...members.map((m) => m.hit.line_end)),
    statements: members.map((m) => ({ line: m.hit.line, line_end: m.hit.line_end, citations: m.hit.citations })),
    section: { line: hit.section_line, line_end: hit.section_end },
    id: hit.id === '' ? null : hit.id,
    title: hit.title === '' ? null : hit.title,
    heading: hit.heading === '' ? null : hit.heading,
    heading_path: hit.heading_path === '' ? null : hit.heading_path,
    text: unitText(members),
    score: shownScore(unit.score),
    date: newest(members),
    link: obsidianLink(hit),
    category: hit.category === '' ? null : hit.category,
    tags: hit.tags,
    citations: [...new Set(members.flatMap((m) => m.hit.citations))],
  };
}

/** `[[2026-06-09#^f-…]]` for a fact, `[[Page#Heading]]` for a page section. */
export function obsidianLink(hit: Pick<Hit, 'kind' | 'path' | 'id' | 'date' | 'heading'>): string {
  if (hit.kind === 'fact') return `[[${hit.date}#^${hit.id}]]`;
  const name = path.posix.basename(hit.path, '.md');
  const heading = hit.heading.replace(/[[\]|#^]/g, ' ').trim();
  return heading === '' ? `[[${name}]]` : `[[${name}#${heading}]]`;
}

async function recordRecall(root: string, query: string, options: SearchOptions, results: readonly SearchResult[]): Promise<void> {
  const filters = Object.fromEntries(
    Object.entries({ kind: options.kind, category: options.category, tag: options.tag, since: options.since, until: options.until }).filter(([, v]) => v !== undefined),
  );
  const event = {
    at: (options.now ?? new Date()).toISOString(),
    query,
    filters,
    results: results.map((r) => ({ kind: r.kind, path: r.path, line: r.line, id: r.id, score: r.score })),
  };
  appendConfinedSync(root, RECALL_FILE, `${JSON.stringify(event)}\n`);
}
