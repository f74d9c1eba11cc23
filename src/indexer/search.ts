/**
 * Hybrid search: full-text (BM25 with stemming) and vector results fused by reciprocal rank fusion,
 * with a light recency boost for facts and filters pushed into both queries. Results come in a
 * deterministic order: score, then date (newest first), then path, then line.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { isValidDate } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import type { Embedder } from '../embed/embedder.js';
import type { VaultContext } from '../vault/context.js';
import { ROW_KINDS, type RowKind } from './rows.js';
import { sqlString, type Hit, type IndexStore } from './store.js';

export const RECALL_FILE = '.vaultkeeper/recall.jsonl';
/** The usual RRF constant: ranks deep in one list still count, the top of either list dominates. */
const RRF_K = 60;
/**
 * A vector neighbour always exists, however unrelated; below this cosine similarity it is noise, not a
 * match. Feature hashing scores unrelated texts near 0; sentence encoders near 0.1–0.2.
 */
export function minSimilarity(model: string): number {
  return model.startsWith('hash') ? 0.1 : 0.3;
}
/** Superseded and disputed values rank at half weight. */
const HISTORY_WEIGHT = 0.5;
/** At most +10% for a fact from today, fading with a half-life of about three months. */
const RECENCY_WEIGHT = 0.1;
const RECENCY_HALF_LIFE_DAYS = 90;

export interface SearchOptions {
  k?: number;
  kind?: RowKind | undefined;
  category?: string | undefined;
  tag?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  /** Include archived pages (5_Archives/ or status: archived). */
  archived?: boolean | undefined;
  now?: Date;
  /** The vector list's weight in the fusion (default DEFAULT_VECTOR_WEIGHT; env VAULTKEEPER_VECTOR_WEIGHT for experiments). */
  vectorWeight?: number;
  /** Append a recall event to .vaultkeeper/recall.jsonl (default true). */
  recordRecall?: boolean;
}

export interface SearchResult {
  kind: RowKind;
  path: string;
  line: number;
  line_end: number;
  id: string | null;
  title: string | null;
  heading: string | null;
  text: string;
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
  const k = options.k ?? 10;
  const depth = Math.max(50, k * 5);
  const where = whereClause(options);
  const [textHits, vectorHits] = await Promise.all([
    store.fullText(query, where, depth),
    embedder === null
      ? Promise.resolve([] as Hit[])
      : embedder.embed([query]).then(async ([vector]) => {
          const floor = 1 - minSimilarity(embedder.model);
          return (await store.nearest(vector!, where, depth)).filter((hit) => hit.raw <= floor);
        }),
  ]);
  const results = fuse([textHits, vectorHits], options.now ?? new Date(), [1, vectorWeight(options)]).slice(0, k);
  if (options.recordRecall ?? true) await recordRecall(ctx.root, query, options, results);
  return results;
}

/**
 * The vector list's weight in the fusion, relative to full text. Measured on LoCoMo (docs/benchmarks.md):
 * equal weights let weak vector neighbours push exact full-text matches out of the top 10.
 */
export const DEFAULT_VECTOR_WEIGHT = 0.5;

function vectorWeight(options: SearchOptions): number {
  const fromEnv = Number(process.env.VAULTKEEPER_VECTOR_WEIGHT);
  return options.vectorWeight ?? (Number.isFinite(fromEnv) && process.env.VAULTKEEPER_VECTOR_WEIGHT !== undefined ? fromEnv : DEFAULT_VECTOR_WEIGHT);
}

/** Weighted reciprocal rank fusion of ranked lists, then the recency boost, then the deterministic order. */
export function fuse(lists: ReadonlyArray<readonly Hit[]>, now: Date, weights: readonly number[] = []): SearchResult[] {
  const byKey = new Map<string, { hit: Hit; score: number }>();
  for (const [which, list] of lists.entries()) {
    const weight = weights[which] ?? 1;
    let rank = 0;
    list.forEach((hit, index) => {
      // Equal scores share a rank, so ties are broken by the documented order, not by storage order.
      if (index === 0 || Math.abs(hit.raw - list[index - 1]!.raw) > 1e-9) rank = index;
      const entry = byKey.get(hit.key) ?? { hit, score: 0 };
      entry.score += weight / (RRF_K + rank + 1);
      byKey.set(hit.key, entry);
    });
  }
  const today = now.getTime();
  const results = [...byKey.values()].map(({ hit, score }) => {
    let boosted = score;
    // A page's History and Conflicts sections hold superseded or disputed values (schema.md): findable, below current ones.
    if (hit.kind !== 'fact' && /(^|> )(History|Conflicts)( >|$)/i.test(hit.heading_path)) boosted *= HISTORY_WEIGHT;
    if (hit.kind === 'fact' && hit.date !== null) {
      const ageDays = Math.max(0, (today - Date.parse(`${hit.date}T12:00:00Z`)) / 86_400_000);
      boosted *= 1 + RECENCY_WEIGHT * 0.5 ** (ageDays / RECENCY_HALF_LIFE_DAYS);
    }
    return toResult(hit, Math.round(boosted * 1e6) / 1e6);
  });
  return results.sort(
    (a, b) =>
      b.score - a.score ||
      (b.date ?? '').localeCompare(a.date ?? '') ||
      a.path.localeCompare(b.path) ||
      a.line - b.line,
  );
}

function toResult(hit: Hit, score: number): SearchResult {
  return {
    kind: hit.kind,
    path: hit.path,
    line: hit.line,
    line_end: hit.line_end,
    id: hit.id === '' ? null : hit.id,
    title: hit.title === '' ? null : hit.title,
    heading: hit.heading === '' ? null : hit.heading,
    text: hit.text,
    score,
    date: hit.date,
    link: obsidianLink(hit),
    category: hit.category === '' ? null : hit.category,
    tags: hit.tags,
    citations: hit.citations,
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
  const file = path.join(root, RECALL_FILE);
  await mkdir(path.dirname(file), { recursive: true });
  const filters = Object.fromEntries(
    Object.entries({ kind: options.kind, category: options.category, tag: options.tag, since: options.since, until: options.until }).filter(([, v]) => v !== undefined),
  );
  const event = {
    at: (options.now ?? new Date()).toISOString(),
    query,
    filters,
    results: results.map((r) => ({ kind: r.kind, path: r.path, line: r.line, id: r.id, score: r.score })),
  };
  await appendFile(file, `${JSON.stringify(event)}\n`, 'utf8');
}
