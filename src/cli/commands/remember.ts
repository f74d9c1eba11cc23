import type { z } from 'zod';
import { UsageError } from '../../core/errors.js';
import type { FactInput } from '../../logs/factlog.js';
import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { note, plural, printJson, printLine } from '../output.js';

interface RememberOptions {
  category?: string;
  tag?: string[];
  source?: string;
  date?: string;
  stdin?: boolean;
  json?: boolean;
}

/** The validator of a JSON fact line; zod loads only when standard input holds one. */
async function jsonLine(): Promise<z.ZodType<{ text: string; category?: string | undefined; tags?: string[] | undefined; date?: string | undefined }>> {
  const { z } = await import('zod');
  return z.strictObject({
    text: z.string(),
    category: z.string().optional(),
    tags: z.array(z.string()).optional(),
    date: z.string().optional(),
  });
}

export async function run(words: string[], opts: RememberOptions, globals: GlobalOptions): Promise<void> {
  const defaults = { category: opts.category, tags: opts.tag, date: opts.date };
  let inputs: FactInput[];
  if (opts.stdin) {
    if (words.length > 0) throw new UsageError('give the fact as an argument or with --stdin, not both');
    inputs = await parseStdinFacts(await readStdin(), defaults);
    if (inputs.length === 0) throw new UsageError('--stdin read no facts: standard input was empty');
  } else {
    const text = words.join(' ');
    if (text.trim() === '') throw new UsageError('remember needs the fact to remember', 'e.g. vaultkeeper remember "Prefers dark roast coffee" -c preference');
    inputs = [{ text, ...defaults }];
  }
  const vault = await openVault({ vault: globals.vault });
  const result = await vault.remember(inputs, { source: opts.source });
  // Stored but not committed is still remembered: exit 0, and say so on stderr (docs/cli.md).
  if (result.warning !== undefined) note(`vaultkeeper: warning: ${result.warning}`);
  if (result.note !== undefined) note(`vaultkeeper: note: ${result.note}`);
  if (result.hiddenNote !== undefined) note(`vaultkeeper: note: ${result.hiddenNote}`);
  if (result.redactedNote !== undefined) note(`vaultkeeper: note: ${result.redactedNote}`);
  if (opts.json) {
    printJson({ facts: result.facts.map((f) => ({ id: f.id, date: f.date, path: f.path, line: f.line, category: f.category, text: f.text, tags: f.tags })), commit: result.commit, late: result.late, ...(result.warning === undefined ? {} : { warning: result.warning }), ...(result.note === undefined ? {} : { note: result.note }), hidden: result.hidden, ...(result.hiddenNote === undefined ? {} : { hidden_note: result.hiddenNote }), redacted: result.redacted, ...(result.redactedNote === undefined ? {} : { redacted_note: result.redactedNote }) });
    return;
  }
  if (result.facts.length === 1) {
    const fact = result.facts[0]!;
    printLine(`${fact.id}\t${fact.path}:${fact.line}`);
    return;
  }
  printLine(`remembered ${plural(result.facts.length, 'fact')}`);
  for (const fact of result.facts) printLine(`${fact.id}\t${fact.path}:${fact.line}`);
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Plain lines are facts; a line starting with `{` is a JSON fact. A bad line rejects the whole batch. */
export async function parseStdinFacts(content: Buffer, defaults: { category?: string | undefined; tags?: string[] | undefined; date?: string | undefined }): Promise<FactInput[]> {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(content).replace(/^\uFEFF/, '');
  const inputs: FactInput[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  const JsonLine = lines.some((line) => line.trimStart().startsWith('{')) ? await jsonLine() : null;
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    if (!line.trimStart().startsWith('{')) {
      inputs.push({ text: line, ...defaults });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`stdin line ${index + 1} starts with '{' but is not valid JSON; nothing was written`, 'write one JSON object a line: {"text": "...", "category": "...", "tags": [...], "date": "YYYY-MM-DD"}');
    }
    const parsed = JsonLine!.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new UsageError(`stdin line ${index + 1}: ${issue.path.join('.') || 'object'}: ${issue.message}; nothing was written`, 'allowed keys: text (required), category, tags, date');
    }
    inputs.push({
      text: parsed.data.text,
      category: parsed.data.category ?? defaults.category,
      tags: [...(defaults.tags ?? []), ...(parsed.data.tags ?? [])],
      date: parsed.data.date ?? defaults.date,
    });
  });
  return inputs;
}
