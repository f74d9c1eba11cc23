/**
 * Which kind of source a vault file is, apart from projection.ts: the indexer's freshness pass needs
 * only this, and must not load the page parser (markdown-it) when nothing changed.
 */
import { isPending, type Journal } from '../dream/journal.js';

export const CORE_FILE = 'MEMORY.md';
export const LOG_PATH_RE = /^logs\/(\d{4}-\d{2}-\d{2})\.md$/;

export type SourceKind = 'log' | 'page' | 'core';

export function sourceKind(rel: string): SourceKind {
  if (LOG_PATH_RE.test(rel)) return 'log';
  return rel === CORE_FILE ? 'core' : 'page';
}

/** True when a log's rows depend on what the pages cite (its date is consolidated). */
export function dependsOnCitations(rel: string, journal: Journal): boolean {
  const date = LOG_PATH_RE.exec(rel)?.[1];
  return date !== undefined && !isPending(journal, date);
}
