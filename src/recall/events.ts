/**
 * Recall events: one line of `.vaultkeeper/recall.jsonl` per search (written by the indexer's search),
 * read back to rank MEMORY.md and to keep a page that searches still find out of the archive.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export const RECALL_FILE = '.vaultkeeper/recall.jsonl';

export interface RecallHit {
  kind: string;
  path: string;
  id: string | null;
}

export interface RecallEvent {
  at: Date;
  results: RecallHit[];
}

/** Every readable event, in file order; a torn or foreign line is skipped (the file is best effort). */
export async function readRecallEvents(vaultRoot: string): Promise<RecallEvent[]> {
  const text = await readFile(path.join(vaultRoot, RECALL_FILE), 'utf8').catch(() => '');
  const events: RecallEvent[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const raw = JSON.parse(line) as { at?: unknown; results?: unknown };
      const at = new Date(typeof raw.at === 'string' ? raw.at : Number.NaN);
      if (Number.isNaN(at.getTime()) || !Array.isArray(raw.results)) continue;
      const results = (raw.results as Array<Record<string, unknown>>)
        .filter((r) => r !== null && typeof r === 'object' && typeof r.path === 'string')
        .map((r) => ({ kind: typeof r.kind === 'string' ? r.kind : '', path: r.path as string, id: typeof r.id === 'string' ? r.id : null }));
      events.push({ at, results });
    } catch {
      // a line torn by a crash mid-append
    }
  }
  return events;
}
