/**
 * A fact's passage: the facts appended with it (under the same batch header: one write, one source), itself
 * included, up to CONTEXT_NEIGHBOURS places either side. A question often uses the words of the
 * neighbouring fact, so a fact row, and after a dream the page line that cites it, are findable by
 * their passage (the lower-weight context field, DESIGN §6). Forgotten facts are never in a passage.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { logRelPath, parseLog, type Fact } from '../logs/factlog.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';

/** Measured on LoCoMo conversations 0–6 (docs/benchmarks.md). */
export const CONTEXT_NEIGHBOURS = 2;

/** The facts of one log a projection may show or use: none that is forgotten. */
export function liveFacts(content: Uint8Array | string, date: string, tombstones: TombstoneSet): Fact[] {
  return parseLog(content, date).facts.filter((fact) => !tombstones.hasId(fact.id) && !tombstones.repeats(fact.text));
}

/**
 * Each fact's passage, by fact id. `facts`: one log's live facts, in file order; `texts`: what stands for each
 * in a passage (its text, or its index terms: terms.ts), the non-empty ones joined by `separator`.
 */
export function passagesOf(facts: readonly Fact[], texts: readonly string[], separator: string): Map<string, string> {
  const out = new Map<string, string>();
  for (let index = 0; index < facts.length; index++) out.set(facts[index]!.id, passageAt(facts, index, separator, texts));
  return out;
}

/** The passage of the fact at `index` (passagesOf; `texts` by default the facts' own). */
function passageAt(facts: readonly Fact[], index: number, separator: string, texts?: readonly string[]): string {
  const fact = facts[index]!;
  const passage: string[] = [];
  for (let i = Math.max(0, index - CONTEXT_NEIGHBOURS); i <= index + CONTEXT_NEIGHBOURS; i++) {
    const other = facts[i];
    if (other === undefined || other.batch !== fact.batch) continue;
    const text = texts === undefined ? other.text : texts[i]!;
    if (text !== '') passage.push(text);
  }
  return passage.join(separator);
}

/** A citation's log date and fact id: the page projection (projection.ts) asks for the passages of what it matches, and `want` reads the same. */
export const CITED_FACT_RE = /\[\[(\d{4}-\d{2}-\d{2})#\^(f-[0-9a-z]+)/g;

/** The log dates a page's citations name. */
export function citedDates(content: Uint8Array | string): Set<string> {
  const text = citingText(content);
  return text === null ? new Set() : new Set([...text.matchAll(CITED_FACT_RE)].map((m) => m[1]!));
}

/**
 * The passages of the facts pages cite, kept for one indexing run. A page's rows depend on them as well as on
 * the page; logs only grow, so a cited fact's passage changes only when a person edits its log by hand (then
 * `reindex --clear` refreshes it). A log projected in the same run hands over the passages the pages want from
 * it as it is parsed (`want`, `collect`: reindex.ts projects the logs before the pages' rows); any other is read
 * and parsed on demand, once.
 */
export class PassageReader {
  private readonly byDate = new Map<string, { facts: Fact[]; at: Map<string, number> | null }>();
  /** Log date → the ids pages cite in it, and their passages once collected. */
  private readonly wanted = new Map<string, Map<string, string>>();
  private readonly collectedDates = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly tombstones: TombstoneSet,
  ) {}

  /** The facts a page's citations name, to collect their passages when their logs are parsed (so: before `collect`). */
  want(content: Uint8Array | string): void {
    const text = citingText(content);
    if (text === null) return;
    for (const match of text.matchAll(CITED_FACT_RE)) {
      let ids = this.wanted.get(match[1]!);
      if (ids === undefined) this.wanted.set(match[1]!, (ids = new Map()));
      ids.set(match[2]!, '');
    }
  }

  /** A log's live facts as its projection parsed them: keeps the passages wanted from it. */
  collect(date: string, facts: readonly Fact[]): void {
    const ids = this.wanted.get(date);
    if (ids === undefined) return;
    // An id the log does not hold keeps no passage (''), as when the log is read here.
    facts.forEach((fact, index) => {
      if (ids.has(fact.id)) ids.set(fact.id, passageAt(facts, index, '\n'));
    });
    this.collectedDates.add(date);
  }

  /** Reads the logs of these dates not read or collected yet (a missing or unreadable log has no passages). */
  load(dates: Iterable<string>): void {
    for (const date of dates) {
      if (this.byDate.has(date) || this.collectedDates.has(date)) continue;
      let content = Buffer.alloc(0);
      try {
        content = readFileSync(path.join(this.root, logRelPath(date))); // synchronous, as the indexer reads (reindex.ts)
      } catch {
        // no passages
      }
      this.byDate.set(date, { facts: liveFacts(content, date, this.tombstones), at: null });
    }
  }

  /** The passage of a cited fact, '' when its log was neither collected nor loaded, or does not hold it. */
  get(date: string, id: string): string {
    if (this.collectedDates.has(date)) return this.wanted.get(date)?.get(id) ?? '';
    const log = this.byDate.get(date);
    if (log === undefined) return '';
    log.at ??= new Map(log.facts.map((fact, index) => [fact.id, index]));
    const index = log.at.get(id);
    return index === undefined ? '' : passageAt(log.facts, index, '\n');
  }
}

/** A page's text when it may cite a fact; null when it cannot (most pages: a byte search spares decoding them). */
function citingText(content: Uint8Array | string): string | null {
  if (typeof content === 'string') return content;
  const bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  return bytes.includes('#^f-') ? bytes.toString('utf8') : null;
}
