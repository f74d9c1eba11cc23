/**
 * What still states a forgotten fact (issue 30): a model may write a tombstoned fact back reworded, so a line
 * that repeats it verbatim is not the only trace. A text states a forgotten fact when it names the fact's id,
 * holds its normalized text as a run of whole words (tombstones.ts `repeats`), or holds one sentence made of
 * the fact's content words in any order (the word-order rule) or nearly so (the similarity rule). A page is
 * scrubbed by units, not lines: a list item or paragraph with its continuation lines (a fact reflowed over
 * two lines), and each frontmatter key with its value or list items (aliases, summary). The rules' false
 * positives on LoCoMo statements are measured by bench/dream-errors.ts (docs/benchmarks.md).
 */
import { parse as parseYaml } from 'yaml';
import { normalizeText, containsWords } from '../text/normalize.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import { citedInLine, frontmatterEnd } from '../tombstones/lines.js';

/** Words that say nothing of what a fact is about: left out of the word-order and similarity rules. */
const STOP = new Set(
  ('a an the and or but if of to in on at by for with from as is are was were be been being am do does did has have had i me my mine we our ' +
    'you your he him his she her it its they them their this that these those there here so not no yes very just also too than then now ' +
    'will would can could should shall may might must about into over under up down out off again once all any some each both more most ' +
    'what which who whom when where why how really')
    .split(' '),
);
/** The word-order rule needs this many content words (fewer match too much); the similarity rule this many. */
export const MIN_ORDER_WORDS = 3;
export const MIN_SIMILAR_WORDS = 4;
/** Jaccard of content words at which a sentence is taken for a reworded fact. */
export const SIMILARITY = 0.75;
const FACT_ID_RE = /\bf-[0-9a-z]{6,}\b/g;

export interface ForgetMatcher {
  readonly empty: boolean;
  /** True when `text` (a line, a paragraph, a frontmatter value, a page name) states a forgotten fact. */
  matches(text: string): boolean;
  /** Which rule matched `text`, or null: for the bench's false-positive count. */
  rule(text: string): 'id' | 'text' | 'order' | 'similar' | null;
}

/** A word reduced to a crude stem (a plural's or a third person's s), so "peanut" and "peanuts" meet. */
const stem = (word: string): string => (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word);

/** The content words of a normalized text, stemmed. */
export function contentWords(normalized: string): Set<string> {
  return new Set(normalized.split(' ').filter((w) => w.length > 1 && !STOP.has(w)).map(stem));
}

/** The sentences of a text (split at . ! ? ; and line ends), each normalized. */
function sentences(text: string): string[] {
  return text
    .split(/[.!?;\n]+(?:\s|$)|\n/)
    .map(normalizeText)
    .filter((s) => s !== '');
}

interface Forgotten {
  text: string;
  words: Set<string>;
}

const cache = new WeakMap<TombstoneSet, ForgetMatcher>();

/** The matcher of a tombstone set (made once per set). */
export function forgetMatcher(tombstones: TombstoneSet): ForgetMatcher {
  const known = cache.get(tombstones);
  if (known !== undefined) return known;
  const ids = new Set(tombstones.entries.map((e) => e.id));
  const facts: Forgotten[] = [];
  const seen = new Set<string>();
  for (const entry of tombstones.entries) {
    // A purged fact's tombstone holds a hash, not its text (its id and tombstones.repeats still match it).
    const text = normalizeText(entry.text ?? '');
    if (text === '' || seen.has(text)) continue;
    seen.add(text);
    facts.push({ text, words: contentWords(text) });
  }
  const hashed = tombstones.entries.some((e) => e.text === undefined && e.hash !== undefined);
  const rule = (raw: string): ReturnType<ForgetMatcher['rule']> => {
    if (facts.length === 0 && ids.size === 0) return null;
    if (citedInLine(raw).some((id) => ids.has(id)) || [...raw.matchAll(FACT_ID_RE)].some((m) => ids.has(m[0]))) return 'id';
    const whole = normalizeText(raw);
    if (facts.some((f) => containsWords(whole, f.text)) || (hashed && tombstones.repeats(raw))) return 'text';
    for (const sentence of sentences(raw)) {
      const words = contentWords(sentence);
      for (const fact of facts) {
        const size = fact.words.size;
        if (size < MIN_ORDER_WORDS) continue;
        let shared = 0;
        for (const w of fact.words) if (words.has(w)) shared++;
        if (shared === size && words.size <= 2 * size + 2) return 'order';
        if (size >= MIN_SIMILAR_WORDS && shared / (size + words.size - shared) >= SIMILARITY) return 'similar';
      }
    }
    return null;
  };
  const matcher: ForgetMatcher = { empty: facts.length === 0 && ids.size === 0 && !hashed, matches: (text) => rule(text) !== null, rule };
  cache.set(tombstones, matcher);
  return matcher;
}

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
  return tombstones.entries.some((e) => {
    if (e.text === undefined) return false;
    const fact = contentWords(normalizeText(e.text));
    const names = new Set([...e.text.matchAll(/\p{Lu}[\p{L}'-]*/gu)].map((m) => stem(normalizeText(m[0]))));
    const said = [...words].filter((w) => !names.has(w));
    return [...words].every((w) => fact.has(w)) && said.length >= 2;
  });
}

export interface Scrub {
  content: string;
  /** The lines removed, as they were written (a unit of several lines gives each). */
  removed: string[];
  /** 1-based numbers of the removed lines in the original content. */
  numbers: Set<number>;
}

const LIST_OR_HEADING = /^\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|>|\|)/;
const HEADING = /^#{1,6}\s/;

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
  for (let i = bodyStart; i < lines.length; ) {
    if (lines[i]!.trim() === '') {
      i++;
      continue;
    }
    let end = i + 1;
    // A heading stands alone; any other line takes the lines continuing it (a reflowed fact).
    while (!HEADING.test(lines[i]!) && end < lines.length && lines[end]!.trim() !== '' && !LIST_OR_HEADING.test(lines[end]!)) end++;
    const unit = lines.slice(i, end);
    if (matcher.matches(unit.join(' '))) for (let n = i; n < end; n++) drop.add(n);
    i = end;
  }
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
    const parsed: unknown = parseYaml(value);
    return Array.isArray(parsed) ? parsed.map((v) => String(v)) : null;
  } catch {
    return null;
  }
}
