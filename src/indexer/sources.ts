/**
 * Which kind of source a vault file is, apart from projection.ts: the indexer's freshness pass needs
 * only this, and must not load the page parser (markdown-it) when nothing changed.
 */
import { isPending, type Journal } from '../dream/journal.js';
import { byCodeUnit } from '../text/compare.js';

export const CORE_FILE = 'MEMORY.md';
export const LOG_PATH_RE = /^logs\/(\d{4}-\d{2}-\d{2})\.md$/;

export type SourceKind = 'log' | 'page' | 'core';

export function sourceKind(rel: string): SourceKind {
  if (LOG_PATH_RE.test(rel)) return 'log';
  return rel === CORE_FILE ? 'core' : 'page';
}

const KIND_ORDER: Readonly<Record<SourceKind, number>> = { log: 0, page: 1, core: 2 };

/**
 * `paths` in the order `vaultFiles` (fresh.ts) lists the sources in, and the check file keeps them in: the logs by
 * date, then the pages by path (by code unit, as `sort()` leaves them), then MEMORY.md. Each path's kind is found
 * once: a pass sorts the manifest's 5,201 at 1M facts.
 */
export function sortSources(paths: readonly string[]): string[] {
  return paths
    .map((rel) => ({ rel, kind: KIND_ORDER[sourceKind(rel)] }))
    .sort((a, b) => a.kind - b.kind || byCodeUnit(a.rel, b.rel))
    .map(({ rel }) => rel);
}

/** True when a log's rows depend on what the pages cite (its date is consolidated). */
export function dependsOnCitations(rel: string, journal: Journal): boolean {
  const date = LOG_PATH_RE.exec(rel)?.[1];
  return date !== undefined && !isPending(journal, date);
}
