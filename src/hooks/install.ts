/**
 * Installs vaultkeeper's hooks into an agent's own settings, and takes them out again. Claude Code
 * (settings.json), Codex (hooks.json) and Gemini CLI (settings.json) share one shape: `hooks.<Event>` is a
 * list of `{matcher, hooks: [{type: "command", command}]}`. Only the handlers whose command runs
 * `vaultkeeper … hook` are ever touched: installing twice gives the same file, uninstalling leaves the
 * person's own settings as they were (and removes a file that only vaultkeeper had made).
 */
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError, VaultkeeperError } from '../core/errors.js';

export const HOOK_AGENTS = ['claude-code', 'codex', 'gemini'] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];

export type HookAction = 'session-start' | 'ingest';

interface AgentHooks {
  /** The settings file, from the home folder or, for one project, from its folder. */
  file: (base: string, project: boolean) => string;
  /** Event → what vaultkeeper does then. */
  events: Record<string, HookAction>;
  /** Gemini CLI wants each handler named. */
  named: boolean;
}

const AGENT_HOOKS: Record<HookAgent, AgentHooks> = {
  // A project's own settings.local.json: personal, not the settings.json a team commits.
  'claude-code': { file: (base, project) => path.join(base, '.claude', project ? 'settings.local.json' : 'settings.json'), events: { SessionStart: 'session-start', Stop: 'ingest', PreCompact: 'ingest', SessionEnd: 'ingest' }, named: false },
  codex: { file: (base) => path.join(base, '.codex', 'hooks.json'), events: { SessionStart: 'session-start', Stop: 'ingest', PreCompact: 'ingest' }, named: false },
  gemini: { file: (base) => path.join(base, '.gemini', 'settings.json'), events: { SessionStart: 'session-start', PreCompress: 'ingest', SessionEnd: 'ingest' }, named: true },
};

/** A handler vaultkeeper wrote: its command runs vaultkeeper's `hook` command. */
const OURS_RE = /vaultkeeper\S*['"]?\s.*\bhook (session-start|ingest)\b/;

export interface HookTarget {
  agent: HookAgent;
  home: string;
  /** Install for one project (its own settings) instead of the person's. */
  project: string | null;
  /** The command line that runs vaultkeeper for this vault, e.g. `'/usr/bin/node' '/…/vaultkeeper.js' --vault '/…/vault'`. */
  command: string;
}

export interface HookChange {
  agent: HookAgent;
  file: string;
  /** False when the file already was as asked. */
  changed: boolean;
  events: string[];
}

export function isHookAgent(name: string): name is HookAgent {
  return (HOOK_AGENTS as readonly string[]).includes(name);
}

export function hookAgent(name: string): HookAgent {
  if (!isHookAgent(name)) throw new UsageError(`no hooks for ${name}`, `hooks exist for ${HOOK_AGENTS.join(', ')}; other agents: vaultkeeper capture add NAME`);
  return name;
}

export function settingsFile(target: Pick<HookTarget, 'agent' | 'home' | 'project'>): string {
  return AGENT_HOOKS[target.agent].file(target.project ?? target.home, target.project !== null);
}

export async function installHooks(target: HookTarget): Promise<HookChange> {
  const spec = AGENT_HOOKS[target.agent];
  const file = settingsFile(target);
  const { settings, before, indent } = await readSettings(file);
  const hooks = removeOurs(settings);
  for (const [event, action] of Object.entries(spec.events)) {
    const handler: Record<string, unknown> = { type: 'command', command: `${target.command} hook ${action}` };
    if (spec.named) handler.name = `vaultkeeper-${action}`;
    const groups = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    groups.push({ matcher: '', hooks: [handler] });
    hooks[event] = groups;
  }
  settings.hooks = hooks;
  const changed = await writeSettings(file, settings, before, indent);
  return { agent: target.agent, file, changed, events: Object.keys(spec.events) };
}

export async function uninstallHooks(target: Omit<HookTarget, 'command'>): Promise<HookChange> {
  const file = settingsFile(target);
  const { settings, before, indent } = await readSettings(file);
  if (before === null) return { agent: target.agent, file, changed: false, events: [] };
  const hooks = removeOurs(settings);
  if (Object.keys(hooks).length === 0) delete settings.hooks;
  else settings.hooks = hooks;
  // A file that held nothing but vaultkeeper's hooks goes, as it came.
  if (Object.keys(settings).length === 0) {
    await rm(file);
    return { agent: target.agent, file, changed: true, events: [] };
  }
  const changed = await writeSettings(file, settings, before, indent);
  return { agent: target.agent, file, changed, events: [] };
}

/** Whether the agent's settings hold vaultkeeper's hooks, and for which events. */
export async function installedEvents(target: Omit<HookTarget, 'command'>): Promise<string[]> {
  const { settings } = await readSettings(settingsFile(target));
  const hooks = isRecord(settings.hooks) ? settings.hooks : {};
  return Object.entries(hooks)
    .filter(([, groups]) => Array.isArray(groups) && groups.some((g) => isRecord(g) && Array.isArray(g.hooks) && g.hooks.some(isOurs)))
    .map(([event]) => event);
}

/** The settings' hooks without vaultkeeper's handlers; groups and events left empty are dropped. */
function removeOurs(settings: Record<string, unknown>): Record<string, unknown> {
  const hooks = isRecord(settings.hooks) ? { ...settings.hooks } : {};
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    const kept = groups
      .map((group) => (isRecord(group) && Array.isArray(group.hooks) && group.hooks.some(isOurs) ? { ...group, hooks: group.hooks.filter((h) => !isOurs(h)) } : group))
      .filter((group) => !(isRecord(group) && Array.isArray(group.hooks) && group.hooks.length === 0));
    if (kept.length === 0) delete hooks[event];
    else hooks[event] = kept;
  }
  return hooks;
}

function isOurs(handler: unknown): boolean {
  return isRecord(handler) && typeof handler.command === 'string' && OURS_RE.test(handler.command);
}

async function readSettings(file: string): Promise<{ settings: Record<string, unknown>; before: string | null; indent: string }> {
  let before: string;
  try {
    before = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { settings: {}, before: null, indent: '  ' };
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = before.trim() === '' ? {} : JSON.parse(before);
  } catch {
    // Never rewrite a file we cannot read: the person's settings would be lost.
    throw new VaultkeeperError('VK_HOOKS_SETTINGS', `${file} is not valid JSON; it was left as it is`, { hint: 'fix the file (or add the hooks by hand: docs/integrations.md), then run the command again' });
  }
  if (!isRecord(parsed)) throw new VaultkeeperError('VK_HOOKS_SETTINGS', `${file} is not a JSON object; it was left as it is`, { hint: 'fix the file, then run the command again' });
  const indent = /^\{\s*\n([ \t]+)"/.exec(before)?.[1] ?? '  ';
  return { settings: parsed, before, indent };
}

/** Writes the settings in the file's own indentation, atomically; false when the bytes would not change. */
async function writeSettings(file: string, settings: Record<string, unknown>, before: string | null, indent: string): Promise<boolean> {
  const text = `${JSON.stringify(settings, null, indent)}${before === null || before.endsWith('\n') ? '\n' : ''}`;
  if (text === before) return false;
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.vaultkeeper-${process.pid}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  // The file keeps its own permissions (settings may be private).
  const mode = before === null ? null : (await stat(file)).mode & 0o777;
  if (mode !== null) await chmod(temp, mode);
  await rename(temp, file);
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
