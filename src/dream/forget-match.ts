/**
 * What still states a forgotten fact (issue 30): a model may write a tombstoned fact back reworded, so a line
 * that repeats it verbatim is not the only trace. A text states a forgotten fact when it names the fact's id,
 * holds its normalized text as a run of whole words (tombstones.ts `repeats`), or holds one sentence made of
 * the fact's content words in any order (the word-order rule) or nearly so (the similarity rule). A page is
 * scrubbed by units, not lines: a list item or paragraph with its continuation lines (a fact reflowed over
 * two lines), and each frontmatter key with its value or list items (aliases, summary). The rules' false
 * positives on LoCoMo statements are measured by bench/dream-errors.ts (docs/benchmarks.md).
 */
import { normalizeText } from '../text/normalize.js';
import { parseFrontmatterYaml } from '../pages/frontmatter-yaml.js';
import { yamlLib } from '../pages/yaml-lib.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import { forgottenUnits, frontmatterEnd } from '../tombstones/lines.js';
import { contentWords, forgetMatcher, type ForgetMatcher } from '../tombstones/match.js';

// The matcher lives with the tombstones (the index filters lines with it too); the dream's importers find it here.
export { contentWords, forgetMatcher, MIN_ORDER_WORDS, MIN_SIMILAR_WORDS, SIMILARITY, type ForgetMatcher } from '../tombstones/match.js';

/**
 * Whether a page's name states a forgotten fact: the name as a text (the rules above), or a name of at least two
 * of the fact's content words that are not names (a page titled after what the fact says, shortened: "Allergic to
 * peanuts"; never the page of a person the fact names, "Ana Lopez").
 */
export function nameStatesForgotten(name: string, tombstones: TombstoneSet): boolean {
  const matcher = forgetMatcher(tombstones);
  if (matcher.empty) return false;
  if (matcher.matches(name)) return true;
  const words = contentWords(normalizeText(name));
  if (words.size < 2) return false;
  // Tombstones keep the text normalized (lower case), so the names are read from the page's name: its capitalized
  // words, the first one too unless a later word is lower case ("Alice Chen" is a name; "Allergic to peanuts" is not).
  const names = namesIn(name);
  return tombstones.entries.some((e) => {
    if (e.text === undefined) return false;
    const fact = contentWords(normalizeText(e.text));
    const said = [...words].filter((w) => !names.has(w));
    return [...words].every((w) => fact.has(w)) && said.length >= 2;
  });
}

/** The stems of a page name's words that are names: capitalized, the first word only when no later word is lower case. */
function namesIn(name: string): Set<string> {
  const tokens = name.split(/[\s_]+/u).filter((t) => /\p{L}/u.test(t));
  const sentenceCase = tokens.slice(1).some((t) => /^\p{Ll}/u.test(t));
  return new Set(
    tokens.filter((t, i) => /^\p{Lu}/u.test(t) && !(i === 0 && sentenceCase)).flatMap((t) => [...contentWords(normalizeText(t))]),
  );
}

export interface Scrub {
  content: string;
  /** The lines removed, as they were written (a unit of several lines gives each). */
  removed: string[];
  /** 1-based numbers of the removed lines in the original content. */
  numbers: Set<number>;
}


/**
 * `content` without the units that state a forgotten fact: body units (a list item, heading or paragraph line
 * with the continuation lines under it) and frontmatter units (a key with its value lines; a list's items one
 * by one; a flow list rewritten without its forgotten items). Line endings are kept as they were.
 */
export function scrubForgotten(content: string, tombstones: TombstoneSet): Scrub {
  const matcher = forgetMatcher(tombstones);
  if (matcher.empty) return { content, removed: [], numbers: new Set() };
  const lines = content.split('\n');
  const drop = new Set<number>();
  const replace = new Map<number, string>();
  const bodyStart = frontmatterEnd(lines);
  if (bodyStart > 0) scrubFrontmatter(lines, 1, bodyStart - 1, matcher, drop, replace);
  for (const n of forgottenUnits(lines, bodyStart, tombstones)) drop.add(n);
  if (drop.size === 0 && replace.size === 0) return { content, removed: [], numbers: new Set() };
  const removed: string[] = [];
  const kept: string[] = [];
  lines.forEach((line, n) => {
    if (drop.has(n)) removed.push(line);
    else if (replace.has(n)) {
      removed.push(line);
      kept.push(replace.get(n)!);
    } else kept.push(line);
  });
  return { content: kept.join('\n'), removed, numbers: new Set([...drop, ...replace.keys()].map((n) => n + 1)) };
}

/** Frontmatter lines [from, to): a top-level key with its indented lines is a unit; block list items go one by one. */
function scrubFrontmatter(lines: readonly string[], from: number, to: number, matcher: ForgetMatcher, drop: Set<number>, replace: Map<number, string>): void {
  for (let i = from; i < to; ) {
    let end = i + 1;
    while (end < to && /^\s/.test(lines[end]!) && lines[end]!.trim() !== '') end++;
    const head = lines[i]!;
    const key = /^([^:\s][^:]*):\s*(.*?)\r?$/.exec(head);
    const items = lines.slice(i + 1, end).map((line, k) => ({ line, n: i + 1 + k })).filter(({ line }) => /^\s*-\s/.test(line));
    if (key !== null && key[2] === '' && items.length > 0) {
      for (const item of items) if (matcher.matches(item.line.replace(/^\s*-\s/, ''))) drop.add(item.n);
    } else if (key !== null && key[2]!.startsWith('[') && end === i + 1) {
      const flow = flowItems(key[2]!);
      if (flow !== null && flow.some((item) => matcher.matches(item))) {
        const ending = head.endsWith('\r') ? '\r' : '';
        replace.set(i, `${key[1]}: ${JSON.stringify(flow.filter((item) => !matcher.matches(item)))}${ending}`);
      }
    } else if (matcher.matches(lines.slice(i, end).join(' ').replace(/^[^:]*:/, ''))) {
      for (let n = i; n < end; n++) drop.add(n);
    }
    i = end;
  }
}

function flowItems(value: string): string[] | null {
  try {
    // Read first as the frontmatter reader reads a key's value (frontmatter-yaml.ts: the value `yaml` gives, through
    // js-yaml for the common shapes), so a forget's page scan does not load `yaml` (~35 ms); a list of scalars only,
    // since a mapping in it is read with other options there (duplicate keys). Anything else goes to `yaml` as before.
    const fast: unknown = (parseFrontmatterYaml(`k: ${value}`) as { k?: unknown } | null | undefined)?.k;
    if (Array.isArray(fast) && fast.every((item) => item === null || typeof item !== 'object')) return fast.map((item) => String(item));
  } catch {
    // `yaml` decides below.
  }
  try {
    const parsed: unknown = yamlLib().parse(value);
    return Array.isArray(parsed) ? parsed.map((v) => String(v)) : null;
  } catch {
    return null;
  }
}
