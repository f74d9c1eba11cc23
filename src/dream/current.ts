/**
 * The newest value of each keyed subject the logs state (DESIGN §3, §7): of the facts `subject:: value` with
 * one normalized subject, the value of the latest date, then of the later line on that date. Two different
 * values on one day, the second right after the first, are disputed (conflicts.ts): no value of the subject is
 * current until a person decides, unless the second is a `[correction]`; a statement after that starts over.
 * The same rules the offline consolidator applies when it writes `## Current`, so the runner can hold any
 * consolidator's pages to them (stale-current.ts). A sure plain-English change of state ("I moved to Lisbon",
 * text/state-change.ts) states its subject's value as `home city:: Lisbon` would, as the offline consolidator
 * reads it; an unsure reading states no value.
 */
import type { Fact } from '../logs/factlog.js';
import { normalizeText } from '../text/normalize.js';
import { readStateChange } from '../text/state-change.js';
import { subjectOf, type Keyed } from './page.js';

/** The subject and value a text states: keyed, or a sure plain-English change of state read with its links as text. */
export function statedValue(text: string): Keyed | null {
  const keyed = subjectOf(text);
  if (keyed !== null) return keyed;
  const change = readStateChange(text.replace(/\[\[(?:[^\]|]*\|)?([^\]]*)\]\]/g, '$1'));
  return change === null || !change.sure ? null : { subject: change.subject, key: change.key, value: change.value };
}

export interface NewestValue {
  /** The subject as the newest fact writes it. */
  subject: string;
  value: string;
  /** The newest fact stating the value. */
  fact: Fact;
  factId: string;
  date: string;
  line: number;
  /** Every known fact stating the same value on or after the day it became current (one line cites them all). */
  sameValue: Fact[];
  /** Facts of a second value on the newest day: the subject is disputed, and no value of it is current. */
  disputedBy: Fact[];
}

const byDateThenLine = (a: Fact, b: Fact): number => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.line - b.line);

/** Normalized subject → its newest value, for every fact among `facts` (in any order) that states one (statedValue). */
export function newestValues(facts: readonly Fact[]): Map<string, NewestValue> {
  const out = new Map<string, NewestValue>();
  for (const fact of [...facts].sort(byDateThenLine)) {
    const keyed = statedValue(fact.text);
    if (keyed === null) continue;
    const held = out.get(keyed.key);
    const entry: NewestValue = { subject: keyed.subject, value: keyed.value, fact, factId: fact.id, date: fact.date, line: fact.line, sameValue: [fact], disputedBy: [] };
    // A statement after a dispute starts over, as in the offline consolidator (its Current is empty then): the
    // dispute stays flagged for a person, and the later statement stands.
    if (held === undefined || isDisputed(held)) {
      out.set(keyed.key, entry);
      continue;
    }
    if (normalizeText(held.value) === normalizeText(keyed.value)) {
      // The same value again: it stays current, and cites this fact too.
      out.set(keyed.key, { ...held, subject: keyed.subject, value: keyed.value, fact, factId: fact.id, date: fact.date, line: fact.line, sameValue: [...held.sameValue, fact] });
      continue;
    }
    if (held.date === fact.date && fact.category !== 'correction') {
      // Two values on one day and nothing says which is right: flag, never guess.
      out.set(keyed.key, { ...held, disputedBy: [fact] });
      continue;
    }
    out.set(keyed.key, entry);
  }
  return out;
}

/** True when no value of the subject is current: its newest day holds two values. */
export function isDisputed(value: NewestValue): boolean {
  return value.disputedBy.length > 0;
}
