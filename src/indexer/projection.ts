/**
 * The projection rules (DESIGN §6): which rows a file yields, given the watermark, the skipped dates
 * and the tombstones. Pure apart from reading the file; the same inputs always give the same rows.
 */
import { dateWords } from '../text/date-words.js';
import { type ParsedPage } from '../pages/parse.js';
import { parsePageMemo } from '../pages/parse-memo.js';
import { citedInLine, forgottenUnits } from '../tombstones/lines.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import { ARCHIVE_DIR, isGeneratedPage } from '../vault/layout.js';
import { CITED_FACT_RE } from './passages.js';
import { onlyStopWords } from './query.js';
import { joinTerms, projectLog, type LogProjectionInputs } from './project-log.js';
import { ReadingMemo, type StoredReadings } from './state-readings.js';
import type { IndexRow } from './rows.js';
import { indexTerms } from './terms.js';
import { splitStatements } from './statements.js';
import { sourceKind } from './sources.js';
import { CITATION_RE } from '../text/citation.js';

export { CORE_FILE, dependsOnCitations, sourceKind, type SourceKind } from './sources.js';
/** Citations are for people and checks; as search terms they are noise. */
const LINK_RE = /!?\[\[[^\]]*\]\]/g;
/** A list item's marker (and a task's box), before its statement. */
const LIST_MARKER_RE = /^\s*(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?/;
/** MEMORY.md sections the generator (dream/memory.ts; Pages in older files) fills with pointers and counts, not memories. */
const GENERATED_CORE_SECTIONS = ['Often recalled', 'Pages'];

/** What a file's projection reads besides the file (project-log.ts: a log's). */
export type ProjectionInputs = LogProjectionInputs & {
  /** The passage of a fact a page cites (passages.ts), '' when unknown: a page line is findable by it as the fact was. */
  passage?: (date: string, id: string) => string;
};

export interface Projection {
  rows: IndexRow[];
  /** For a page: every fact id it cites. */
  cited: string[];
}

export function projectFile(rel: string, content: Uint8Array | string, inputs: ProjectionInputs): Projection {
  const kind = sourceKind(rel);
  if (kind === 'log') return { rows: projectLog(rel, content, inputs), cited: [] };
  const page = preparePage(rel, content, inputs.tombstones, kind, inputs.readings);
  return { rows: page.rows(inputs.passage), cited: page.cited };
}

/**
 * A page or MEMORY.md parsed, before its rows: the facts it cites, which the logs' rows depend on, and its rows
 * once the passages of the facts it cites can be looked up (reindex.ts projects the logs between the two).
 */
export interface PreparedPage {
  cited: string[];
  rows(passage?: (date: string, id: string) => string): IndexRow[];
  /** The state-change readings its rows made (after `rows`), kept with its row hashes (state-readings.ts). */
  readings(): StoredReadings;
}

export function preparePage(rel: string, content: Uint8Array | string, tombstones: TombstoneSet, kind: 'page' | 'core', readings = new ReadingMemo()): PreparedPage {
  // The dream's checks parsed the pages a run wrote just before its index pass: the same bytes share one parse.
  const page = parsePageMemo(rel, content);
  // A line that cites or repeats a forgotten fact is left out (blanked, so the others keep their numbers);
  // the rest of its section stays searchable.
  const chunks = page.chunks.map((chunk) => {
    const lines = chunk.text.split('\n');
    // By units, with the rewording matcher: a fact reflowed over two lines or reworded is left out too.
    const forgotten = forgottenUnits(lines, 0, tombstones);
    if (forgotten.size === 0) return { ...chunk, lines };
    const kept = lines.map((line, n) => (forgotten.has(n) ? '' : line));
    const ids = new Set(kept.flatMap(citedInLine));
    return { ...chunk, lines: kept, citations: chunk.citations.filter((id) => ids.has(id)) };
  });
  // A digest or the dashboard lists what was learned; it does not place a fact, so it does not hide one either.
  const cited = isGeneratedPage(rel) ? [] : [...new Set(chunks.flatMap((chunk) => chunk.citations))];
  const archived = rel.startsWith(ARCHIVE_DIR) || page.frontmatter.status?.toLowerCase() === 'archived';
  const base: PageFields = { kind, path: rel, tags: page.tags, title: page.title, page_type: page.frontmatter.type ?? '', status: page.frontmatter.status ?? '', archived };
  return { cited, rows: (passage) => pageRows(page, chunks, base, tombstones, readings, passage), readings: () => readings.stored() };
}

type ChunkLines = ParsedPage['chunks'][number] & { lines: string[] };

function pageRows(page: ParsedPage, chunks: readonly ChunkLines[], base: PageFields, tombstones: TombstoneSet, readings: ReadingMemo, passage?: (date: string, id: string) => string): IndexRow[] {
  const { kind, path: rel } = base;
  const rows: IndexRow[] = [];
  // Index terms by line: a section's heading lines and a cited fact's passage stand in the context of many statements.
  const lineTerms = new Map<string, string>();
  const termsOf = (line: string): string => {
    let terms = lineTerms.get(line);
    if (terms === undefined) lineTerms.set(line, (terms = indexTerms(line)));
    return terms;
  };
  let statementCount = 0;
  for (const chunk of chunks) {
    if (kind === 'core' && GENERATED_CORE_SECTIONS.includes(chunk.heading ?? '')) continue;
    const headingPath = chunk.headingPath.join(' > ');
    // The context's first lines, the same for every statement of the section, distinct, and their terms.
    const heading = [...new Set([page.title, headingPath === page.title ? '' : headingPath, page.aliases.join(' ')].filter((s) => s !== ''))];
    const headingTerms = joinTerms(heading.map(termsOf));
    const sectionDate = newestDate(chunk.lines, tombstones);
    const statements = splitStatements(chunk.lines, { listOnly: kind === 'core' });
    statementCount += statements.length;
    for (const statement of statements) {
      // A line of nothing but links ("- [[Ana 2026-05]]" under Parts or Related) is navigation: the pages it names are searched themselves.
      if (onlyStopWords(statement.text.replace(LINK_RE, ' ')) || PART_OF_RE.test(statement.text.trim())) continue;
      // Every citation holds `#^`: most statements have none, and skip the scans for them.
      const cites = statement.text.includes('#^');
      const citations = cites ? [...new Set(citedInLine(statement.text))].filter((id) => chunk.citations.includes(id)) : [];
      // The passages of the facts it cites, so a page line stays findable by its neighbours' words as the
      // facts were before the dream (the page's own neighbouring lines cost precision: docs/benchmarks.md).
      const passages = cites ? [...statement.text.matchAll(CITED_FACT_RE)].filter((m) => citations.includes(m[2]!)).map((m) => passage?.(m[1]!, m[2]!) ?? '') : [];
      const own = cites ? statement.text.replace(CITATION_RE, '') : statement.text;
      const line = chunk.startLine + statement.start;
      const date = (cites ? newestDate([statement.text], tombstones) : null) ?? sectionDate;
      const when = date === null ? '' : termsOf(dateWords(date));
      const ownTerms = indexTerms(own);
      // A dated statement of a change of state supersedes as its fact did (a line with no date could be newer than any).
      // Links read as their text: "Dmitri moved to [[Bergen]]" states a move as the fact did.
      const sure = cites && date !== null ? readings.read(own.replace(LIST_MARKER_RE, '').replace(/\[\[(?:[^\]|]*\|)?([^\]]*)\]\]/g, '$1')) : null;
      // The terms of the heading lines, the cited facts' passage lines and its own line, each line once.
      let context: string;
      if (passages.length === 0) context = joinTerms([headingTerms, own === '' || heading.includes(own) ? '' : ownTerms, when]);
      else {
        const lines = [...new Set([...heading, ...passages.flatMap((p) => p.split('\n')), own].filter((l) => l !== ''))];
        context = joinTerms([...lines.map((l) => (l === own ? ownTerms : termsOf(l))), when]);
      }
      rows.push(
        pageRow(base, {
          key: kind === 'core' ? `c:${line}` : `p:${rel}#${line}`,
          line,
          line_end: chunk.startLine + statement.end,
          section_line: chunk.startLine,
          section_end: chunk.endLine,
          date,
          heading: chunk.heading ?? '',
          heading_path: headingPath,
          citations,
          text: statement.text,
          content: joinTerms([ownTerms, sure === null ? '' : indexTerms(sure.words), when]),
          context,
          subject: sure?.key ?? '',
        }),
      );
    }
  }
  // A page of nothing but headings is still findable by them.
  if (statementCount === 0 && kind === 'page') {
    for (const chunk of chunks) {
      const text = chunk.lines.filter((line) => line.trim() !== '').join('\n');
      if (text === '') continue;
      const headingPath = chunk.headingPath.join(' > ');
      rows.push(
        pageRow(base, {
          key: `p:${rel}#${chunk.startLine}`,
          line: chunk.startLine,
          line_end: chunk.endLine,
          section_line: chunk.startLine,
          section_end: chunk.endLine,
          date: null,
          heading: chunk.heading ?? '',
          heading_path: headingPath,
          citations: [],
          text,
          content: indexTerms(text),
          context: indexTerms(`${page.title}\n${page.aliases.join(' ')}`),
          subject: '',
        }),
      );
    }
  }
  return rows;
}

/** What every row of one page shares. */
type PageFields = Pick<IndexRow, 'kind' | 'path' | 'tags' | 'title' | 'page_type' | 'status' | 'archived'>;
/** What one row of a page holds of its own. */
type PageRowFields = Pick<IndexRow, 'key' | 'line' | 'line_end' | 'section_line' | 'section_end' | 'date' | 'heading' | 'heading_path' | 'citations' | 'text' | 'content' | 'context' | 'subject'>;

/**
 * A page row as one object literal. Spreading the page's shared fields into each row made every row a slow
 * dictionary-mode object: ~10× the cost of building, hashing and writing the rows (docs/benchmarks.md).
 */
function pageRow(base: PageFields, own: PageRowFields): IndexRow {
  return {
    kind: base.kind,
    path: base.path,
    id: '',
    category: '',
    tags: base.tags,
    title: base.title,
    page_type: base.page_type,
    status: base.status,
    archived: base.archived,
    subject: own.subject,
    key: own.key,
    line: own.line,
    line_end: own.line_end,
    section_line: own.section_line,
    section_end: own.section_end,
    date: own.date,
    heading: own.heading,
    heading_path: own.heading_path,
    citations: own.citations,
    text: own.text,
    content: own.content,
    context: own.context,
  };
}


/** The newest date the lines cite among facts not forgotten, or null. */
function newestDate(lines: readonly string[], tombstones: TombstoneSet): string | null {
  let date: string | null = null;
  for (const line of lines) {
    if (!line.includes('#^f-')) continue; // no citation: skip the scan (most lines)
    for (const match of line.matchAll(CITED_FACT_RE)) {
      if (!tombstones.hasId(match[2]!) && (date === null || match[1]! > date)) date = match[1]!;
    }
  }
  return date;
}

/** A part page's line naming its hub ("Part of [[Caroline]]."): navigation, like a list of links. */
const PART_OF_RE = /^Part of \[\[[^\]]+\]\]\.?$/;

