/**
 * A log's rows by the projection rules (DESIGN §6; pages: projection.ts). Apart from the page parser, so a pass
 * that projects only logs (the one after a `remember`) does not load markdown-it and the YAML parsers (~0.1 s of
 * CPU, issue 31): project-chunk.ts loads the page projection only when a page is projected.
 */
import { isPending, type Journal } from '../dream/journal.js';
import type { Fact } from '../logs/factlog.js';
import { dateWords } from '../text/date-words.js';
import { keyedSubject } from '../text/keyed.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import { liveFacts, passagesOf } from './passages.js';
import type { IndexRow } from './rows.js';
import { LOG_PATH_RE } from './sources.js';
import { ReadingMemo } from './state-readings.js';
import { indexTerms } from './terms.js';

export interface LogProjectionInputs {
  journal: Journal;
  tombstones: TombstoneSet;
  /** Fact ids the pages cite. A consolidated log still shows its facts no page cites (a late append, a citation a person removed), so nothing is silently lost. */
  cited: ReadonlySet<string>;
  /** Called with a log's live facts once parsed, so the passages pages cite are collected from them (passages.ts). */
  onLogFacts?: (date: string, facts: readonly Fact[]) => void;
  /** The file's state-change readings, kept from its last projection (state-readings.ts); a fresh one when absent. */
  readings?: ReadingMemo;
}

export function projectLog(rel: string, content: Uint8Array | string, { journal, tombstones, cited, onLogFacts, readings = new ReadingMemo() }: LogProjectionInputs): IndexRow[] {
  const date = LOG_PATH_RE.exec(rel)![1]!;
  const pending = isPending(journal, date);
  const facts = liveFacts(content, date, tombstones);
  onLogFacts?.(date, facts);
  // The full-text fields hold index terms (terms.ts): each fact's text is analyzed once, and its passage is
  // joined from its neighbours' terms, the same terms as analyzing the joined texts.
  const terms = facts.map((fact) => indexTerms(fact.text));
  const passages = passagesOf(facts, terms, ' ');
  // The day's words rank too, in both fields: questions name dates ("in May 2023"); measured in docs/benchmarks.md.
  const when = indexTerms(dateWords(date));
  const rows: IndexRow[] = [];
  for (let index = 0; index < facts.length; index++) {
    const fact = facts[index]!;
    if (!pending && cited.has(fact.id)) continue; // placed on a page: the page is what search shows
    // A keyed fact's subject, else a plain-English change of state read surely ("I moved to Lisbon" is `home city`):
    // it supersedes as a keyed value does, and is found by its subject's words, as a keyed fact is (state-change.ts).
    const keyed = keyedSubject(fact.text);
    const change = keyed === null ? readings.read(fact.text) : null;
    const subject = keyed ?? change?.key ?? '';
    rows.push({
      key: `f:${rel}#${fact.id}`,
      kind: 'fact',
      path: rel,
      line: fact.line,
      line_end: fact.line,
      section_line: fact.line,
      section_end: fact.line,
      id: fact.id,
      date,
      category: fact.category,
      tags: fact.tags,
      title: '',
      heading: '',
      heading_path: '',
      page_type: '',
      status: '',
      archived: false,
      citations: [],
      text: fact.text,
      content: joinTerms([terms[index]!, ...fact.tags.map(indexTerms), change === null ? '' : indexTerms(change.words), when]),
      context: joinTerms([passages.get(fact.id)!, when]),
      subject,
    });
  }
  return rows;
}

/** Index terms joined, the empty left out. */
export function joinTerms(parts: readonly string[]): string {
  return parts.filter((part) => part !== '').join(' ');
}
