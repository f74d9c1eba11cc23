/**
 * Where each agent keeps its transcripts on this machine, and how a capture of one project narrows them.
 * A path narrows by folder where the agent files sessions by project (Claude Code, Gemini CLI, Aider,
 * Cursor's workspaces); elsewhere the session names its working folder (Codex, OpenClaw, Continue) and
 * the watcher keeps only sessions whose folder is the project.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';

export const AGENTS = ['claude-code', 'codex', 'gemini', 'openclaw', 'cursor', 'aider', 'continue'] as const;
export type AgentName = (typeof AGENTS)[number];

export interface AgentPlaces {
  /** Globs of the transcripts (~ is the home folder). */
  globs: string[];
  /** A session kept only when the folder it names is the project (or inside it); null: the globs already narrow. */
  cwdFilter: string | null;
}

export function isAgent(name: string): name is AgentName {
  return (AGENTS as readonly string[]).includes(name);
}

/** The transcripts of `agent` (of one project when `project` is an absolute path); null when the agent needs a project. */
export function agentPlaces(agent: AgentName, project: string | null, platform: NodeJS.Platform = process.platform): AgentPlaces | null {
  switch (agent) {
    case 'claude-code':
      // Claude Code names a project's folder after its path, every character but letters and digits a dash.
      return { globs: [project === null ? '~/.claude/projects/**/*.jsonl' : `~/.claude/projects/${project.replace(/[^A-Za-z0-9]/g, '-')}/**/*.jsonl`], cwdFilter: null };
    case 'codex':
      return { globs: ['~/.codex/sessions/**/*.jsonl'], cwdFilter: project };
    case 'gemini':
      // Gemini CLI names a project's folder by the SHA-256 of its path.
      return { globs: [`~/.gemini/tmp/${project === null ? '*' : createHash('sha256').update(project).digest('hex')}/chats/session-*.json`], cwdFilter: null };
    case 'openclaw':
      return { globs: ['~/.openclaw/agents/*/sessions/*.jsonl'], cwdFilter: project };
    case 'continue':
      return { globs: ['~/.continue/sessions/*-*.json'], cwdFilter: project };
    case 'aider':
      return project === null ? null : { globs: [path.join(project, '.aider.chat.history.md')], cwdFilter: null };
    case 'cursor': {
      const base = platform === 'darwin' ? '~/Library/Application Support/Cursor/User' : platform === 'win32' ? '~/AppData/Roaming/Cursor/User' : '~/.config/Cursor/User';
      // The global store holds every project's chats; a project's own are in its workspace store.
      return project === null
        ? { globs: [`${base}/globalStorage/state.vscdb`, `${base}/workspaceStorage/*/state.vscdb`], cwdFilter: null }
        : { globs: [`${base}/workspaceStorage/*/state.vscdb`], cwdFilter: project };
    }
  }
}

/** Whether a session's working folder is the project or inside it. */
export function withinProject(cwd: string | undefined, project: string): boolean {
  if (cwd === undefined) return false;
  const rel = path.relative(project, cwd);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
