/**
 * A page's YAML frontmatter, read the way Obsidian reads it: a block that opens on the first line with
 * `---` and closes at the next line that is exactly `---`. The values are read leniently (a person
 * types them by hand): a scalar where a list belongs is a list of one, tags may be written with or
 * without `#`, and a field of the wrong shape is dropped rather than failing the page. YAML that does
 * not parse is reported, never thrown, and the page is then read as if it had no frontmatter.
 */
import { errorMessage } from '../core/errors.js';
import { parseFrontmatterYaml } from './frontmatter-yaml.js';
import { yamlLib } from './yaml-lib.js';
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

const TAG_SEPARATOR = /[\s,]+/u;
const ALIAS_SEPARATOR = /,/u;

/** The fields read, each of any shape a person may have typed (fieldsOf). */
interface Fields {
  title: string | undefined;
  type: string | undefined;
  status: string | undefined;
  tags: string[];
  tag: string[];
  aliases: string[];
  alias: string[];
}

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
  const fields = fieldsOf(raw);
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

/**
 * The fields, read leniently: a text field is a string, finite number or boolean, trimmed, and absent when empty;
 * a list is a string or finite number split at its separator, or a YAML list of those (other items dropped); any
 * other shape reads as absent. Read by hand, not with a schema library: zod's modules cost every rebuild ~50 ms to load, and its first
 * thousand parses ~0.05 s more (docs/benchmarks.md). test/unit/pages-frontmatter.test.ts holds this equal to the
 * zod schema it replaced on thousands of generated values.
 */
export function fieldsOf(raw: Record<string, unknown>): Fields {
  return {
    title: text(raw.title),
    type: text(raw.type),
    status: text(raw.status),
    tags: list(raw.tags, TAG_SEPARATOR),
    tag: list(raw.tag, TAG_SEPARATOR),
    aliases: list(raw.aliases, ALIAS_SEPARATOR),
    alias: list(raw.alias, ALIAS_SEPARATOR),
  };
}

/** A finite number: YAML's `.nan` and `.inf` are no text a person meant. */
function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function text(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'boolean' && !isNumber(value)) return undefined;
  const trimmed = String(value).trim();
  return trimmed === '' ? undefined : trimmed;
}

function list(value: unknown, separator: RegExp): string[] {
  const item = (one: unknown): string[] => (typeof one === 'string' || isNumber(one) ? String(one).split(separator) : []);
  return Array.isArray(value) ? value.flatMap(item) : item(value);
}

function failed(error: string): FrontmatterResult {
  return { frontmatter: emptyFrontmatter(), lineCount: 0, error };
}

function yamlErrorMessage(error: unknown): string {
  if (error instanceof yamlLib().YAMLError) {
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
