/** A fact an extractor found in a transcript, before it is written to a log. */
import type { Category } from '../logs/factlog.js';
import type { Candidate } from './signals.js';

export interface ExtractedFact {
  category: Category;
  /** Third person, one line; attributes as `subject:: value`; dates absolute. */
  text: string;
  tags: string[];
  /** 0 to 1: how sure the extractor is that the person stated this. */
  confidence: number;
  /** Index of the turn it came from. */
  turn: number;
}

/** A candidate turn with the moment it was said (its timestamp, else the transcript file's mtime). */
export interface DatedCandidate extends Candidate {
  at: Date;
}

/** Tags as the fact log accepts them: letters, digits, _, - and /, at least one non-digit. */
export function cleanTags(values: readonly unknown[]): string[] {
  const tags = new Set<string>();
  for (const value of values) {
    if (typeof value !== 'string') continue;
    const tag = value
      .trim()
      .replace(/^#+/, '')
      .toLowerCase()
      .replace(/\s+/g, '-')
      .replace(/[^\p{L}\p{N}_/-]/gu, '');
    if (tag !== '' && /[^\d]/u.test(tag) && tag.length <= 40) tags.add(tag);
  }
  return [...tags];
}
