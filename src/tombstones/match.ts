/**
 * The forget matcher (issue 30): what still states a forgotten fact. A model or a person may write a tombstoned
 * fact back reworded, so a text that repeats it verbatim is not the only trace: a text states a forgotten fact
 * when it names the fact's id, holds its normalized text as a run of whole words (tombstones.ts `repeats`), or
 * holds one sentence made of the fact's content words in any order (the word-order rule) or nearly so (the
 * similarity rule). Used alike by the dream's scrub and checks (dream/forget-match.ts), the index's and MEMORY.md's
 * line filter (lines.ts). The rules' false positives on LoCoMo statements are measured by bench/dream-errors.ts.
 */
import { containsWords, normalizeText } from '../text/normalize.js';
import type { TombstoneSet } from './tombstones.js';
import { bodyUnits, frontmatterEnd } from './units.js';

const CITED_ID_RE = /#\^(f-[0-9a-z]+)/g;

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
export const stem = (word: string): string => (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word);

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
    if ([...raw.matchAll(CITED_ID_RE)].some((m) => ids.has(m[1]!)) || [...raw.matchAll(FACT_ID_RE)].some((m) => ids.has(m[0]))) return 'id';
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

/** What mayStateForgotten looks for, made once per tombstone set. */
interface Needles {
  /** A tombstone that only the full match can tell (a purged one's hash, a fact of stop words only). */
  always: boolean;
  ids: string[];
  facts: Array<{ words: string[]; need: number }>;
  /** The facts (their indexes in `facts`) by each of their content words: a page's words are looked up once each. */
  byWord: Map<string, number[]>;
}

const needleCache = new WeakMap<TombstoneSet, Needles>();

function needlesOf(tombstones: TombstoneSet): Needles {
  const known = needleCache.get(tombstones);
  if (known !== undefined) return known;
  const needles: Needles = { always: false, ids: [], facts: [], byWord: new Map() };
  for (const entry of tombstones.entries) {
    needles.ids.push(entry.id);
    if (entry.text === undefined) needles.always = true;
    const normalized = normalizeText(entry.text ?? '');
    if (normalized === '') continue;
    const words = [...contentWords(normalized)];
    if (words.length === 0) needles.always = true;
    for (const word of words) needles.byWord.set(word, [...(needles.byWord.get(word) ?? []), needles.facts.length]);
    needles.facts.push({ words, need: Math.ceil(words.length * SIMILARITY) });
  }
  needleCache.set(tombstones, needles);
  return needles;
}

/** The facts enough of whose content words the words of `text` hold for a rule to match. */
function factsWithEnoughWords(text: string, facts: Needles['facts']): Needles['facts'] {
  const words = new Set(normalizeText(text).split(' ').map(stem));
  return facts.filter(({ words: wanted, need }) => {
    let shared = 0;
    for (const word of wanted) if (words.has(word)) shared++;
    return shared >= need;
  });
}

/** factsWithEnoughWords for a whole page, its words looked up in the facts' (as many tombstones as a vault has). */
function pageFacts(content: string, { facts, byWord }: Needles): Needles['facts'] {
  const counts = new Int32Array(facts.length);
  const seen = new Set<string>();
  const held: Needles['facts'] = [];
  for (const word of normalizeText(content).split(' ')) {
    const stemmed = stem(word);
    if (seen.has(stemmed)) continue;
    seen.add(stemmed);
    for (const i of byWord.get(stemmed) ?? []) if (++counts[i]! === facts[i]!.need) held.push(facts[i]!);
  }
  return held;
}

/**
 * True when a lower-cased ASCII text holds enough of a fact's content words as substrings: said of every text
 * factsWithEnoughWords keeps the fact for (in ASCII, normalizeText only lower-cases and turns separators into
 * spaces, and a stemmed word is the start of the word it came from), without normalizing, splitting or a set.
 */
function holdsEnoughSubstrings(lower: string, { words, need }: Needles['facts'][number]): boolean {
  let shared = 0;
  let missed = 0;
  for (const word of words) {
    if (lower.includes(word)) shared++;
    else if (++missed > words.length - need) return false;
  }
  return shared >= need;
}

// eslint-disable-next-line no-control-regex
const ASCII_TEXT_RE = /^[\x00-\x7f]*$/;

/** factsWithEnoughWords, told first from the raw text when it is ASCII (most texts hold no fact's words at all). */
function mayHoldEnoughWords(text: string, facts: Needles['facts']): Needles['facts'] {
  if (ASCII_TEXT_RE.test(text)) {
    const lower = text.toLowerCase();
    facts = facts.filter((fact) => holdsEnoughSubstrings(lower, fact));
    if (facts.length === 0) return facts;
  }
  return factsWithEnoughWords(text, facts);
}

/**
 * False only when no part of `content` (a page: its lines, units, frontmatter values) can state a forgotten fact,
 * told from its text at once: `forget` matches every page against every tombstone, unit by unit (~0.3 s of
 * CPU over the 200 pages of a 1M-fact vault, issue 31), and most pages hold none of a fact's words. Every rule needs
 * the fact's id in the text, or at least three quarters of its content words (all for the text and word-order
 * rules; the similarity rule's Jaccard of 0.75 needs that many shared), and a unit's words are words of the page
 * (normalizeText treats line ends as any separator). So the words are counted over the whole page, then over the
 * frontmatter block and each body unit (units.ts: the units the scrub matches), for the facts the page held enough
 * of (a page of a dozen facts' words holds three quarters of many a fact's, its units seldom do). A text only a parse can show (a YAML flow list with
 * escapes), a purged tombstone (a hash, no words) or a fact without content words answers true: the full match decides.
 */
export function mayStateForgotten(content: string, tombstones: TombstoneSet): boolean {
  if (tombstones.entries.length === 0) return false;
  if (content.includes('\\')) return true;
  const needles = needlesOf(tombstones);
  const { always, ids, facts } = needles;
  if (always || ids.some((id) => content.includes(id))) return true;
  if (facts.length === 0) return false;
  // The page, then its frontmatter block and body units with the facts the page held enough words of.
  const held = pageFacts(content, needles);
  if (held.length === 0) return false;
  const ascii = ASCII_TEXT_RE.test(content);
  const lower = ascii ? content.toLowerCase() : '';
  const lines = content.split('\n');
  const bodyStart = frontmatterEnd(lines);
  /** The unit of each line: the frontmatter block is one (0), the body's are numbered from 1; -1 for none. */
  const unitOf = new Int32Array(lines.length).fill(-1);
  const units: Array<[number, number]> = bodyStart > 0 ? [[0, bodyStart]] : [];
  for (const unit of bodyUnits(lines, bodyStart)) units.push(unit);
  units.forEach(([start, end], u) => unitOf.fill(u, start, end));
  if (ascii) return asciiUnitHolds(lower, lines, unitOf, held);
  return units.some(([start, end], u) => mayHoldEnoughWords(lines.slice(start, end).join(u === 0 && bodyStart > 0 ? '\n' : ' '), held).length > 0);
}

/**
 * For an ASCII page (`lower`: lower-cased), true when one unit holds enough of a fact's words as substrings (see
 * holdsEnoughSubstrings): each word's places in the page are counted to the unit of their line, so the page is
 * searched once a word, not once a unit. A word holds no line end, so each place lies on one line.
 */
function asciiUnitHolds(lower: string, lines: readonly string[], unitOf: Int32Array, facts: Needles['facts']): boolean {
  const lineStarts = new Int32Array(lines.length);
  for (let i = 1, at = 0; i < lines.length; i++) lineStarts[i] = at += lines[i - 1]!.length + 1;
  const lineAt = (offset: number): number => {
    let low = 0;
    let high = lines.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (lineStarts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  };
  for (const { words, need } of facts) {
    const counts = new Map<number, number>();
    for (const word of words) {
      const seen = new Set<number>();
      for (let at = lower.indexOf(word); at >= 0; at = lower.indexOf(word, at + 1)) {
        const unit = unitOf[lineAt(at)]!;
        if (unit < 0 || seen.has(unit)) continue;
        seen.add(unit);
        const count = (counts.get(unit) ?? 0) + 1;
        if (count >= need) return true;
        counts.set(unit, count);
      }
    }
  }
  return false;
}
