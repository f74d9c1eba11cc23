/**
 * A page's YAML frontmatter, read the way Obsidian reads it: a block that opens on the first line with
 * `---` and closes at the next line that is exactly `---`. The values are read leniently (a person
 * types them by hand): a scalar where a list belongs is a list of one, tags may be written with or
 * without `#`, and a field of the wrong shape is dropped rather than failing the page. YAML that does
 * not parse is reported, never thrown, and the page is then read as if it had no frontmatter.
 */
import { YAMLError } from 'yaml';
import { z } from 'zod';
import { errorMessage } from '../core/errors.js';
import { parseFrontmatterYaml } from './frontmatter-yaml.js';
import { isBlank } from './source.js';

export interface Frontmatter {
  title?: string;
  type?: string;
  tags: string[];
  status?: string;
  aliases: string[];
  /** Every property as parsed, for callers that want more than the fields above. */
  raw: Record<string, unknown>;
}

export interface FrontmatterResult {
  frontmatter: Frontmatter;
  /** Lines the block takes, delimiters included (0 when there is none or it does not parse). */
  lineCount: number;
  /** Why the block could not be read, with its file line when known. */
  error?: string;
}

const DELIMITER = '---';
/** A block with more than this many blank characters in a row is refused (gray-matter, used up to 0.1, took quadratic time on one). */
const MAX_BLANK_RUN = 2_000;

const scalar = z.union([z.string(), z.number(), z.boolean()]).transform((value) => String(value).trim());
const optionalText = scalar
  .pipe(z.string().min(1))
  .optional()
  .catch(() => undefined);

/** A list written as a YAML list, or as one string separated by commas (and, for tags, spaces). */
function listOf(separator: RegExp) {
  const item = z.union([z.string(), z.number()]).transform((value) => String(value).split(separator));
  return z
    .union([item, z.array(z.unknown()).transform((values) => values.flatMap((value) => item.safeParse(value).data ?? []))])
    .optional()
    .catch(() => undefined)
    .transform((values) => values ?? []);
}

const TAG_SEPARATOR = /[\s,]+/u;
const ALIAS_SEPARATOR = /,/u;

const FrontmatterSchema = z.object({
  title: optionalText,
  type: optionalText,
  status: optionalText,
  tags: listOf(TAG_SEPARATOR),
  tag: listOf(TAG_SEPARATOR),
  aliases: listOf(ALIAS_SEPARATOR),
  alias: listOf(ALIAS_SEPARATOR),
});

function emptyFrontmatter(): Frontmatter {
  return { tags: [], aliases: [], raw: {} };
}

/** Reads the frontmatter at the top of `lines` (as split by sourceLines). Never throws. */
export function readFrontmatter(lines: readonly string[]): FrontmatterResult {
  if (lines[0]?.trimEnd() !== DELIMITER) return { frontmatter: emptyFrontmatter(), lineCount: 0 };
  const close = lines.findIndex((line, index) => index > 0 && line.trimEnd() === DELIMITER);
  if (close < 0) return failed('the frontmatter opened on line 1 is never closed; end it with a line holding only ---');
  const block = lines.slice(1, close);

  // A line that starts with --- before the closing one: YAML would read it as a second document.
  const early = block.findIndex((line) => line.startsWith(DELIMITER));
  if (early >= 0) return failed(`line ${early + 2}: a frontmatter line may not start with --- before the closing line`);
  let blankRun = 0;
  for (const line of block) {
    blankRun = isBlank(line) ? blankRun + line.length + 1 : 0;
    if (blankRun > MAX_BLANK_RUN) return failed('the frontmatter holds a long run of blank lines; remove them');
  }

  let value: unknown;
  try {
    // The block starts on file line 2 and the source starts with the newline after the opening ---,
    // so a YAML error's line number is already a file line number.
    value = parseFrontmatterYaml(`\n${block.join('\n')}`) ?? null;
  } catch (error) {
    return failed(yamlErrorMessage(error));
  }
  if (value === null) return { frontmatter: emptyFrontmatter(), lineCount: close + 1 };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return failed('the frontmatter is not a list of `key: value` properties');
  }
  return { frontmatter: normalizeFrontmatter(value as Record<string, unknown>), lineCount: close + 1 };
}

export function normalizeFrontmatter(raw: Record<string, unknown>): Frontmatter {
  const fields = textFields(raw) ?? schemaFields(raw);
  const frontmatter: Frontmatter = {
    tags: unique([...fields.tags, ...fields.tag].map((tag) => tag.trim().replace(/^#+/u, '').trim())),
    aliases: unique([...fields.aliases, ...fields.alias].map((alias) => alias.trim())),
    raw,
  };
  if (fields.title !== undefined) frontmatter.title = fields.title;
  if (fields.type !== undefined) frontmatter.type = fields.type;
  if (fields.status !== undefined) frontmatter.status = fields.status;
  return frontmatter;
}

type Fields = z.output<typeof FrontmatterSchema>;

/** The fields as the schema reads them, whatever their shapes. */
export function schemaFields(raw: Record<string, unknown>): Fields {
  return FrontmatterSchema.parse(raw);
}

/**
 * The schema's reading when each field is absent or a string, as nearly every page writes them; undefined
 * otherwise (the schema reads the rest). A cold build reads a thousand pages, and zod's first thousand parses
 * cost it ~0.05 s of CPU (docs/benchmarks.md); test/unit/pages-frontmatter.test.ts holds the two equal.
 */
export function textFields(raw: Record<string, unknown>): Fields | undefined {
  const { title, type, status, tags, tag, aliases, alias } = raw;
  for (const value of [title, type, status, tags, tag, aliases, alias]) if (value !== undefined && typeof value !== 'string') return undefined;
  return {
    title: nonEmpty(title as string | undefined),
    type: nonEmpty(type as string | undefined),
    status: nonEmpty(status as string | undefined),
    tags: (tags as string | undefined)?.split(TAG_SEPARATOR) ?? [],
    tag: (tag as string | undefined)?.split(TAG_SEPARATOR) ?? [],
    aliases: (aliases as string | undefined)?.split(ALIAS_SEPARATOR) ?? [],
    alias: (alias as string | undefined)?.split(ALIAS_SEPARATOR) ?? [],
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const text = value?.trim();
  return text === '' ? undefined : text;
}

function failed(error: string): FrontmatterResult {
  return { frontmatter: emptyFrontmatter(), lineCount: 0, error };
}

function yamlErrorMessage(error: unknown): string {
  if (error instanceof YAMLError) {
    const first = (error.message.split('\n')[0] ?? error.message).replace(/:$/u, '');
    const line = error.linePos?.[0].line;
    // The yaml package already says "at line N, column M"; keep that, or add the line when it does not.
    return line === undefined || /\bline \d+/u.test(first) ? `invalid YAML: ${first}` : `line ${line}: invalid YAML: ${first}`;
  }
  return `invalid frontmatter: ${errorMessage(error)}`;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.filter((value) => value !== ''))];
}
