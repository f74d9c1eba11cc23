/**
 * What an agent is given when a session starts (an agent's SessionStart hook): MEMORY.md, then what the
 * vault knows about the project the session runs in (its page, current values, recent facts, open
 * commitments), within a token budget. Tokens are estimated at 4 characters each, the usual rule for
 * English text; the budget is kept in characters, so the estimate never undercounts by design.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { MEMORY_FILE } from '../dream/memory.js';
import type { VaultReader } from '../vault/reader.js';
import { subjectContext, type SubjectContext } from './context.js';

export const DEFAULT_SESSION_TOKENS = 1_500;
export const CHARS_PER_TOKEN = 4;

export interface SessionStartContext {
  text: string;
  chars: number;
  /** Estimated tokens (characters / 4, rounded up). */
  tokens: number;
  budget_tokens: number;
  /** The project the context was gathered for (the session's folder name), or null. */
  project: string | null;
  /** Lines of MEMORY.md left out to keep within the budget. */
  memory_lines_omitted: number;
}

export interface SessionStartOptions {
  /** The session's working folder: its name is the project looked up in the vault. */
  cwd?: string | undefined;
  budgetTokens?: number | undefined;
}

export async function sessionStartContext(vault: VaultReader, options: SessionStartOptions = {}): Promise<SessionStartContext> {
  const budgetTokens = options.budgetTokens ?? DEFAULT_SESSION_TOKENS;
  const budget = budgetTokens * CHARS_PER_TOKEN;
  const project = options.cwd === undefined ? null : path.basename(path.resolve(options.cwd)) || null;
  const header = `# Memory (vaultkeeper; search it with the memory tools or \`vaultkeeper search\`)\n`;
  const memory = await readFile(path.join(vault.root, MEMORY_FILE), 'utf8').catch(() => '');
  // MEMORY.md takes up to two thirds of the budget when there is a project to say something about.
  const memoryBudget = Math.max(0, (project === null ? budget : Math.floor((budget * 2) / 3)) - header.length);
  const { kept, omitted } = fitLines(memory.replace(/^# Memory\s*\n/, '').trim(), memoryBudget);
  let text = `${header}${kept}${omitted > 0 ? `\n… ${omitted} more lines in MEMORY.md` : ''}\n`;
  if (project !== null) {
    const left = budget - text.length;
    if (left > 200) {
      const context = await subjectContext(vault, project, { budget: left, limit: 10 });
      const rendered = renderContext(context);
      if (rendered !== '') text += `\n${fitLines(`## This project: ${project}\n${rendered}`, left - 1).kept}\n`;
    }
  }
  if (text.length > budget) text = fitLines(text, budget).kept;
  return { text, chars: text.length, tokens: Math.ceil(text.length / CHARS_PER_TOKEN), budget_tokens: budgetTokens, project, memory_lines_omitted: omitted };
}

/** The leading lines of `text` that fit in `budget` characters (newlines counted), and how many were left out. */
function fitLines(text: string, budget: number): { kept: string; omitted: number } {
  const lines = text.split('\n');
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const cost = line.length + (kept.length > 0 ? 1 : 0);
    if (used + cost > budget - 40) break; // room for the "… more lines" note
    kept.push(line);
    used += cost;
  }
  return { kept: kept.join('\n'), omitted: lines.length - kept.length };
}

function renderContext(context: SubjectContext): string {
  const lines: string[] = [];
  for (const page of context.pages) {
    lines.push(`- ${page.link}${page.lead === '' ? '' : `: ${page.lead}`}`);
    for (const value of page.current) lines.push(`  - ${value.key}: ${value.value}`);
    for (const task of page.open_tasks) lines.push(`  - [ ] ${task}`);
  }
  if (context.recent_facts.length > 0) lines.push('Recent:');
  for (const fact of context.recent_facts) lines.push(`- ${fact.date} ${fact.text} ${fact.link}`);
  if (context.commitments.length > 0) lines.push('Open commitments:');
  for (const fact of context.commitments) lines.push(`- ${fact.text} ${fact.link}`);
  return lines.join('\n');
}
