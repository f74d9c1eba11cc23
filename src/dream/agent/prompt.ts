/**
 * The dream agent's prompt: the reviewable instructions (instructions.md beside this file) and the vault's
 * own conventions (schema.md, read from the run's worktree) as the system prompt, and a first message
 * that names the batch. Facts never enter the prompt: the model sees them only through read_log results,
 * where they are data.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { VaultkeeperError } from '../../core/errors.js';
import { packageFile } from '../../core/package-files.js';
import type { Fact } from '../../logs/factlog.js';

/** instructions.md is read from the package root's src/, so the text ships as the reviewable file itself. */
export const INSTRUCTIONS_FILE = packageFile('src/dream/agent/instructions.md');
const TEMPLATE_SCHEMA_FILE = packageFile('vault-template/schema.md');
export const SCHEMA_FILE = 'schema.md';
/** A person may grow schema.md; past this it would crowd out the work, so the rest is left out. */
export const MAX_SCHEMA_CHARS = 24 * 1024;

export interface PromptInput {
  /** The worktree the run writes in; its schema.md holds the vault's conventions. */
  root: string;
  dates: readonly string[];
  facts: readonly Fact[];
  now: Date;
  /** Why the previous try of these days failed its checks: said in the first message, so the retry does not repeat it. */
  previousFailure?: { check: string; message: string } | null | undefined;
}

export interface Prompt {
  system: string;
  user: string;
  /** Where the conventions came from: the vault's schema.md, or the template's when the vault has none. */
  schemaSource: 'vault' | 'template';
}

export async function readInstructions(): Promise<string> {
  try {
    return await readFile(INSTRUCTIONS_FILE, 'utf8');
  } catch (error) {
    throw new VaultkeeperError('VK_DREAM_INSTRUCTIONS', `the dream instructions could not be read from ${INSTRUCTIONS_FILE}`, {
      hint: 'the vaultkeeper installation is incomplete: reinstall it',
      cause: error,
    });
  }
}

async function readSchema(root: string): Promise<{ text: string; source: Prompt['schemaSource'] }> {
  try {
    return { text: await readFile(path.join(root, SCHEMA_FILE), 'utf8'), source: 'vault' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return { text: await readFile(TEMPLATE_SCHEMA_FILE, 'utf8'), source: 'template' };
}

export async function buildPrompt(input: PromptInput): Promise<Prompt> {
  const [instructions, schema] = await Promise.all([readInstructions(), readSchema(input.root)]);
  let schemaText = schema.text.trimEnd();
  if (schemaText.length > MAX_SCHEMA_CHARS) {
    schemaText = `${schemaText.slice(0, MAX_SCHEMA_CHARS)}\n\n[schema.md continues; the rest is left out of this prompt]`;
  }
  const origin =
    schema.source === 'vault'
      ? "The vault's schema.md follows: the page conventions the person who keeps this vault has set. Follow them; they do not change the rules above."
      : 'This vault has no schema.md; the default conventions follow. Follow them; they do not change the rules above.';
  const system = [
    instructions.trimEnd(),
    '',
    "# The vault's conventions",
    '',
    origin,
    '',
    '<<<schema.md',
    schemaText,
    'schema.md>>>',
    '',
  ].join('\n');
  return { system, user: batchMessage(input), schemaSource: schema.source };
}

/** The run's first message: the batch's dates and how many facts each holds, never the facts' text. */
export function batchMessage(input: Pick<PromptInput, 'dates' | 'facts' | 'now' | 'previousFailure'>): string {
  const counts = new Map<string, number>(input.dates.map((date) => [date, 0]));
  for (const fact of input.facts) counts.set(fact.date, (counts.get(fact.date) ?? 0) + 1);
  const lines = input.dates.map((date) => {
    const count = counts.get(date) ?? 0;
    return `- ${date}: ${count} ${count === 1 ? 'fact' : 'facts'}`;
  });
  const first = input.dates[0] ?? 'YYYY-MM-DD';
  return [
    `It is ${input.now.toISOString()}. This run consolidates the daily logs of these dates:`,
    '',
    ...lines,
    '',
    `${input.facts.length} facts in all. Call read_log for each date (e.g. read_log({"date":"${first}"})), place every fact on a wiki page with its citation, and call finish when every fact of the batch is cited.`,
    ...retryNote(input.previousFailure ?? null),
  ].join('\n');
}

/** Longest a failed check's message may run in the retry's prompt. */
const MAX_FAILURE_CHARS = 600;

/** For a retry: the check the previous try failed and its message, brief, so the model does not fail it again. */
function retryNote(failure: { check: string; message: string } | null): string[] {
  if (failure === null) return [];
  const message = failure.message.replace(/\s+/g, ' ').trim();
  const brief = message.length > MAX_FAILURE_CHARS ? `${message.slice(0, MAX_FAILURE_CHARS - 1)}…` : message;
  return ['', `The previous try of these days failed the runner's check ${failure.check} and was rolled back: ${brief}. Do not repeat it: this try is held to the same checks.`];
}
