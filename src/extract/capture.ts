/**
 * What the session watcher may read: only what a person named (DESIGN §9). `vaultkeeper capture add`
 * writes the agents (and projects) to `.vaultkeeper/capture.json` (local to this machine, not tracked);
 * globs named in `extract.sessions` count as named too. A vault that relied on the old default (every
 * Claude Code project) gets one notice and reads nothing until the person says what to capture.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { UsageError } from '../core/errors.js';
import { writeConfined } from '../vault/confined-write.js';
import { agentPlaces, AGENTS, isAgent, type AgentName } from './agents.js';

export const CAPTURE_FILE = '.vaultkeeper/capture.json';
/** The session watcher's offsets (sessions.ts); its file names tell whether the old default was relied on. */
export const EXTRACT_STATE_FILE = '.vaultkeeper/extract-state.json';
/** The glob the watcher followed unasked before capture was opt-in. */
export const OLD_DEFAULT_GLOB = '~/.claude/projects/**/*.jsonl';

const SourceSchema = z.object({
  agent: z.enum(AGENTS),
  /** Absolute path of the one project captured; null: all of the agent's sessions. */
  project: z.string().nullable(),
  added_at: z.string(),
});
export type CaptureSource = z.infer<typeof SourceSchema>;

const CaptureSchema = z.object({
  version: z.literal(1),
  sources: z.array(SourceSchema),
  /** Set once, when a vault that relied on the old default was told that capture is now opt-in. */
  legacy_notice_at: z.string().nullable().default(null),
});
export type CaptureList = z.infer<typeof CaptureSchema>;

/** One glob the watcher follows, and the project a session must belong to (when the folder cannot tell). */
export interface CaptureTarget {
  glob: string;
  cwdFilter: string | null;
  /** What named it: `claude-code`, `codex --project /x`, or `extract.sessions`. */
  from: string;
}

export async function readCaptureList(root: string): Promise<CaptureList | null> {
  let text: string;
  try {
    text = await readFile(path.join(root, CAPTURE_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const parsed = CaptureSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // unreadable: below
  }
  // A damaged list captures nothing rather than guessing: the person adds again.
  return { version: 1, sources: [], legacy_notice_at: null };
}

async function writeCaptureList(root: string, list: CaptureList): Promise<void> {
  await writeConfined(root, CAPTURE_FILE, `${JSON.stringify(list, null, 2)}\n`);
}

export function describeSource(source: Pick<CaptureSource, 'agent' | 'project'>): string {
  return source.project === null ? `${source.agent} (all projects)` : `${source.agent} --project ${source.project}`;
}

/** Adds an agent (or one project of it); adding what is there already changes nothing. */
export async function addCapture(root: string, agent: string, project: string | null, now = new Date()): Promise<{ added: boolean; source: CaptureSource; list: CaptureList }> {
  const name = checkAgent(agent);
  const absolute = project === null ? null : path.resolve(project);
  if (agentPlaces(name, absolute) === null) throw new UsageError(`${name} keeps its history in each project's folder: name the project`, `e.g. vaultkeeper capture add ${name} --project ~/code/app`);
  const list = (await readCaptureList(root)) ?? { version: 1 as const, sources: [], legacy_notice_at: null };
  const existing = list.sources.find((s) => s.agent === name && s.project === absolute);
  if (existing !== undefined) return { added: false, source: existing, list };
  const source: CaptureSource = { agent: name, project: absolute, added_at: now.toISOString() };
  list.sources.push(source);
  await writeCaptureList(root, list);
  return { added: true, source, list };
}

/** Removes an agent's capture (of one project, or all of that agent's entries when no project is given). */
export async function removeCapture(root: string, agent: string, project: string | null): Promise<{ removed: CaptureSource[]; list: CaptureList }> {
  const name = checkAgent(agent);
  const absolute = project === null ? null : path.resolve(project);
  const list = (await readCaptureList(root)) ?? { version: 1 as const, sources: [], legacy_notice_at: null };
  const removed = list.sources.filter((s) => s.agent === name && (absolute === null || s.project === absolute));
  if (removed.length > 0) {
    list.sources = list.sources.filter((s) => !removed.includes(s));
    await writeCaptureList(root, list);
  }
  return { removed, list };
}

/** The globs the watcher follows: the agents added, then the globs named in `extract.sessions`. */
export function captureTargets(list: CaptureList | null, configured: readonly string[]): CaptureTarget[] {
  const targets: CaptureTarget[] = [];
  for (const source of list?.sources ?? []) {
    const places = agentPlaces(source.agent, source.project);
    if (places === null) continue;
    for (const glob of places.globs) targets.push({ glob, cwdFilter: places.cwdFilter, from: describeSource(source) });
  }
  for (const glob of configured) targets.push({ glob, cwdFilter: null, from: 'extract.sessions' });
  return targets;
}

export interface CaptureState {
  sources: CaptureSource[];
  /** Globs named in the config's extract.sessions. */
  configured: string[];
  /** Set when this vault relied on the old default and has not said what to capture since. */
  legacy: { noticed_at: string | null } | null;
}

/**
 * The vault relied on the old default when its watcher read Claude Code sessions (the extract state
 * names some) before any capture was named. `extractedFiles` are the files the state holds.
 */
export function captureState(list: CaptureList | null, configured: readonly string[], extractedFiles: readonly string[], home: string): CaptureState {
  const claudeHome = path.join(home, '.claude', 'projects') + path.sep;
  const namedNothing = configured.length === 0 && (list?.sources.length ?? 0) === 0;
  const readBefore = list === null ? extractedFiles.some((f) => f.startsWith(claudeHome)) : list.legacy_notice_at !== null;
  const reliedOnDefault = namedNothing && readBefore;
  return { sources: list?.sources ?? [], configured: [...configured], legacy: reliedOnDefault ? { noticed_at: list?.legacy_notice_at ?? null } : null };
}

/** Records that the notice was given, so it is given once. */
export async function markLegacyNoticed(root: string, now = new Date()): Promise<void> {
  const list = (await readCaptureList(root)) ?? { version: 1 as const, sources: [], legacy_notice_at: null };
  if (list.legacy_notice_at !== null) return;
  list.legacy_notice_at = now.toISOString();
  await writeCaptureList(root, list);
}

export const LEGACY_NOTICE =
  'capture is now opt-in: the session watcher no longer reads every Claude Code project under ~/.claude/projects, and reads nothing until you name what to capture: `vaultkeeper capture add claude-code` (all projects, as before) or `vaultkeeper capture add claude-code --project PATH`';

/** One line saying what is captured and how to change it, for init, daemon start and status. */
export function captureLine(state: CaptureState): string {
  const named = [...state.sources.map(describeSource), ...state.configured.map((g) => `${g} (extract.sessions)`)];
  if (named.length > 0) return `capture: transcripts of ${named.join(', ')}; change with \`vaultkeeper capture add|remove\``;
  if (state.legacy !== null) return `capture: nothing (${LEGACY_NOTICE})`;
  return 'capture: no agent transcripts are read; opt in with `vaultkeeper capture add claude-code [--project PATH]` (or codex, gemini, openclaw, cursor, aider, continue)';
}

function checkAgent(agent: string): AgentName {
  if (!isAgent(agent)) throw new UsageError(`unknown agent: ${agent}`, `one of ${AGENTS.join(', ')}`);
  return agent;
}

/** What is captured, read from the files alone (no watcher pass): for init, daemon start and status. */
export async function readCaptureState(root: string, configured: readonly string[], home: string): Promise<CaptureState & { line: string }> {
  const list = await readCaptureList(root);
  let files: string[] = [];
  try {
    const state = JSON.parse(await readFile(path.join(root, EXTRACT_STATE_FILE), 'utf8')) as { files?: Record<string, unknown> };
    files = Object.keys(state.files ?? {});
  } catch {
    // no state yet, or a damaged one: nothing was read (or it will be read again)
  }
  const state = captureState(list, configured, files, home);
  return { ...state, line: captureLine(state) };
}
