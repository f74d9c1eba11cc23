/**
 * The path guard of the dream agent's file tools (DESIGN §7), in the filesystem MCP server's pattern: a
 * tiny pure containment test, then a validator that checks the path as written and again after resolving
 * symlinks (the file's real path, or for a new file its nearest existing parent's), so neither `..` nor a
 * link can take a tool outside the wiki pages of DESIGN §2.
 */
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { isValidDate } from '../../core/clock.js';
import { logRelPath } from '../../logs/factlog.js';
import { isWikiPagePath } from '../../pages/discover.js';
import { isWithin, relativePathProblem, resolveReal as resolveRealPath } from '../../vault/confine.js';

export { isWithin, relativePathProblem };

export type GuardReason =
  | 'invalid_path'
  | 'outside_vault'
  | 'forbidden'
  | 'not_markdown'
  | 'not_found'
  | 'not_a_file'
  | 'broken_link'
  | 'not_in_batch';

export type Resolved = { ok: true; abs: string; rel: string; exists: boolean } | { ok: false; reason: GuardReason; hint: string };

const EXAMPLE = 'e.g. 2_Areas/coffee.md';
/** Root files the runner writes; compared in lower case, since a case-insensitive disk maps Log.md onto log.md. */
const RUNNER_FILES = new Set(['schema.md', 'index.md', 'log.md', 'memory.md']);
/** `logs/` holds the append-only fact logs; hidden folders (.git, .vaultkeeper, .obsidian, .trash) are caught by the dot rule. */
const LOGS_FOLDER = 'logs';
/** Characters Windows, macOS or Obsidian links cannot hold in a name; refused so the vault syncs everywhere. */
const BAD_NAME_CHARS = /[\\:*?"<>|]/u;
/** Control characters, and the invisible direction marks and overrides that make a name read as another (RTL override). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/u;
const hasControlChar = (name: string): boolean => INVISIBLE.test(name);
const MAX_NAME_BYTES = 255;

type Refusal = Extract<Resolved, { ok: false }>;

const refuse = (reason: GuardReason, hint: string): Refusal => ({ ok: false, reason, hint });

/** The lexical rules, on a vault-relative path with `/` separators: the segments, or why it is not a wiki page or folder. */
function checkSegments(rel: string, kind: 'page' | 'folder'): string[] | Refusal {
  const problem = relativePathProblem(rel, EXAMPLE);
  if (problem !== null) return refuse(problem.reason, problem.hint);
  const segments = rel.split('/');
  for (const segment of segments) {
    if (segment.trim() === '' || segment.replace(/\.md$/u, '').trim() === '') return refuse('invalid_path', `'${rel}' has an empty name; write a path like ${EXAMPLE}`);
    if (BAD_NAME_CHARS.test(segment) || hasControlChar(segment)) {
      return refuse('invalid_path', `'${segment}' holds a character a vault name cannot: \\ : * ? " < > | or a control or direction character`);
    }
    if (Buffer.byteLength(segment) > MAX_NAME_BYTES) return refuse('invalid_path', `a name is at most ${MAX_NAME_BYTES} bytes; use a shorter one`);
  }
  const first = segments[0]!.toLowerCase();
  if (first === LOGS_FOLDER) {
    return refuse('forbidden', 'logs/ is append-only: read a batch log with read_log({"date":"YYYY-MM-DD"}) and write what you learn to a wiki page, e.g. 2_Areas/coffee.md');
  }
  const hidden = segments.find((s) => s.startsWith('.'));
  if (hidden !== undefined) {
    const suggestion = segments.filter((s) => s !== '.').join('/');
    const retry = hidden === '.' && suggestion !== '' ? `; write '${suggestion}' instead` : '';
    return refuse('forbidden', `hidden folders and files (${hidden}) are not wiki pages${retry}; pages live in the vault's folders, ${EXAMPLE}`);
  }
  if (kind === 'folder') return segments;
  const name = segments[segments.length - 1]!;
  if (!name.endsWith('.md') || name === '.md') return refuse('not_markdown', `wiki pages are markdown files: end the path with .md, ${EXAMPLE}`);
  if (segments.length === 1 && RUNNER_FILES.has(name.toLowerCase())) {
    return refuse('forbidden', `${name} is written by the runner after the dream; write wiki pages in the vault's folders instead, ${EXAMPLE}`);
  }
  // The rest of the program's rule (e.g. node_modules/ holds no pages), so every page the agent may
  // write is one the indexer and the runner's checks also read.
  if (!isWikiPagePath(segments.join('/'))) return refuse('forbidden', `${rel} is not where wiki pages live; ${EXAMPLE}`);
  return segments;
}

/**
 * True for a vault-relative path (with `/`) the agent may name as a page: a wiki page by DESIGN §2's rule
 * (isWikiPagePath), further limited to names every system can hold, with the forbidden folders and root
 * files matched in any case.
 */
export function isPagePath(rel: string): boolean {
  return Array.isArray(checkSegments(rel, 'page'));
}

function toRel(realRoot: string, real: string): string {
  return path.relative(realRoot, real).split(path.sep).join('/');
}

function cleanInput(rel: string): string {
  // A model often writes "./2_Areas/x.md"; that leading "./" names the same file.
  return rel.startsWith('./') ? rel.slice(2) : rel;
}

type RealPath = { real: string; exists: boolean };

/** The shared resolver of the vault's confinement module, with this guard's refusal shape. */
async function resolveReal(realRoot: string, abs: string): Promise<RealPath | Refusal> {
  const resolved = await resolveRealPath(realRoot, abs, EXAMPLE);
  return 'ok' in resolved ? refuse(resolved.reason, resolved.hint) : resolved;
}

/**
 * Resolves a wiki page path given by the agent. For a read the page must exist; for a write it may not
 * yet, and `abs` is where it will be written (the real path, so a write through an in-vault link lands on
 * the file the link names). `rel` is that real path relative to the vault.
 */
export async function resolveWikiPath(root: string, rel: string, options: { forWrite: boolean }): Promise<Resolved> {
  const input = cleanInput(rel);
  const lexical = checkSegments(input, 'page');
  if (!Array.isArray(lexical)) return lexical;
  const realRoot = await realpath(root);
  const abs = path.join(realRoot, ...lexical);
  if (!isWithin(realRoot, abs)) return refuse('outside_vault', `paths are relative to the vault, ${EXAMPLE}`);

  const resolved = await resolveReal(realRoot, abs);
  if ('ok' in resolved) return resolved;
  if (!isWithin(realRoot, resolved.real) || resolved.real === realRoot) {
    return refuse('outside_vault', `${input} is a link that leads outside the vault; write a page inside it, ${EXAMPLE}`);
  }
  const realRel = toRel(realRoot, resolved.real);
  if (realRel !== lexical.join('/')) {
    const target = checkSegments(realRel, 'page');
    if (!Array.isArray(target)) return refuse(target.reason, `${input} is a link to ${realRel}, which is not a wiki page; ${target.hint}`);
  }
  if (resolved.exists) {
    const info = await stat(resolved.real);
    if (!info.isFile()) return refuse('not_a_file', `${input} is not a file (a folder?); call list_pages to see the pages`);
  } else if (!options.forWrite) {
    return refuse('not_found', `there is no page ${input}; call list_pages to see the pages, or write_page to create it`);
  }
  return { ok: true, abs: resolved.real, rel: realRel, exists: resolved.exists };
}

/** Resolves a folder of wiki pages ('' or '.' for the whole vault); it must exist. */
export async function resolveWikiFolder(root: string, rel: string): Promise<Resolved> {
  const realRoot = await realpath(root);
  const input = cleanInput(rel).replace(/\/+$/, '');
  if (input === '' || input === '.') return { ok: true, abs: realRoot, rel: '', exists: true };
  const lexical = checkSegments(input, 'folder');
  if (!Array.isArray(lexical)) return lexical;
  const abs = path.join(realRoot, ...lexical);
  const resolved = await resolveReal(realRoot, abs);
  if ('ok' in resolved) return resolved;
  if (!isWithin(realRoot, resolved.real)) return refuse('outside_vault', `${input} is a link that leads outside the vault; list a folder inside it`);
  const realRel = toRel(realRoot, resolved.real);
  if (realRel !== '') {
    const target = checkSegments(realRel, 'folder');
    if (!Array.isArray(target)) return refuse(target.reason, `${input} is a link to ${realRel}; ${target.hint}`);
  }
  if (!resolved.exists) return refuse('not_found', `there is no folder ${input}; call list_pages without a folder to see the whole vault`);
  if (!(await stat(resolved.real)).isDirectory()) return refuse('invalid_path', `${input} is not a folder; call list_pages without a folder`);
  return { ok: true, abs: resolved.real, rel: realRel, exists: true };
}

/** Resolves the log of a batch date for reading. Logs outside the batch are not the agent's to read. */
export async function resolveLogPath(root: string, date: string, batchDates: readonly string[]): Promise<Resolved> {
  const batch = batchDates.length === 0 ? 'none' : batchDates.join(', ');
  if (!isValidDate(date)) return refuse('invalid_path', `a log date is written YYYY-MM-DD; this batch's dates: ${batch}`);
  if (!batchDates.includes(date)) return refuse('not_in_batch', `only this batch's logs can be read: ${batch}; for older facts call search_memory`);
  const realRoot = await realpath(root);
  const abs = path.join(realRoot, logRelPath(date));
  const resolved = await resolveReal(realRoot, abs);
  if ('ok' in resolved) return resolved;
  if (!isWithin(realRoot, resolved.real)) return refuse('outside_vault', `logs/${date}.md is a link that leads outside the vault; it cannot be read`);
  const realRel = toRel(realRoot, resolved.real);
  if (realRel.split('/').some((s) => s.startsWith('.'))) return refuse('forbidden', `logs/${date}.md is a link into a hidden folder; it cannot be read`);
  if (!resolved.exists) return refuse('not_found', `there is no log for ${date}; this batch's dates: ${batch}`);
  if (!(await stat(resolved.real)).isFile()) return refuse('not_a_file', `logs/${date}.md is not a file`);
  return { ok: true, abs: resolved.real, rel: realRel, exists: true };
}
