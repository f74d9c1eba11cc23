/**
 * The contract between the dream runner and a consolidator (the offline rules or the LLM agent).
 * A consolidator writes wiki pages in a scratch worktree of the vault and nothing else; the runner
 * checks what it did, and only then applies it to the vault and commits it.
 */
import type { Fact } from '../logs/factlog.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';

export interface Conflict {
  subject: string;
  fact_ids: string[];
  note: string;
}

/** What a person watching a run sees: tool calls, pages touched. */
export type DreamEvent =
  | { type: 'step'; message: string }
  | { type: 'tool'; name: string; ok: boolean; detail: string }
  | { type: 'page'; path: string; action: 'created' | 'updated' | 'archived' };

export interface ConsolidationInput {
  /** The scratch worktree: every path the consolidator writes is inside it. */
  root: string;
  /** The real vault, for run logs under .vaultkeeper/runs/ (never for pages). */
  vaultRoot: string;
  run: string;
  /** The batch's log dates, oldest first, and their facts (tombstoned ones already left out). */
  dates: string[];
  facts: Fact[];
  tombstones: TombstoneSet;
  /** The vault owner's name (config `owner`): who "I" is in a fact with no speaker label; null leaves "I". */
  owner?: string | null;
  now: Date;
  signal: AbortSignal;
  /**
   * Pages the consolidator must not write (ownership.ts `readOnlyPages`: a person's own notes on an adopted
   * vault): it links to them and writes its own pages. Absent or empty: every page may be written.
   */
  readOnly?: ReadonlySet<string>;
  /** Why the previous try of these days failed its checks (the check and its message, brief), told to a model that retries them. */
  previousFailure?: { check: string; message: string } | null;
  /** Search over the vault's index (read only). */
  search(query: string, k: number): Promise<unknown[]>;
  onEvent?: (event: DreamEvent) => void;
}

export interface ConsolidationResult {
  summary: string;
  conflicts: Conflict[];
  llm: { calls: number; tokens: number };
  /** Pages the consolidator left as they were because they resolve outside the vault (read, never rewritten). */
  notRewritten?: string[];
}

export interface Consolidator {
  readonly name: 'offline' | 'llm';
  consolidate(input: ConsolidationInput): Promise<ConsolidationResult>;
}
