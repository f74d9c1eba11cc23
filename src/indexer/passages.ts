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

const CITED_DATE_RE = /\[\[(\d{4}-\d{2}-\d{2})#\^f-/g;

/** The log dates a page's citations name. */
export function citedDates(content: Uint8Array | string): Set<string> {
  // Most pages cite no fact: a byte search spares decoding them a second time (parsePage decodes them).
  const bytes = typeof content === 'string' ? null : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  if (bytes !== null && !bytes.includes('#^f-')) return new Set();
  const text = bytes === null ? (content as string) : bytes.toString('utf8');
  return new Set([...text.matchAll(CITED_DATE_RE)].map((m) => m[1]!));
}

/**
 * The passages of the facts pages cite, read from their logs on demand and kept for one indexing run.
 * A page's rows depend on them as well as on the page; logs only grow, so a cited fact's passage
 * changes only when a person edits its log by hand (then `reindex --clear` refreshes it). A log read here
 * is parsed once: a cited fact's passage is joined when asked for, and the log's projection, later in the
 * same run, takes its facts from here when the file still holds the same bytes (`factsOf`).
 */
export class PassageReader {
  private readonly byDate = new Map<string, { content: Buffer; facts: Fact[]; at: Map<string, number> | null }>();

  constructor(
    private readonly root: string,
    private readonly tombstones: TombstoneSet,
  ) {}

  /** Reads the logs of these dates not read yet (a missing or unreadable log has no passages). */
  load(dates: Iterable<string>): void {
    for (const date of dates) {
      if (this.byDate.has(date)) continue;
      let content = Buffer.alloc(0);
      try {
        content = readFileSync(path.join(this.root, logRelPath(date))); // synchronous, as the indexer reads (reindex.ts)
      } catch {
        // no passages
      }
      this.byDate.set(date, { content, facts: liveFacts(content, date, this.tombstones), at: null });
    }
  }

  /** The passage of a cited fact, '' when its log was not loaded or does not hold it. */
  get(date: string, id: string): string {
    const log = this.byDate.get(date);
    if (log === undefined) return '';
    log.at ??= new Map(log.facts.map((fact, index) => [fact.id, index]));
    const index = log.at.get(id);
    return index === undefined ? '' : passageAt(log.facts, index, '\n');
  }

  /** The live facts of the log of `date` as read here, when `content` is what was read; else undefined. */
  factsOf(date: string, content: Uint8Array | string): readonly Fact[] | undefined {
    const log = this.byDate.get(date);
    if (log === undefined || typeof content === 'string' || !log.content.equals(content)) return undefined;
    return log.facts;
  }
}
