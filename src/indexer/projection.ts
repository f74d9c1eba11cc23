/**
 * The projection rules (DESIGN §6): which rows a file yields, given the watermark, the skipped dates
 * and the tombstones. Pure apart from reading the file; the same inputs always give the same rows.
 */
import { isPending, type Journal } from '../dream/journal.js';
import { parseLog } from '../logs/factlog.js';
import { parsePage } from '../pages/parse.js';
import { keyedSubject } from '../text/keyed.js';
import { citedInLine, isForgottenLine } from '../tombstones/lines.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import { ARCHIVE_DIR, isGeneratedPage } from '../vault/layout.js';
import type { IndexRow } from './rows.js';
import { LOG_PATH_RE, sourceKind } from './sources.js';

export { CORE_FILE, dependsOnCitations, sourceKind, type SourceKind } from './sources.js';
const CITATION_DATE_RE = /\[\[(\d{4}-\d{2}-\d{2})#\^(f-[0-9a-z]+)/g;
/** Citations are for people and checks; as search terms they are noise. */
const CITATION_RE = /!?\[\[\d{4}-\d{2}-\d{2}#\^[A-Za-z0-9-]+(?:\|[^\]]*)?\]\]/g;
/**
 * A fact's context field holds the passage around it: itself and the facts up to this many places
 * before and after it in its batch (same header, so same source and day), since a question often
 * uses the words of the neighbouring turn.
 * Measured on LoCoMo conversations 0–6 (docs/benchmarks.md).
 */
export const CONTEXT_NEIGHBOURS = 2;
/** In MEMORY.md only list items are content; its headings and prose are the generator's template. */
const HEADING_RE = /^#{1,6}\s/;
const LIST_ITEM_RE = /^\s*(?:[-*+]|\d+[.)])\s+\S/;

export interface ProjectionInputs {
  journal: Journal;
  tombstones: TombstoneSet;
  /** Fact ids the pages cite. A consolidated log still shows its facts no page cites (a late append, a citation a person removed), so nothing is silently lost. */
  cited: ReadonlySet<string>;
}

export interface Projection {
  rows: IndexRow[];
  /** For a page: every fact id it cites. */
  cited: string[];
}

export function projectFile(rel: string, content: Uint8Array | string, inputs: ProjectionInputs): Projection {
  const kind = sourceKind(rel);
  if (kind === 'log') return { rows: projectLog(rel, content, inputs), cited: [] };
  return projectPage(rel, content, inputs, kind);
}

function projectLog(rel: string, content: Uint8Array | string, { journal, tombstones, cited }: ProjectionInputs): IndexRow[] {
  const date = LOG_PATH_RE.exec(rel)![1]!;
  const pending = isPending(journal, date);
  const facts = parseLog(content, date).facts.filter((fact) => !tombstones.hasId(fact.id) && !tombstones.repeats(fact.text));
  const rows: IndexRow[] = [];
  facts.forEach((fact, index) => {
    if (!pending && cited.has(fact.id)) return; // placed on a page: the page is what search shows
    const batch = (other: (typeof facts)[number] | undefined): boolean => other !== undefined && other.time === fact.time && other.source === fact.source;
    const passage: string[] = [];
    for (let i = Math.max(0, index - CONTEXT_NEIGHBOURS); i <= index + CONTEXT_NEIGHBOURS; i++) {
      if (batch(facts[i])) passage.push(facts[i]!.text);
    }
    rows.push({
      key: `f:${rel}#${fact.id}`,
      kind: 'fact',
      path: rel,
      line: fact.line,
      line_end: fact.line,
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
      content: [fact.text, ...fact.tags].join(' '),
      context: passage.join('\n'),
      subject: keyedSubject(fact.text) ?? '',
    });
  });
  return rows;
}

function projectPage(rel: string, content: Uint8Array | string, { tombstones }: ProjectionInputs, kind: 'page' | 'core'): Projection {
  const page = parsePage(rel, content);
  // A line that cites or repeats a forgotten fact is left out (blanked, so the text's lines keep their
  // numbers for a result's line range); the rest of its section stays searchable.
  const chunks = page.chunks.map((chunk) => {
    const lines = chunk.text.split('\n');
    const kept = lines.filter((line) => !isForgottenLine(line, tombstones));
    if (kept.length === lines.length) return chunk;
    const text = lines.map((line) => (isForgottenLine(line, tombstones) ? '' : line)).join('\n');
    const ids = new Set(kept.flatMap(citedInLine));
    return { ...chunk, text, citations: chunk.citations.filter((id) => ids.has(id)) };
  });
  // A digest or the dashboard lists what was learned; it does not place a fact, so it does not hide one either.
  const cited = isGeneratedPage(rel) ? [] : [...new Set(chunks.flatMap((chunk) => chunk.citations))];
  const archived = rel.startsWith(ARCHIVE_DIR) || page.frontmatter.status?.toLowerCase() === 'archived';
  const rows: IndexRow[] = [];
  chunks.forEach((chunk, index) => {
    // A heading with nothing under it (a page's title above its first section) is noise in results;
    // its words already ride along in the heading path of the sections below.
    const headingOnly = chunk.text.split('\n').every((line) => line.trim() === '' || /^#{1,6}\s/.test(line));
    if (headingOnly && (chunks.length > 1 || chunk !== page.chunks[index])) return;
    const body = kind === 'core' ? chunk.text.split('\n').filter((line) => LIST_ITEM_RE.test(line)).join('\n') : chunk.text;
    if (body.trim() === '') return;
    let date: string | null = null;
    for (const match of chunk.text.matchAll(CITATION_DATE_RE)) {
      if (!tombstones.hasId(match[2]!) && (date === null || match[1]! > date)) date = match[1]!;
    }
    const headingPath = chunk.headingPath.join(' > ');
    rows.push({
      key: kind === 'core' ? `c:${index}` : `p:${rel}#${index}`,
      kind,
      path: rel,
      line: chunk.startLine,
      line_end: chunk.endLine,
      id: '',
      date,
      category: '',
      tags: page.tags,
      title: page.title,
      heading: chunk.heading ?? '',
      heading_path: headingPath,
      page_type: page.frontmatter.type ?? '',
      status: page.frontmatter.status ?? '',
      archived,
      citations: chunk.citations,
      text: chunk.text,
      content: body.split('\n').filter((line) => !HEADING_RE.test(line)).join('\n').replace(CITATION_RE, ''),
      context: [page.title, headingPath === page.title ? '' : headingPath, page.aliases.join(' ')].filter((s) => s !== '').join('\n'),
      subject: '',
    });
  });
  return { rows, cited };
}
