/**
 * The live facts of a vault, for `vaultkeeper export`: every fact line of every log, less the tombstoned (by
 * id, or repeating a forgotten text: DESIGN §5), each with the page lines that cite it. Read from the files,
 * never from the index, so an export is complete whatever state the index is in.
 */
import { readFile } from 'node:fs/promises';
import { listLogDates, readLog } from '../logs/factlog.js';
import { listWikiPages } from '../pages/discover.js';
import { parsePage } from '../pages/parse.js';
import { readTombstones } from '../tombstones/tombstones.js';
import { confinedPath } from '../vault/confine.js';

export interface Citation {
  path: string;
  line: number;
}

export interface ExportedFact {
  id: string;
  date: string;
  /** HH:MM of the batch the fact was appended in ('' for a line a person wrote outside one). */
  time: string;
  category: string;
  text: string;
  tags: string[];
  source: string;
  citations: Citation[];
}

export async function liveFacts(root: string): Promise<ExportedFact[]> {
  const tombstones = await readTombstones(root);
  const citations = await pageCitations(root);
  const out: ExportedFact[] = [];
  for (const date of await listLogDates(root)) {
    for (const fact of (await readLog(root, date)).facts) {
      if (tombstones.hasId(fact.id) || tombstones.repeats(fact.text)) continue;
      out.push({
        id: fact.id,
        date: fact.date,
        time: fact.time,
        category: fact.category,
        text: fact.text,
        tags: fact.tags,
        source: fact.source,
        citations: citations.get(fact.id) ?? [],
      });
    }
  }
  return out;
}

/** Fact id → the page lines citing it, in page then line order. */
async function pageCitations(root: string): Promise<Map<string, Citation[]>> {
  const out = new Map<string, Citation[]>();
  for (const rel of await listWikiPages(root)) {
    const page = parsePage(rel, await readFile(await confinedPath(root, rel)));
    for (const chunk of page.chunks) {
      if (chunk.citations.length === 0) continue;
      const lines = chunk.text.split('\n');
      for (const id of chunk.citations) {
        const offset = lines.findIndex((line) => line.includes(`^${id}`));
        const line = chunk.startLine + Math.max(offset, 0);
        const list = out.get(id) ?? [];
        if (!list.some((c) => c.path === rel && c.line === line)) list.push({ path: rel, line });
        out.set(id, list);
      }
    }
  }
  return out;
}
