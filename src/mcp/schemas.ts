/**
 * The memory tools' inputs, parsed at the boundary: a description on every field (agents read them in
 * the tool list) and, on every field, one message that says what is allowed (agents read it when a call
 * is refused; the SDK adds the field's path).
 */
import { z } from 'zod';
import { isValidDate } from '../core/clock.js';
import { ROW_KINDS } from '../indexer/rows.js';
import { CATEGORIES, MAX_FACT_CHARS } from '../logs/factlog.js';

export const MAX_K = 50;
export const MAX_FACTS = 100;

/** One message for every way a field can be wrong: what it is and what is allowed. */
const wrong = (message: string): { error: string } => ({ error: message });

/** A tool's input: an object whose unknown fields are refused by name (a misspelt filter must not be ignored). */
function toolInput<Shape extends z.ZodRawShape>(shape: Shape): z.ZodObject<Shape, z.core.$strict> {
  const fields = Object.keys(shape);
  const allowed = fields.length === 0 ? 'it takes no arguments' : `the fields are: ${fields.join(', ')}`;
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.map((k) => `'${k}'`).join(', ')}; ${allowed}` : `expected an object; ${allowed}`),
  });
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
function dateField(field: string): z.ZodString {
  const error = wrong(`${field} must be a calendar date written YYYY-MM-DD, e.g. 2026-06-09`);
  return z.string(error).regex(DATE_RE, error).refine(isValidDate, error);
}

/** Text that is not blank once trimmed, at most `max` characters. */
function textField(message: string, max: number): z.ZodString {
  const error = wrong(message);
  return z.string(error).trim().min(1, error).max(max, error);
}

function booleanField(field: string): z.ZodBoolean {
  return z.boolean(wrong(`${field} must be true or false`));
}

const categoryField = z.enum(CATEGORIES, wrong(`category must be one of: ${CATEGORIES.join(', ')}`));
const kError = wrong(`k must be a whole number from 1 to ${MAX_K}`);
const idError = wrong('id must be a fact id like f-7k2m9q0a1b; find a fact\'s id with memory_search (fact results carry "id")');
const EXAMPLE_FACT = '{"text": "Prefers dark roast coffee", "category": "preference"}';

/** Which served vault (docs/integrations.md: many vaults, one server); absent: the server's default vault. */
const vaultField = z
  .string(wrong('vault must be the name of a served vault, e.g. "work"'))
  .trim()
  .min(1, wrong('vault must be the name of a served vault, e.g. "work"'))
  .max(40, wrong('vault must be the name of a served vault, e.g. "work"'))
  .optional()
  .describe('Which vault (default: the server\'s first)');

export const SearchInput = toolInput({
  query: textField('query must be a non-empty text to look for, at most 1000 characters, e.g. "coffee preferences"', 1000).describe(
    'What to look for, in plain words, e.g. "coffee preferences" or "where does she live"',
  ),
  k: z.number(kError).int(kError).min(1, kError).max(MAX_K, kError).optional().describe(`How many results, 1 to ${MAX_K} (default 10)`),
  kind: z
    .enum(ROW_KINDS, wrong(`kind must be one of: ${ROW_KINDS.join(', ')}`))
    .optional()
    .describe('Only this kind: fact (a line of a daily log), page (a section of a wiki page), core (MEMORY.md)'),
  category: categoryField.optional().describe('Only facts of this category'),
  tag: textField('tag must be a tag name, e.g. coffee', 200).optional().describe('Only results with this tag, without the #, e.g. coffee'),
  since: dateField('since').optional().describe('Only results dated on or after this day, YYYY-MM-DD'),
  until: dateField('until').optional().describe('Only results dated on or before this day, YYYY-MM-DD'),
  archived: booleanField('archived').optional().describe('Include archived pages (5_Archives/ or status: archived); default false'),
  max_chars: z
    .number(wrong('max_chars must be a whole number of characters, e.g. 2000'))
    .int(wrong('max_chars must be a whole number of characters, e.g. 2000'))
    .min(1, wrong('max_chars must be at least 1'))
    .optional()
    .describe('A budget on the characters of all results\' text together, e.g. 2000; results past it are left out'),
  min_score: z
    .number(wrong('min_score must be a number from 0 to 1, e.g. 0.3'))
    .min(0, wrong('min_score must be a number from 0 to 1, e.g. 0.3'))
    .max(1, wrong('min_score must be a number from 0 to 1, e.g. 0.3'))
    .optional()
    .describe('Leave out results scoring below this; scores run from 0 to 1, higher is better'),
  vault: vaultField.describe('Which vault, or "all" to search every served vault (default: the server\'s first)'),
});

const FactInput = toolInput({
  text: textField('text must be the fact in one line, e.g. "Prefers dark roast coffee"', MAX_FACT_CHARS).describe(
    'One line that stands on its own, e.g. "Prefers dark roast coffee"; "home city:: Lisbon" is a keyed fact a later value supersedes',
  ),
  category: categoryField.optional().describe('The kind of fact (default fact)'),
  tags: z
    .array(z.string(wrong('each tag must be a tag name, e.g. coffee')), wrong('tags must be a list of tag names, e.g. ["coffee"]'))
    .max(20, wrong('at most 20 tags a fact'))
    .optional()
    .describe('Tags without the #: letters, digits, _, - and /, e.g. ["coffee", "health/sleep"]'),
  date: dateField('date').optional().describe("The day the fact belongs to, YYYY-MM-DD (default: today in the vault's time zone)"),
});

export const RememberInput = toolInput({
  facts: z
    .array(FactInput, wrong(`facts must be a list of facts, e.g. [${EXAMPLE_FACT}]`))
    .min(1, wrong(`facts must hold at least one fact, e.g. [${EXAMPLE_FACT}]`))
    .max(MAX_FACTS, wrong(`at most ${MAX_FACTS} facts a call; send the rest in another call`))
    .describe(`The facts to remember, 1 to ${MAX_FACTS}; they are appended as one batch per day and one commit`),
  source: textField('source must be a short label of at most 200 characters, e.g. claude-code', 200)
    .default('mcp')
    .describe('Where the facts came from, shown in the log\'s batch header, e.g. "claude-code/3f9a1c" (default "mcp")'),
  vault: vaultField,
});

export const ForgetInput = toolInput({
  id: z
    .string(idError)
    .trim()
    .regex(/^\^?f-[0-9a-z]{10}$/, idError)
    .optional()
    .describe('The id of the one fact to forget, e.g. f-7k2m9q0a1b (from memory_search); give id or match, not both'),
  match: textField('match must be some words, e.g. "dark roast"', 1000)
    .optional()
    .describe('Forget every fact whose text contains these words (whole words, case and punctuation ignored); give id or match, not both'),
  reason: textField('reason must be a short text of at most 1000 characters', 1000)
    .optional()
    .describe('Why, kept in the tombstone and the commit message, e.g. "wrong" or "asked to forget"'),
  vault: vaultField,
});

const lineError = wrong('from_line must be a line number, 1 or more');
const maxLinesError = wrong('max_lines must be a whole number of lines, 1 or more');

export const ReadInput = toolInput({
  path: textField('path must be a vault-relative path of a .md file, e.g. 2_Areas/Coffee.md', 4096).describe(
    'Relative to the vault: a page from a search result (e.g. 2_Areas/Coffee.md), a daily log (logs/YYYY-MM-DD.md, or the day YYYY-MM-DD), or MEMORY.md, index.md, schema.md, log.md',
  ),
  from_line: z
    .number(lineError)
    .int(lineError)
    .min(1, lineError)
    .optional()
    .describe('First line to return, 1-based (e.g. a search result\'s line); default 1'),
  max_lines: z
    .number(maxLinesError)
    .int(maxLinesError)
    .min(1, maxLinesError)
    .optional()
    .describe('Most lines to return (default: to the end)'),
  vault: vaultField,
});

export const ConsolidateInput = toolInput({
  dry_run: booleanField('dry_run').default(true).describe('true (the default): change nothing and return the diff the run would commit; false: rewrite pages and commit'),
  force: booleanField('force').default(false).describe('Skip the gate (enough pending facts, enough time since the last run); never the lock'),
  offline: booleanField('offline').default(false).describe('Use the deterministic offline consolidator even when an LLM is configured'),
  vault: vaultField,
});

export const StatusInput = toolInput({ vault: vaultField });

export const MAX_CONTEXT_BUDGET = 50_000;
const budgetError = wrong(`budget must be a whole number of characters from 500 to ${MAX_CONTEXT_BUDGET}`);

export const ContextInput = toolInput({
  subject: textField('subject must be a name or topic, e.g. "Caroline" or "coffee", at most 200 characters', 200).describe(
    'Who or what: a person, project, place or topic, as a page would be named, e.g. "Caroline" or "coffee"',
  ),
  budget: z
    .number(budgetError)
    .int(budgetError)
    .min(500, budgetError)
    .max(MAX_CONTEXT_BUDGET, budgetError)
    .optional()
    .describe(`The most characters the answer may take, 500 to ${MAX_CONTEXT_BUDGET} (default 4000); the least important parts are left out first and counted in "omitted"`),
  vault: vaultField,
});

const daysError = wrong('days must be a whole number of days from 1 to 365');
const limitError = wrong('limit must be a whole number from 1 to 100');

export const RecentInput = toolInput({
  days: z.number(daysError).int(daysError).min(1, daysError).max(365, daysError).optional().describe('How many days back, today included, 1 to 365 (default 7)'),
  limit: z.number(limitError).int(limitError).min(1, limitError).max(100, limitError).optional().describe('Most items in each list, 1 to 100 (default 20)'),
  vault: vaultField,
});

/**
 * A tool's input without `vault`, for a server of one vault: a field no call can use would cost tokens in every
 * tools/list. Typed as the input it came from (its `vault` is then always undefined).
 */
export function withoutVault<Shape extends z.ZodRawShape>(input: z.ZodObject<Shape, z.core.$strict>): z.ZodObject<Shape, z.core.$strict> {
  const { vault: _vault, ...shape } = input.shape;
  return toolInput(shape) as unknown as z.ZodObject<Shape, z.core.$strict>;
}
