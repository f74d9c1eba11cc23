/**
 * YAML for frontmatter: the `yaml` package's reading (YAML 1.2, core schema), taken through js-yaml when
 * the block has none of the shapes where the two part, since js-yaml reads a block in ~60% of the time.
 * js-yaml runs with its failsafe schema plus the core schema's scalars as `yaml` resolves them (the
 * patterns of yaml/dist/schema/core/), and `json: true` so a repeated key keeps its last value as with
 * `uniqueKeys: false`. Everything else goes to `yaml`: a block js-yaml refuses (so an invalid block gets
 * `yaml`'s error), and a block that may hold a key that is not a string (`~: x`, `[a, b]: x`, `? key`,
 * an alias), a directive or a key past `yaml`'s 1,024 characters. test/unit/frontmatter-yaml.test.ts
 * compares the two readings on thousands of generated blocks.
 */
import { FAILSAFE_SCHEMA, load, Type } from 'js-yaml';
import { yamlLib } from './yaml-lib.js';
import { readFlat } from './frontmatter-flat.js';
import { CORE_SCALARS, type CoreScalar } from './frontmatter-scalars.js';

/** The `yaml` package never runs code; duplicate keys are tolerated (the last wins) as Obsidian does. */
export const YAML_OPTIONS = { logLevel: 'error', uniqueKeys: false, maxAliasCount: 100 } as const;

/**
 * Shapes where js-yaml's reading could part from `yaml`'s, found by the differential test. Over-broad on
 * purpose: a false alarm only costs the slower parser.
 * - a key `yaml` reads otherwise (`""` and `"[ a, b ]"` where js-yaml has `"null"` and `"a,b"`): a null
 *   key, a flow collection as a key, an explicit `?` key or a bare `:`, an alias (it may stand for any of
 *   those), and any flow mapping (its keys need no `:`, so `{ ~ }` has a null key);
 * - an anchor or a tag (`key: &a x: y` is an error to `yaml` only);
 * - a `#` right after a bracket or a comma (after a quote: see spansLines), an error to `yaml`
 *   and a comment to js-yaml;
 * - an empty sequence item (`-` alone, `- - `): ending a nested sequence, js-yaml takes the next item of
 *   the outer one into it;
 * - a block scalar with an indentation indicator or kept line breaks (`|2`, `>+`): blank lines at its end differ;
 * - a `%` directive (`%YAML 1.1` changes `yaml`'s schema), a byte-order mark (`yaml` drops one that
 *   starts a line) and a lone carriage return.
 */
const DIFFERS_RE =
  /(?:^|[\s[{,])(?:[?:](?:[\s,\]}]|$)|[*{&!]|(?:~|null|Null|NULL)[ \t]*:)|[\]}][ \t]*:|[[\]{},]#|(?:^|[ \t])-[ \t]*(?:#.*)?$|[|>](?:[-+]?[1-9]|[1-9]?\+)|^%|[\uFEFF\r]/mu;
/** `yaml` refuses an implicit key longer than this; js-yaml has no such bound. */
const MAX_KEY_CHARS = 1024;

/** Core-schema scalars under tags of their own, so an explicit `!!int` is unknown to js-yaml and goes to `yaml`. */
function coreScalar({ name, pattern, construct }: CoreScalar): Type {
  return new Type(`tag:vaultkeeper.local,2026:${name}`, {
    kind: 'scalar',
    resolve: (data: unknown) => typeof data === 'string' && pattern.test(data),
    construct: (data: string) => construct(data),
  });
}

const SCHEMA = FAILSAFE_SCHEMA.extend({ implicit: CORE_SCALARS.map(coreScalar) });

/**
 * The value of a YAML source as `yaml.parse(source, YAML_OPTIONS)` returns it (undefined for an empty
 * document); when it does not parse, `yaml`'s error is thrown.
 */
export function parseFrontmatterYaml(source: string): unknown {
  const flat = readFlat(source);
  if (flat !== undefined) return flat.value;
  const fast = readFast(source);
  return fast === undefined ? (yamlLib().parse(source, YAML_OPTIONS) as unknown) : fast.value;
}

/** js-yaml's reading of `source`, or undefined when it is `yaml`'s to read (the block may differ, or js-yaml refused it). */
export function readFast(source: string): { value: unknown } | undefined {
  if (mayDiffer(source)) return undefined;
  try {
    // js-yaml reads an empty document as undefined, `yaml` as null.
    return { value: load(source, { schema: SCHEMA, json: true }) ?? null };
  } catch {
    return undefined;
  }
}

function mayDiffer(source: string): boolean {
  return DIFFERS_RE.test(source) || spansLines(source) || hasLongLine(source);
}

const SPACE = 0x20;
const TAB = 0x09;
const HASH = 0x23;
const DOUBLE = 0x22;
const SINGLE = 0x27;
const BACKSLASH = 0x5c;
const LF = 0x0a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * A quoted scalar or a flow sequence that goes on to the next line (js-yaml takes the next lines at any
 * indentation, where `yaml` wants them indented past the key's), or a quoted scalar followed right away
 * by `#` (a comment to js-yaml, an error to `yaml`). A quote counts where a scalar may start: first on
 * its line, or after white space, `[`, `{`, `,` or `:`; a quote anywhere else is text.
 */
function spansLines(source: string): boolean {
  if (!source.includes('"') && !source.includes("'") && !source.includes('[')) return false;
  const length = source.length;
  let previous = LF;
  let open = 0;
  for (let at = 0; at < length; at++) {
    let code = source.charCodeAt(at);
    if (code === HASH && (previous === SPACE || previous === TAB || previous === LF)) {
      // A comment: nothing on the rest of the line counts.
      at = source.indexOf('\n', at);
      if (at < 0) return false;
      code = LF;
    }
    if (code === LF) {
      if (open > 0) return true;
    } else if (code === OPEN_BRACKET) {
      open++;
    } else if (code === CLOSE_BRACKET) {
      open = Math.max(0, open - 1);
    } else if ((code === DOUBLE || code === SINGLE) && startsScalar(previous)) {
      const close = closingQuote(source, at, code);
      if (close < 0 || source.charCodeAt(close + 1) === HASH) return true;
      at = close;
    }
    previous = code;
  }
  return false;
}

function startsScalar(previous: number): boolean {
  // Line break, space, tab, [ { , :
  return previous === LF || previous === SPACE || previous === TAB || previous === 0x5b || previous === 0x7b || previous === 0x2c || previous === 0x3a;
}

/** Where the quoted scalar opened at `open` closes on the same line, or -1. */
function closingQuote(source: string, open: number, quote: number): number {
  for (let at = open + 1; at < source.length; at++) {
    const code = source.charCodeAt(at);
    if (code === LF) return -1;
    if (quote === DOUBLE && code === BACKSLASH) at++;
    else if (code === quote) {
      if (quote === SINGLE && source.charCodeAt(at + 1) === SINGLE) at++;
      else return at;
    }
  }
  return -1;
}

function hasLongLine(source: string): boolean {
  if (source.length <= MAX_KEY_CHARS) return false;
  for (let start = 0; start < source.length; ) {
    const end = source.indexOf('\n', start);
    const stop = end < 0 ? source.length : end;
    if (stop - start > MAX_KEY_CHARS) return true;
    start = stop + 1;
  }
  return false;
}
