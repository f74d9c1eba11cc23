/**
 * Discovery (opt-in, weekly, LLM): for each wiki page, its nearest pages by search are shown to the
 * model, which proposes links between them, contradictions across them and open questions. Links are
 * added under a `## Related` section of the linking page (lines are only ever inserted, so a person's
 * lines stay as they were); contradictions and questions go to a checklist page for a person. The LLM
 * phase writes nothing: everything is applied at the end, under the write lock, in one commit.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { VaultkeeperError } from '../../core/errors.js';
import { writeFileAtomic } from '../../dream/tools/atomic.js';
import { withWriteLock } from '../../core/lock.js';
import { commitPaths } from '../../git/audit.js';
import type { LlmExecutor } from '../../llm/executor.js';
import { listWikiPages } from '../../pages/discover.js';
import { linkResolver, type LinkResolver } from '../../pages/links.js';
import { parsePage } from '../../pages/parse.js';
import { confinedPath, pageWriteTarget } from '../../vault/confine.js';
import { writeConfined } from '../../vault/confined-write.js';
import { ARCHIVE_DIR, DASHBOARD_PAGE, DIGESTS_DIR } from '../../vault/layout.js';
import type { Vault } from '../../vault/vault.js';
import { byText } from '../../text/compare.js';

export const INSIGHTS_PAGE = '0_Inbox/insights.md';
const STATE_FILE = '.vaultkeeper/discover-state.json';
/** Folders (and the dashboard page) whose pages are not linked by discovery. */
const SKIPPED_DIRS = ['0_Inbox/', ARCHIVE_DIR, DIGESTS_DIR, DASHBOARD_PAGE];
const DEFAULT_MAX_PAGES = 50;
const PAGE_CHARS = 4000;
const EXCERPT_CHARS = 400;
const WHY_CHARS = 160;

const SYSTEM_PROMPT = `You connect the pages of a personal knowledge vault. You are shown one page and pages that search found near it.
Answer with one JSON object and nothing else:
{"links": [{"from": "<page path>", "to": "<page path>", "why": "<a few words>"}],
 "contradictions": [{"pages": ["<page path>", ...], "note": "<what disagrees>"}],
 "questions": [{"page": "<page path>", "question": "<an open question worth asking the person>"}]}
Propose a link only between pages that are genuinely related and use the paths exactly as shown. Report a contradiction only when the pages state incompatible things. Empty lists are fine.`;

const Reply = z.object({
  links: z.array(z.object({ from: z.string().min(1), to: z.string().min(1), why: z.string().default('') })).default([]),
  contradictions: z.array(z.object({ pages: z.array(z.string().min(1)).min(1), note: z.string().min(1) })).default([]),
  questions: z.array(z.object({ page: z.string().min(1), question: z.string().min(1) })).default([]),
});
type Reply = z.infer<typeof Reply>;

const State = z.object({ visited: z.record(z.string(), z.string()).default({}) });

export interface DiscoverOptions {
  now?: Date;
  /** Most pages shown to the model in one run, least recently visited first. Default 50. */
  maxPages?: number;
  signal?: AbortSignal;
}

export interface DiscoverResult {
  /** Pages shown to the model. */
  pages: number;
  /** Pages whose reply was not the JSON asked for (skipped). */
  invalid: number;
  links: number;
  /** Proposals dropped: a self-link, a missing or skipped page, a link already there. */
  rejected: number;
  contradictions: number;
  questions: number;
  /** Files changed, vault-relative. */
  touched: string[];
  commit: string | null;
  /** Why the run ended early (an LLM cap), else null. */
  stopped: string | null;
}

export async function discoverLinks(vault: Vault, executor: Pick<LlmExecutor, 'chat'>, options: DiscoverOptions = {}): Promise<DiscoverResult> {
  const now = options.now ?? new Date();
  const root = vault.root;
  const result: DiscoverResult = { pages: 0, invalid: 0, links: 0, rejected: 0, contradictions: 0, questions: 0, touched: [], commit: null, stopped: null };
  const all = await listWikiPages(root);
  const eligible = new Set(all.filter((rel) => !SKIPPED_DIRS.some((dir) => rel.startsWith(dir))));
  const resolve = linkResolver(all.map((p) => ({ path: p })));
  const state = await readState(root);
  const queue = [...eligible]
    .sort((a, b) => byText(state.visited[a] ?? '', state.visited[b] ?? '') || byText(a, b))
    .slice(0, options.maxPages ?? DEFAULT_MAX_PAGES);
  const run = `discover-${now.toISOString()}`;
  const replies: Reply[] = [];

  for (const rel of queue) {
    const content = await readFile(path.join(root, rel), 'utf8').catch(() => null);
    if (content === null) continue;
    const page = parsePage(rel, content);
    const hits = await vault.search([page.title, ...page.tags].join(' '), { k: 8, kind: 'page', refresh: false, recordRecall: false });
    const near = new Map<string, string>();
    for (const hit of hits) if (hit.path !== rel && eligible.has(hit.path) && !near.has(hit.path)) near.set(hit.path, hit.text.slice(0, EXCERPT_CHARS));
    state.visited[rel] = now.toISOString();
    if (near.size === 0) continue;
    const user = [
      `Page ${rel}:`,
      content.slice(0, PAGE_CHARS),
      '',
      'Pages near it:',
      ...[...near].map(([p, text]) => `--- ${p}\n${text}`),
    ].join('\n');
    let reply;
    try {
      reply = await executor.chat('discover', { messages: [{ role: 'system', content: SYSTEM_PROMPT }, { role: 'user', content: user }] }, { run, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      // Over a cap: keep what was found so far; the rest waits for the next run.
      if (error instanceof VaultkeeperError && error.code === 'VK_LLM_CAP') {
        delete state.visited[rel];
        result.stopped = error.message;
        break;
      }
      throw error;
    }
    result.pages++;
    const parsed = Reply.safeParse(readJson(reply.choices[0]?.message?.content ?? ''));
    if (!parsed.success) {
      result.invalid++;
      continue;
    }
    replies.push(parsed.data);
  }

  await withWriteLock(root, async (lock) => {
    const linked = await applyLinks(root, replies, resolve, eligible, result);
    const insights = await fileInsights(root, replies, resolve, now, result);
    result.touched = [...linked, ...(insights ? [INSIGHTS_PAGE] : [])];
    if (result.touched.length === 0) return;
    result.commit = await commitPaths(lock, vault.ctx.config, {
      op: 'discover',
      subject: `discover: +${result.links} links on ${linked.length} pages, ${result.contradictions} contradictions, ${result.questions} questions`,
      body: [`Links between related pages (under ## Related) and what needs a person, from ${result.pages} pages shown to the model.`, '', ...result.touched.map((p) => `~ ${p}`)].join('\n'),
      paths: result.touched,
    });
  });
  await writeState(root, state);
  return result;
}

/** Adds each new link under its page's `## Related`; returns the pages changed. */
async function applyLinks(root: string, replies: readonly Reply[], resolve: LinkResolver, eligible: ReadonlySet<string>, result: DiscoverResult): Promise<string[]> {
  const wanted = new Map<string, Map<string, string>>();
  for (const link of replies.flatMap((r) => r.links)) {
    const from = resolve(link.from);
    const to = resolve(link.to);
    if (from === null || to === null || from === to || !eligible.has(from) || !eligible.has(to)) {
      result.rejected++;
      continue;
    }
    const targets = wanted.get(from) ?? new Map<string, string>();
    if (!targets.has(to)) targets.set(to, oneLine(link.why, WHY_CHARS));
    wanted.set(from, targets);
  }
  const changed: string[] = [];
  for (const [from, targets] of wanted) {
    // A page linked in from outside the vault is read, never rewritten (DESIGN §9).
    const target = await pageWriteTarget(root, from);
    if (!target.ok || !target.exists) continue;
    const before = await readFile(target.abs, 'utf8');
    const present = new Set(parsePage(from, before).links.map((l) => resolve(l.target, from)));
    const lines: string[] = [];
    for (const [to, why] of targets) {
      if (present.has(to)) {
        result.rejected++;
        continue;
      }
      lines.push(`- [[${linkText(to, resolve)}]]${why === '' ? '' : ` — ${why}`}`);
    }
    if (lines.length === 0) continue;
    const after = withRelated(before, lines);
    // Lines are only inserted; should that ever not hold, the page is left alone.
    if (!keepsEveryLine(before, after)) continue;
    await writeFileAtomic(target.abs, after);
    result.links += lines.length;
    changed.push(target.rel);
  }
  return changed;
}

/** Inserts `lines` at the end of the `## Related` section, creating it at the end of the page if missing. */
function withRelated(content: string, lines: readonly string[]): string {
  const eol = content.includes('\r\n') ? '\r\n' : '\n';
  const all = content.split(/\r?\n/);
  const heading = all.findIndex((l) => /^##\s+Related\s*$/i.test(l));
  if (heading < 0) {
    const body = content.replace(/(\r?\n)*$/, '');
    return `${body}${body === '' ? '' : `${eol}${eol}`}## Related${eol}${eol}${lines.join(eol)}${eol}`;
  }
  let end = all.findIndex((l, i) => i > heading && /^#{1,2}\s/.test(l));
  if (end < 0) end = all.length;
  let last = end - 1;
  while (last > heading && all[last]!.trim() === '') last--;
  const insertAt = last === heading ? heading + 1 : last + 1;
  const extra = last === heading ? ['', ...lines] : lines;
  all.splice(insertAt, 0, ...extra);
  return all.join(eol);
}

function keepsEveryLine(before: string, after: string): boolean {
  const next = after.split(/\r?\n/);
  let at = 0;
  for (const line of before.split(/\r?\n/)) {
    while (at < next.length && next[at] !== line) at++;
    if (at === next.length) return false;
    at++;
  }
  return true;
}

/** Appends the run's new contradictions and questions to the insights checklist; true when written. */
async function fileInsights(root: string, replies: readonly Reply[], resolve: LinkResolver, now: Date, result: DiscoverResult): Promise<boolean> {
  // Generated by the program, so its file is refused behind a link rather than written through.
  const existing = await readFile(await confinedPath(root, INSIGHTS_PAGE), 'utf8').catch(() => '');
  const known = new Set(existing.split(/\r?\n/).map((l) => l.trim()));
  const lines: string[] = [];
  const add = (line: string): boolean => {
    if (known.has(line)) return false;
    known.add(line);
    lines.push(line);
    return true;
  };
  for (const c of replies.flatMap((r) => r.contradictions)) {
    const pages = [...new Set(c.pages.map((p) => resolve(p)).filter((p): p is string => p !== null))];
    if (pages.length === 0) continue;
    if (add(`- [ ] **Contradiction**: ${oneLine(c.note, 300)} (${pages.map((p) => `[[${linkText(p, resolve)}]]`).join(', ')})`)) result.contradictions++;
  }
  for (const q of replies.flatMap((r) => r.questions)) {
    const page = resolve(q.page);
    if (page === null) continue;
    if (add(`- [ ] **Question**: ${oneLine(q.question, 300)} ([[${linkText(page, resolve)}]])`)) result.questions++;
  }
  if (lines.length === 0) return false;
  const header = '---\ntitle: Insights\ntype: review\ntags: [review]\n---\n# Insights\n\nWhat weekly discovery found across pages: contradictions to settle and questions worth answering. Tick a box when done.\n';
  const start = existing === '' ? header : existing.endsWith('\n') ? '' : '\n';
  await writeConfined(root, INSIGHTS_PAGE, `${existing}${start}\n## ${now.toISOString().slice(0, 10)}\n\n${lines.join('\n')}\n`);
  return true;
}

/** The shortest link text that leads to `rel`: its name, or its path when the name is ambiguous. */
function linkText(rel: string, resolve: LinkResolver): string {
  const name = path.posix.basename(rel, '.md');
  return resolve(name) === rel ? name : rel.replace(/\.md$/, '');
}

/** A model's words made safe for one list line: no line breaks, no wikilink or markup of its own. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\[\[|\]\]/g, '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The JSON in a reply, bare, fenced or wrapped in prose; undefined when none. */
function readJson(content: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(content)?.[1];
  const first = content.indexOf('{');
  const last = content.lastIndexOf('}');
  for (const attempt of [content.trim(), fenced?.trim(), first >= 0 && last > first ? content.slice(first, last + 1) : undefined]) {
    if (attempt === undefined) continue;
    try {
      return JSON.parse(attempt) as unknown;
    } catch {
      // try the next reading
    }
  }
  return undefined;
}

async function readState(root: string): Promise<z.infer<typeof State>> {
  try {
    return State.parse(JSON.parse(await readFile(path.join(root, STATE_FILE), 'utf8')));
  } catch {
    return { visited: {} };
  }
}

async function writeState(root: string, state: z.infer<typeof State>): Promise<void> {
  await writeConfined(root, STATE_FILE, `${JSON.stringify(state, null, 2)}\n`);
}
