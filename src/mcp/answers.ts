/**
 * The other tools' answers in the two forms memory_search's take (search-output.ts): compact text for the model
 * (a line an item: where, the statement, its citation; the notes that name a next step) and the full data as
 * `structuredContent` under each tool's outputSchema. The schemas declare the main fields and let the rest
 * through undeclared, so the schemas every tools/list carries stay short (docs/integrations.md lists them all).
 */
import { z } from 'zod';
import type { DreamResult } from '../dream/runner.js';
import type { SubjectContext } from '../recall/context.js';
import type { RecentActivity } from '../recall/recent.js';
import type { ForgetResult } from '../tombstones/forget.js';
import type { VaultStatus } from '../vault/status.js';

const nullableString = z.string().nullable();
/**
 * A listed item declares the field that names it; its other fields (a fact's date, text, link…) pass through.
 * Each declared field costs every tools/list a few dozen characters (docs/benchmarks.md, mcp-tokens).
 */
const FactItem = z.looseObject({ id: z.string() });
const PageItem = z.looseObject({ path: z.string() });

export const RememberOutput = z.looseObject({
  facts: z.array(FactItem),
  commit: nullableString,
  late: z.array(z.string()),
});

export const ForgetOutput = z.looseObject({
  tombstoned: z.array(FactItem),
  already: z.array(FactItem),
  pages: z.array(PageItem),
  commit: nullableString,
  note: z.string(),
});

export const ReadOutput = z.object({
  path: z.string(),
  from_line: z.number(),
  to_line: z.number(),
  total_lines: z.number().nullable(),
  truncated: z.boolean(),
  text: z.string(),
});

export const ConsolidateOutput = z.looseObject({ status: z.string(), run: nullableString, reason: z.string(), next: z.string().optional(), diff: z.string().optional() });

export const StatusOutput = z.looseObject({ vault: z.string(), watermark: nullableString, pending_days: z.number(), facts_pending: z.number() });

export const ContextOutput = z.looseObject({
  subject: z.string(),
  pages: z.array(PageItem),
  linked: z.array(PageItem),
  recent_facts: z.array(FactItem),
  commitments: z.array(FactItem),
});

export const RecentOutput = z.looseObject({
  since: z.string(),
  facts: z.array(FactItem),
  pages: z.array(PageItem),
  dreams: z.array(z.looseObject({ run: z.string() })),
});

/** A fact's place as a search line gives it: its day and line (the log logs/DAY.md), or its path when not a day's log. */
export function factPlace(fact: { date: string; path?: string; line?: number }): string {
  const day = fact.path === undefined || fact.path === `logs/${fact.date}.md` ? fact.date : fact.path;
  return fact.line === undefined ? day : `${day}:${fact.line}`;
}

const factLine = (fact: { id: string; date: string; text: string; path?: string; line?: number }): string => `${factPlace(fact)} ${oneLine(fact.text)} ^${fact.id}`;
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' / ').trim();
const lines = (parts: ReadonlyArray<string | null | undefined | false>): string => `${parts.filter((p): p is string => typeof p === 'string' && p !== '').join('\n')}\n`;

export interface RememberAnswer {
  facts: Array<{ id: string; date: string; path: string; line: number; text: string }>;
  commit: string | null;
  warning?: string;
  note?: string;
  hidden_note?: string;
  redacted_note?: string;
}

export function rememberText(answer: RememberAnswer): string {
  return lines([
    ...answer.facts.map((f) => `remembered ${factLine(f)}`),
    answer.commit === null ? null : `commit ${answer.commit.slice(0, 8)}`,
    answer.warning,
    answer.note,
    answer.hidden_note,
    answer.redacted_note,
  ]);
}

export function forgetText(result: ForgetResult & { note: string }): string {
  return lines([
    result.note,
    ...result.tombstoned.map((f) => `forgot ${factLine(f)}`),
    ...result.already.map((f) => `already forgotten ^${f.id}`),
    ...result.pages.map((p) => `removed ${p.lines} ${p.lines === 1 ? 'line' : 'lines'} from ${p.path}`),
    result.memory.changed ? `removed ${result.memory.removed} ${result.memory.removed === 1 ? 'fact' : 'facts'} from MEMORY.md` : null,
    result.commit === null ? null : `commit ${result.commit.slice(0, 8)}`,
  ]);
}

export function consolidateText(summary: Omit<DreamResult, 'diff'> & { next: string | undefined }): string {
  const batch = summary.batch === null ? '' : ` ${summary.batch.from}..${summary.batch.to}`;
  const counts =
    summary.status === 'ok' || summary.status === 'dry-run'
      ? `${summary.facts} facts, ${summary.placed} placed, ${summary.uncited} to the inbox, ${summary.conflicts} conflicts; pages ${pageCounts(summary.pages)}; ${summary.consolidator ?? 'no'} consolidator${summary.fallback === null ? '' : ` (${summary.fallback})`}`
      : null;
  return lines([`${summary.status}${batch}: ${oneLine(summary.reason)}`, counts, summary.next]);
}

function pageCounts(pages: DreamResult['pages']): string {
  return `${pages.created.length} created, ${pages.updated.length} updated, ${pages.archived.length} archived`;
}

export function statusText(status: VaultStatus): string {
  const dream = status.dream;
  const next = dream.next_check_at === null ? 'no daemon: nothing checks until a dream is asked for' : `next check ${dream.next_check_at}`;
  return lines([
    `watermark ${status.watermark ?? '(none yet)'}; pending ${status.pending_days} days, ${status.facts_pending} facts${status.pending_days > 0 ? ` (${status.pending[0]}..${status.pending.at(-1)})` : ''}`,
    status.skipped.length > 0 ? `skipped days: ${status.skipped.join(', ')}` : null,
    `dream: last ${dream.last_status ?? 'never'}${dream.last_run === null ? '' : ` (${dream.last_run})`}; ${next}: ${dream.will_run ? 'runs' : dream.decision === 'noop' ? 'nothing to do' : `held by ${dream.gate}`} (${dream.reason})`,
    status.index === null ? 'index not built yet' : `index ${status.index.rows} rows (${status.index.facts} facts, ${status.index.pages} page sections, ${status.index.core} core), ${status.index.embedder ?? 'full text'}`,
    `daemon ${status.daemon.running ? `running (pid ${status.daemon.pid})` : 'not running'}`,
    ...status.last_errors.map((e) => `error ${e.job} (${e.consecutive_failures}× in a row): ${e.error}`),
  ]);
}

export function contextText(context: SubjectContext): string {
  const omitted = Object.entries(context.omitted).filter(([, n]) => n > 0);
  return lines([
    ...context.pages.flatMap((page) => [
      `${page.link} ${page.path}: ${page.title}`,
      page.lead === '' ? null : oneLine(page.lead),
      page.current.length === 0 ? null : `current: ${page.current.map((c) => `${c.key}: ${c.value}`).join('; ')}`,
      ...page.open_tasks.map((task) => `open: ${oneLine(task)}`),
    ]),
    context.pages.length === 0 ? `no page about ${context.subject}` : null,
    context.linked.length === 0 ? null : `linked: ${context.linked.map((l) => `${l.link}${l.direction === 'in' ? ' (links here)' : ''}`).join(', ')}`,
    context.recent_facts.length === 0 ? null : 'facts:',
    ...context.recent_facts.map(factLine),
    context.commitments.length === 0 ? null : 'commitments:',
    ...context.commitments.map(factLine),
    omitted.length === 0 ? null : `left out for the budget: ${omitted.map(([k, n]) => `${n} ${k.replace('_', ' ')}`).join(', ')}`,
  ]);
}

export function recentText(recent: RecentActivity): string {
  const omitted = Object.entries(recent.omitted).filter(([, n]) => n > 0);
  return lines([
    `since ${recent.since}`,
    recent.facts.length === 0 ? 'no new facts' : 'facts:',
    ...recent.facts.map(factLine),
    recent.pages.length === 0 ? null : 'pages:',
    ...recent.pages.map((p) => `${p.date} ${p.path} ${p.link} by ${p.by}${p.op === null ? '' : ` (${p.op})`}`),
    recent.dreams.length === 0 ? null : 'dreams:',
    ...recent.dreams.map((d) => `${d.at.slice(0, 10)} run ${d.run} ${d.outcome}: ${oneLine(d.detail)}`),
    omitted.length === 0 ? null : `left out by limit: ${omitted.map(([k, n]) => `${n} ${k}`).join(', ')}`,
  ]);
}
