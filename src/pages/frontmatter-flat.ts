/**
 * The commonest frontmatter, read without a YAML parser: one `key: value` a line at the left margin, each
 * value a plain scalar on its line or a quoted string without escapes (Dendron's `id`, `title`, `desc: ''`,
 * `updated: 1636510026672`). A cold build parses a thousand such blocks: js-yaml took ~0.1 s of CPU over
 * them, mostly in code not yet compiled (docs/benchmarks.md); here they cost a few regular expressions.
 * Anything else (a comment, an indented line, a list, a flow collection, an escape, a key YAML would read as
 * something other than its text) is left to frontmatter-yaml.ts. Plain scalars resolve by the core schema's
 * patterns, as `yaml` does; test/unit/frontmatter-yaml.test.ts compares the two on generated blocks.
 */
import { CORE_SCALARS } from './frontmatter-scalars.js';

/**
 * A key of letters, digits, `_` and `-` that starts with a letter or `_` (and stays well within `yaml`'s 1,024
 * characters), a colon, then spaces and a value or nothing (`key:value` is one plain scalar to YAML, not a key).
 */
const LINE_RE = /^([A-Za-z_][\w-]{0,999}):(?: +(.*))?$/u;
/** Keys the core schema reads as null or a boolean (a key is resolved like any scalar), and the one JavaScript key that is not plain. */
const SPECIAL_KEY_RE = /^(?:[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE|__proto__)$/u;
/**
 * Text this reader does not look into: a control character or tab, a line break YAML 1.1 knew (NEL, LS, PS),
 * a byte-order mark, a noncharacter, a lone surrogate. Over-broad on purpose: the block then goes to a parser.
 */
const UNUSUAL_RE = /[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufdcf\ufdf0-\ufefe\uff00-\ufffd\u{10000}-\u{10fffd}]/u;
/** A quoted string with nothing to unescape, alone on its line but for trailing spaces. */
const SINGLE_RE = /^'([^']*)' *$/u;
const DOUBLE_RE = /^"([^"\\]*)" *$/u;
/**
 * A plain scalar that stays one: not opening with an indicator (a `-` only before a non-space), no `#` (a comment after a space), no
 * brackets or braces, no `: ` or a final `:` (a nested key), no `'`/`"` (kept simple), trailing spaces aside.
 */
const PLAIN_RE = /^(?:[^\s\-?:,[\]{}#&*!|>'"%@`]|-(?=\S))(?:[^#[\]{}'":]|:(?=\S))*$/u;

/** Spaces only: a blank line to YAML (which, unlike String.trim, counts no other white space as space). */
const BLANK_RE = /^ *$/u;
const TRAILING_SPACES_RE = / +$/u;

/** The value of a flat block as `yaml.parse` gives it, or undefined when the block is not flat. */
export function readFlat(source: string): { value: Record<string, unknown> } | undefined {
  if (UNUSUAL_RE.test(source)) return undefined;
  const value: Record<string, unknown> = {};
  let keys = 0;
  for (const line of source.split('\n')) {
    if (BLANK_RE.test(line)) continue;
    const match = LINE_RE.exec(line);
    if (match === null || SPECIAL_KEY_RE.test(match[1]!)) return undefined;
    const scalar = readScalar((match[2] ?? '').replace(TRAILING_SPACES_RE, ''));
    if (scalar === undefined) return undefined;
    value[match[1]!] = scalar.value; // a repeated key keeps its first place and its last value, as in `yaml`
    keys++;
  }
  return keys === 0 ? undefined : { value };
}

function readScalar(text: string): { value: unknown } | undefined {
  if (text === '') return { value: null };
  const quote = text[0] === "'" ? SINGLE_RE.exec(text) : text[0] === '"' ? DOUBLE_RE.exec(text) : null;
  if (quote !== null) return { value: quote[1] };
  if (!PLAIN_RE.test(text)) return undefined;
  for (const scalar of CORE_SCALARS) if (scalar.pattern.test(text)) return { value: scalar.construct(text) };
  return { value: text };
}
