/**
 * The dream agent's whitelisted file tools (DESIGN §7): list and read pages, read the batch's logs,
 * search memory, write or edit a page, archive a page, flag a conflict, finish. Nothing else: no shell,
 * no network, no delete, no write outside a wiki page. `call` never throws; a bad call gets an error
 * result whose text names the next call, and everything it returns is JSON for the run's log.
 */
import { mkdir, readFile, readdir, realpath, rename } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../../core/errors.js';
import { parseLog } from '../../logs/factlog.js';
import { readFrontmatter } from '../../pages/frontmatter.js';
import { sourceLines } from '../../pages/source.js';
import { readTombstones, type TombstoneSet } from '../../tombstones/tombstones.js';
import { archiveName } from '../../vault/layout.js';
import { isReadOnlyPage, type PageOwner } from '../ownership.js';
import { parsePage } from '../../pages/parse.js';
import { durableLines, factIndex } from '../memory.js';
import { writeFileAtomic } from './atomic.js';
import { keyCheck, type KeyCheck } from '../key-check.js';
import { isPagePath, resolveLogPath, resolveWikiFolder, resolveWikiPath, type Resolved } from './guard.js';

export interface ToolLimits {
  /** Largest page a write may leave, in bytes; also how much of a page read_page returns. */
  maxPageBytes: number;
  /** Bytes all writes of one run may add up to. */
  maxRunBytes: number;
  /** Most paths one list_pages call returns. */
  maxListEntries: number;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = {
  maxPageBytes: 256 * 1024,
  maxRunBytes: 5 * 1024 * 1024,
  maxListEntries: 1000,
};

export interface ToolContext {
  root: string;
  /** The log dates of this run's batch: the only logs read_log opens. */
  batchDates: readonly string[];
  /** Memory search, passed in so the tools need not open the index. */
  search(query: string, k: number): Promise<unknown[]>;
  limits?: Partial<ToolLimits>;
  /** The run's API key (and any other secret): a page holding one is not written, so it never reaches git. */
  secrets?: readonly string[];
  /** Whose a page is (ownership.ts), passed in so the tools need not read git: a person's own page is never archived. */
  pageOwner?(rel: string): Promise<PageOwner>;
  /** Pages no tool writes, edits or moves (a person's notes on an adopted vault: ownership.ts `readOnlyPages`). */
  readOnly?: ReadonlySet<string>;
}

export interface Conflict {
  subject: string;
  fact_ids: string[];
  note: string;
}

export type ToolResult = { ok: true; result: unknown } | { ok: false; error: string };

/** A tool in the OpenAI chat-completions `tools` format. */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface Toolbox {
  readonly definitions: ToolDefinition[];
  call(name: string, rawArguments: string): Promise<ToolResult>;
  /** Vault-relative paths of the pages this run wrote or created (an archived one under its new path). */
  readonly touched: Set<string>;
  readonly archived: Array<{ from: string; to: string }>;
  readonly conflicts: Conflict[];
  readonly finished: null | { summary: string };
  readonly bytesWritten: number;
}

export const ARCHIVE_FOLDER = '5_Archives';
const EXAMPLE_PATH = '2_Areas/coffee.md';
/** JSON may spell one byte of content as up to six characters (\u0000); beyond that no page fits. */
const JSON_EXPANSION = 6;
const MAX_ERROR_CHARS = 300;

const PathField = z.string().describe(`Path of a wiki page relative to the vault, with / between folders, e.g. "${EXAMPLE_PATH}"`);

const schemas = {
  list_pages: z
    .object({
      folder: z
        .string()
        .optional()
        .describe('Folder relative to the vault, e.g. "2_Areas"; leave it out to list the whole vault'),
    })
    .describe('List the wiki pages (markdown files) of the vault or of one folder, recursively.'),
  read_page: z.object({ path: PathField }).describe('Read a wiki page: its frontmatter and markdown.'),
  read_log: z
    .object({ date: z.string().describe('A date of this batch, YYYY-MM-DD') })
    .describe("Read one of this batch's daily fact logs (read only). Each fact comes with its id and the citation to put on a page."),
  search_memory: z
    .object({
      query: z.string().min(1).max(1000).describe('What to look for, in plain words, e.g. "coffee preferences"'),
      k: z.number().int().min(1).max(50).default(8).describe('How many results, 1 to 50 (default 8)'),
    })
    .describe('Search the whole memory (older facts and existing pages) to find where a fact belongs or what it updates.'),
  write_page: z
    .object({
      path: PathField,
      content: z
        .string()
        .describe('The whole page: optional YAML frontmatter between --- lines, then markdown citing facts as [[YYYY-MM-DD#^f-id]]'),
    })
    .describe('Create a wiki page, or replace a whole page (read it first and keep what a person wrote). Creates missing folders.'),
  edit_page: z
    .object({
      path: PathField,
      old_text: z.string().min(1).describe('Text that occurs exactly once in the page, copied exactly (include nearby lines to make it unique)'),
      new_text: z.string().describe('The text to put in its place'),
    })
    .describe('Replace one exact, unique passage of an existing page. Prefer it to write_page for small changes.'),
  archive_page: z
    .object({ path: PathField })
    .describe(
      `Move a page the dream made that the facts say is over (a finished project, a closed topic) under ${ARCHIVE_FOLDER}/, keeping its sub-path. ` +
        "Pages are never deleted; a person's own pages are never archived, nor pages that state something still true (a current value, relationship, preference, principle, decision, skill, health fact or open commitment); cold pages are archived by the runner.",
    ),
  flag_conflict: z
    .object({
      subject: z.string().min(1).max(300).describe('What the facts disagree about, e.g. "home city"'),
      fact_ids: z
        .array(z.string().regex(/^\^?[A-Za-z0-9-]+$/, 'a fact id looks like f-7k2m9q0a1b'))
        .min(1)
        .max(50)
        .describe('Ids of the facts that conflict, e.g. ["f-7k2m9q0a1b", "f-a81x0c2d3e"]'),
      note: z.string().min(1).max(2000).describe('Why they conflict and what a person should decide'),
    })
    .describe('Flag facts that genuinely contradict each other for a person to review, instead of guessing which is true.'),
  finish: z
    .object({ summary: z.string().min(1).max(4000).describe('What you changed and why, in a few sentences') })
    .describe('End the run once every fact of the batch is cited by a page.'),
} as const;

export type ToolName = keyof typeof schemas;
export const TOOL_NAMES = Object.keys(schemas) as ToolName[];

function toDefinition(name: ToolName): ToolDefinition {
  const schema = schemas[name];
  const { $schema: _ignored, description, ...parameters } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return { type: 'function', function: { name, description: String(description ?? ''), parameters } };
}

/** The tools in the OpenAI tool-calling format, generated from the zod schemas. */
export const TOOL_DEFINITIONS: ToolDefinition[] = TOOL_NAMES.map(toDefinition);

/** Why `content` may not be a page, or null when it may: size, NUL, UTF-8, frontmatter, an empty body. */
export function checkPageContent(content: string, maxPageBytes: number): string | null {
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > maxPageBytes) {
    return `the page would be ${bytes} bytes; a page is at most ${maxPageBytes} bytes: split it into several pages and link them`;
  }
  if (content.includes('\0')) return 'the content holds a NUL byte; a page is plain markdown text';
  if (!content.isWellFormed()) return 'the content is not valid UTF-8 text (it holds a lone surrogate); send plain text';
  const lines = sourceLines(content);
  const frontmatter = readFrontmatter(lines);
  if (frontmatter.error !== undefined) {
    return `the frontmatter does not parse (${frontmatter.error}); write YAML key: value lines between a first line --- and a closing line ---, or leave it out`;
  }
  if (lines.slice(frontmatter.lineCount).every((line) => line.trim() === '')) {
    return 'the page would have no text; a page is never emptied: to retire it call archive_page';
  }
  return null;
}

interface State {
  ctx: ToolContext;
  limits: ToolLimits;
  touched: Set<string>;
  archived: Array<{ from: string; to: string }>;
  conflicts: Conflict[];
  finished: null | { summary: string };
  bytesWritten: number;
  tombstones?: Promise<TombstoneSet>;
  /** The key check (key-check.ts) for the run's secrets: plain, reversed, base64, spaced, in pieces. */
  key: KeyCheck;
}

type Handlers = { [N in ToolName]: (args: z.output<(typeof schemas)[N]>, state: State) => Promise<ToolResult> };

const ok = (result: unknown): ToolResult => ({ ok: true, result });
const fail = (error: string): ToolResult => ({ ok: false, error });
const refused = (r: Extract<Resolved, { ok: false }>): ToolResult => fail(`${r.reason}: ${r.hint}`);

/** The error a write to a read-only note gets: what the model should do instead. */
function readOnlyNote(rel: string): ToolResult {
  const title = path.posix.basename(rel, '.md');
  return fail(
    `read_only: ${rel} is a person's own note (this vault was adopted; dream.adopted_notes is read-only), so the dream never writes, edits or moves it. ` +
      `Put the statements on a page of your own (write_page with a new path, e.g. "2_Areas/${title} notes.md") and link to the note from it as [[${title}]]`,
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: false });
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function countMatches(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) count++;
  return count;
}

/** Checks a page's new content against the limits and the run's budget, then writes it atomically. */
async function writePage(state: State, target: Extract<Resolved, { ok: true }>, content: string, before: string | null): Promise<ToolResult> {
  const problem = checkPageContent(content, state.limits.maxPageBytes);
  if (problem !== null) return fail(`${target.rel} was not written: ${problem}`);
  if (state.key.holds(content) || state.key.holds(target.rel)) {
    return fail(`the page was not written: its ${state.key.holds(target.rel) ? 'path' : 'content'} holds the API key of this run (or an encoding or piece of it); write the page without it`);
  }
  if (content === before) return ok({ path: target.rel, unchanged: true });
  const bytes = Buffer.byteLength(content, 'utf8');
  if (state.bytesWritten + bytes > state.limits.maxRunBytes) {
    return fail(
      `${target.rel} was not written: this run may write ${state.limits.maxRunBytes} bytes and has written ${state.bytesWritten}; ` +
        'make the remaining changes with small edit_page calls, or call finish',
    );
  }
  await writeFileAtomic(target.abs, content);
  state.bytesWritten += bytes;
  state.touched.add(target.rel);
  return ok({ path: target.rel, created: !target.exists, bytes });
}

async function listPages(root: string, dir: string, rel: string, out: string[], max: number): Promise<boolean> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) {
      // A folder is walked only when a page could live in it (not logs/, hidden folders, node_modules/).
      if (!isPagePath(`${childRel}/page.md`)) continue;
      if (!(await listPages(root, path.join(dir, entry.name), childRel, out, max))) return false;
      continue;
    }
    if (!isPagePath(childRel)) continue;
    // A linked folder is not walked; a linked page is listed only when it leads to a page in the vault.
    if (entry.isSymbolicLink() && !(await resolveWikiPath(root, childRel, { forWrite: false })).ok) continue;
    if (!entry.isFile() && !entry.isSymbolicLink()) continue;
    if (out.length >= max) return false;
    out.push(childRel);
  }
  return true;
}

/** Where archive_page moves `rel`: a page of that name archived before is never overwritten, so the next free name, `<name> (2).md`, … */
async function freeArchiveTarget(root: string, rel: string): Promise<Resolved> {
  for (let n = 1; ; n++) {
    const target = await resolveWikiPath(root, archiveName(rel, n), { forWrite: true });
    if (!target.ok || !target.exists) return target;
  }
}

const handlers: Handlers = {
  async list_pages({ folder }, state) {
    const target = await resolveWikiFolder(state.ctx.root, folder ?? '');
    if (!target.ok) return refused(target);
    const pages: string[] = [];
    const complete = await listPages(state.ctx.root, target.abs, target.rel, pages, state.limits.maxListEntries);
    return ok({
      folder: target.rel === '' ? '.' : target.rel,
      pages,
      ...(complete ? {} : { truncated: true, note: `only the first ${pages.length} pages; call list_pages with a folder to see the rest` }),
    });
  },

  async read_page({ path: rel }, state) {
    const target = await resolveWikiPath(state.ctx.root, rel, { forWrite: false });
    if (!target.ok) return refused(target);
    const bytes = await readFile(target.abs);
    const max = state.limits.maxPageBytes;
    // Said up front, so the model writes its own page instead of trying this one.
    const readOnly = isReadOnlyPage(state.ctx.readOnly, target.rel) ? { read_only: true, note: "a person's own note: read only; link to it from a page of your own" } : {};
    if (bytes.length <= max) return ok({ path: target.rel, content: utf8.decode(bytes), bytes: bytes.length, ...readOnly });
    const content = utf8.decode(bytes.subarray(0, max)).replace(/\uFFFD$/u, '');
    return ok({
      path: target.rel,
      content,
      bytes: bytes.length,
      truncated: true,
      note: `only the first ${max} bytes are shown; change this page with edit_page, since write_page would drop the rest`,
      ...readOnly,
    });
  },

  async read_log({ date }, state) {
    const target = await resolveLogPath(state.ctx.root, date, state.ctx.batchDates);
    if (!target.ok) return refused(target);
    const log = parseLog(await readFile(target.abs), date);
    state.tombstones ??= readTombstones(state.ctx.root);
    const tombstones = await state.tombstones;
    const kept = log.facts.filter((fact) => !tombstones.hasId(fact.id) && !tombstones.repeats(fact.text));
    return ok({
      date,
      facts: kept.map((fact) => ({
        id: fact.id,
        cite: `[[${date}#^${fact.id}]]`,
        category: fact.category,
        text: fact.text,
        tags: fact.tags,
        time: fact.time,
        source: fact.source,
      })),
      // Forgotten facts are not shown: they must not come back onto a page.
      forgotten: log.facts.length - kept.length,
      other_lines: log.skipped.slice(0, 50).map(({ line, excerpt }) => ({ line, text: excerpt })),
    });
  },

  async search_memory({ query, k }, state) {
    const results = await state.ctx.search(query, k);
    // The runner logs every result as JSON; a result that cannot be JSON fails here, as a tool error.
    return ok({ results: JSON.parse(JSON.stringify(results)) as unknown });
  },

  async write_page({ path: rel, content }, state) {
    const target = await resolveWikiPath(state.ctx.root, rel, { forWrite: true });
    if (!target.ok) return refused(target);
    if (isReadOnlyPage(state.ctx.readOnly, target.rel)) return readOnlyNote(target.rel);
    const before = target.exists ? await readFile(target.abs, 'utf8') : null;
    return writePage(state, target, content, before);
  },

  async edit_page({ path: rel, old_text: oldText, new_text: newText }, state) {
    const target = await resolveWikiPath(state.ctx.root, rel, { forWrite: true });
    if (!target.ok) return refused(target);
    if (!target.exists) return fail(`not_found: there is no page ${rel}; call list_pages, or create it with write_page`);
    if (isReadOnlyPage(state.ctx.readOnly, target.rel)) return readOnlyNote(target.rel);
    let before: string;
    try {
      before = strictUtf8.decode(await readFile(target.abs));
    } catch {
      return fail(`${target.rel} is not valid UTF-8 text, so it cannot be edited without damage; leave it as it is`);
    }
    const matches = countMatches(before, oldText);
    if (matches === 0) {
      const crlf = before.includes('\r\n') && !oldText.includes('\r\n') && oldText.includes('\n') ? ' (the page ends its lines with \\r\\n)' : '';
      return fail(`old_text was not found in ${target.rel}${crlf}; call read_page and copy the passage exactly`);
    }
    if (matches > 1) return fail(`old_text occurs ${matches} times in ${target.rel}; include more of the surrounding text so it occurs once`);
    const at = before.indexOf(oldText);
    // Spliced by hand: String.replace would read $& and $1 in new_text as patterns.
    return writePage(state, target, before.slice(0, at) + newText + before.slice(at + oldText.length), before);
  },

  async archive_page({ path: rel }, state) {
    const source = await resolveWikiPath(state.ctx.root, rel, { forWrite: true });
    if (!source.ok) return refused(source);
    if (!source.exists) return fail(`not_found: there is no page ${rel}; call list_pages to see the pages`);
    if (isReadOnlyPage(state.ctx.readOnly, source.rel)) return readOnlyNote(source.rel);
    if (source.rel.toLowerCase().startsWith(`${ARCHIVE_FOLDER.toLowerCase()}/`)) {
      return fail(`${source.rel} is already in ${ARCHIVE_FOLDER}/; leave it there`);
    }
    if ((await state.ctx.pageOwner?.(source.rel)) === 'person') {
      return fail(`forbidden: ${source.rel} is a person's own page (the dream did not create it), so it stays where it is; add what changed to it with edit_page`);
    }
    // Unused is not untrue (issue 26): what MEMORY.md draws from stays on a live page. No clock here: every open commitment counts.
    const still = durableLines(parsePage(source.rel, await readFile(source.abs, 'utf8')), await factIndex(state.ctx.root), '');
    if (still.length > 0) {
      return fail(
        `forbidden: ${source.rel} states ${still.length} ${still.length === 1 ? 'thing' : 'things'} still true (e.g. "${still[0]!.line.slice(2, 120)}"): a page with a current value, relationship, preference, principle, decision, skill, health fact or open commitment stays live; move what is over to its History with edit_page instead`,
      );
    }
    const target = await freeArchiveTarget(state.ctx.root, source.rel);
    if (!target.ok) return refused(target);
    await mkdir(path.dirname(target.abs), { recursive: true });
    await rename(source.abs, target.abs);
    state.archived.push({ from: source.rel, to: target.rel });
    if (state.touched.delete(source.rel)) state.touched.add(target.rel);
    return ok({ from: source.rel, to: target.rel });
  },

  async flag_conflict({ subject, fact_ids: ids, note }, state) {
    if (state.key.holds(`${subject}\n${note}`)) return fail('the conflict was not flagged: it holds the API key of this run (or an encoding or piece of it); flag it without it');
    const conflict: Conflict = { subject, fact_ids: ids.map((id) => id.replace(/^\^/, '')), note };
    state.conflicts.push(conflict);
    return ok({ flagged: conflict, conflicts: state.conflicts.length });
  },

  async finish({ summary }, state) {
    state.finished = { summary };
    return ok({
      finished: true,
      pages: [...state.touched].sort(),
      archived: state.archived.length,
      conflicts: state.conflicts.length,
      ...(state.touched.size === 0 && state.archived.length === 0
        ? { warning: 'no page changed in this run, so its checks will fail: the batch stays pending' }
        : {}),
    });
  },
};

function isToolName(name: string): name is ToolName {
  return Object.hasOwn(schemas, name);
}

function describeParameters(name: ToolName): string {
  const fields = Object.keys(schemas[name].shape);
  return `{${fields.map((f) => `"${f}": …`).join(', ')}}`;
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => (issue.path.length === 0 ? issue.message : `${issue.path.join('.')}: ${issue.message}`))
    .join('; ');
}

function ioError(error: unknown, roots: readonly string[]): string {
  let message = errorMessage(error);
  for (const root of roots) message = message.split(root + path.sep).join('').split(root).join('.');
  return message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)}…` : message;
}

async function dispatch(state: State, name: string, rawArguments: string): Promise<ToolResult> {
  if (typeof name !== 'string' || !isToolName(name)) {
    return fail(`unknown tool '${String(name)}'; the tools are: ${TOOL_NAMES.join(', ')}`);
  }
  if (state.finished !== null) return fail('the run is finished: finish was called; make no more tool calls');
  const raw = typeof rawArguments === 'string' ? rawArguments.trim() : '';
  if (raw.length > state.limits.maxPageBytes * JSON_EXPANSION + 64 * 1024) {
    return fail(`the arguments of ${name} are ${raw.length} characters; a page is at most ${state.limits.maxPageBytes} bytes: split it into several pages`);
  }
  let args: unknown;
  try {
    args = raw === '' ? {} : JSON.parse(raw);
  } catch (error) {
    return fail(`the arguments of ${name} are not valid JSON (${errorMessage(error)}); send one JSON object like ${describeParameters(name)}`);
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return fail(`the arguments of ${name} must be one JSON object like ${describeParameters(name)}`);
  }
  const parsed = schemas[name].safeParse(args);
  if (!parsed.success) return fail(`invalid arguments for ${name}: ${formatIssues(parsed.error)}; send ${describeParameters(name)}`);
  try {
    const handler = handlers[name] as (args: unknown, state: State) => Promise<ToolResult>;
    return await handler(parsed.data, state);
  } catch (error) {
    const { root } = state.ctx;
    const realRoot = await realpath(root).catch(() => root);
    return fail(`${name} failed: ${ioError(error, [realRoot, path.resolve(root), root])}; check the arguments, or try another call`);
  }
}

function definedOnly(limits: Partial<ToolLimits>): Partial<ToolLimits> {
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}

/** The tools of one run, bound to its vault, batch and budgets, recording what the run changed. */
export function createToolbox(context: ToolContext): Toolbox {
  const state: State = {
    ctx: context,
    limits: { ...DEFAULT_TOOL_LIMITS, ...definedOnly(context.limits ?? {}) },
    touched: new Set(),
    archived: [],
    conflicts: [],
    finished: null,
    bytesWritten: 0,
    key: keyCheck(context.secrets ?? []),
  };
  // Calls run one at a time, so the run's byte budget and the records stay exact even when a model
  // asks for several tools at once.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    definitions: TOOL_DEFINITIONS,
    call(name, rawArguments) {
      const result = queue.then(() => dispatch(state, name, rawArguments));
      queue = result.catch(() => undefined);
      return result.catch((error: unknown) => fail(`${String(name)} failed: ${errorMessage(error)}`));
    },
    touched: state.touched,
    archived: state.archived,
    conflicts: state.conflicts,
    get finished() {
      return state.finished;
    },
    get bytesWritten() {
      return state.bytesWritten;
    },
  };
}
