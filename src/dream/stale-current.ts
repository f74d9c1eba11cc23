/**
 * `## Current` holds the newest value (DESIGN §7, issue 26), whichever consolidator wrote the pages. For each
 * keyed line under a page's `## Current` whose own citations state that subject as a keyed fact, the runner
 * knows the subject's newest value (current.ts) from the batch's facts and the facts the Current lines of the
 * pages cite. A stale line is corrected, not refused: the runner rewrites it to the newest value with that
 * value's citations and moves the old line, its words and citations kept, to `## History` with
 * `(until DATE)`, as the offline consolidator does. A plain-English line or fact ("Moved to [[Lisbon]]") states its
 * subject as a keyed one does when text/state-change.ts reads it surely (current.ts statedValue), so a model that
 * writes its Current in words is held to the same newest value. A model that appended an `## Update` and left the old
 * value under Current so costs nobody a day, and MEMORY.md (regenerated from the pages after) holds the
 * newest value. Pages the run wrote are checked for every subject; other pages for the subjects the batch
 * states (the newest value came in this run).
 *
 * A line is stale when it is the run's (added or changed by it) and holds another value than the newest, or
 * when it stood before the run, states faithfully a value one of its cited facts gives, and a newer value
 * exists. A line a person wrote is left alone: one without a citation (a person's own value, the way a
 * conflict is resolved), or one whose value none of its citations gives (a person's edit).
 *
 * A disputed subject (two values one after the other on its newest day, current.ts) is never current: a Current line the run wrote for one
 * fails the run (`disputed_lead`: keep both values under `## Conflicts` and flag the conflict), unless the page
 * holds a conflict of that subject a person resolved (ticked); an older value that stood before the run moves
 * to History.
 */
import { byText } from '../text/compare.js';
import type { Fact } from '../logs/factlog.js';
import { listWikiPages } from '../pages/discover.js';
import { citationsIn, citedIds, withoutCitations } from '../text/citation.js';
import { normalizeText } from '../text/normalize.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import { pageWriteTarget } from '../vault/confine.js';
import { ARCHIVE_DIR, INBOX_DIR, isGeneratedPage } from '../vault/layout.js';
import type { CheckFailure } from './checks.js';
import { CitedFacts } from './cited-facts.js';
import { linesAtBase, proseLines } from './claims.js';
import { isDisputed, newestValues, statedValue, type NewestValue } from './current.js';
import { cite } from './generate.js';
import { isItem, itemBody, subjectOf } from './page.js';
import { writeFileAtomic } from './tools/atomic.js';
import { pageText } from '../pages/page-read.js';

export interface CurrentCorrection {
  path: string;
  subject: string;
  /** The value the line held, and the newest value it holds now ('' when it only moved to History). */
  from: string;
  to: string;
}

export interface CurrentResult {
  corrected: CurrentCorrection[];
  failure: CheckFailure | null;
}

/** The sections after History, in the order the pages keep (page.ts SECTIONS): a new History goes before them. */
const AFTER_HISTORY = new Set(['Conflicts', 'Mentions', 'Related', 'Parts']);
const RESOLVED_RE = /^\s*- \[[xX]\] \*\*(.+?)\*\*/;

interface CurrentLine {
  index: number;
  text: string;
  key: string;
  value: string;
}

export interface CurrentInput {
  /** The run's tree (pages are corrected there) and the vault with the run's base commit. */
  tree: string;
  vaultRoot: string;
  base: string;
  /** Pages the consolidator created or changed (paths in the tree). */
  written: ReadonlySet<string>;
  batch: readonly Fact[];
  tombstones: TombstoneSet;
}

export async function holdNewestCurrent(input: CurrentInput): Promise<CurrentResult> {
  const { tree, written, batch, tombstones } = input;
  const batchKeys = new Set(batch.flatMap((f) => statedValue(f.text)?.key ?? []));
  const pages: Array<{ rel: string; content: string; current: CurrentLine[] }> = [];
  for (const rel of await listWikiPages(tree)) {
    if (rel.startsWith(ARCHIVE_DIR) || rel.startsWith(INBOX_DIR) || isGeneratedPage(rel)) continue;
    const content = pageText(tree, rel);
    if (!content.includes('## Current')) continue;
    const current = currentLines(content).filter((l) => written.has(rel) || batchKeys.has(l.key));
    if (current.length > 0) pages.push({ rel, content, current });
  }
  if (pages.length === 0 && batchKeys.size === 0) return { corrected: [], failure: null };

  const facts = new CitedFacts(tree);
  const live = (f: Fact): boolean => !tombstones.hasId(f.id) && !tombstones.repeats(f.text);
  const known = new Map(batch.filter(live).map((f) => [f.id, f]));
  const cited = new Map<string, Fact[]>();
  for (const page of pages) {
    for (const line of page.current) {
      const of = (await facts.of(line.text)).filter(live);
      cited.set(`${page.rel}\n${line.index}`, of);
      for (const f of of) known.set(f.id, f);
    }
  }
  const newest = newestValues([...known.values()]);
  const had = await linesAtBase(input.vaultRoot, input.base, pages.map((p) => p.rel));

  const corrected: CurrentCorrection[] = [];
  for (const page of pages) {
    const lines = page.content.split('\n');
    const crlf = page.content.includes('\r\n');
    const stale: Array<{ line: CurrentLine; to: NewestValue }> = [];
    for (const line of page.current) {
      const to = newest.get(line.key);
      const own = (cited.get(`${page.rel}\n${line.index}`) ?? []).filter((f) => statedValue(f.text)?.key === line.key);
      // Only a line whose own citations state the subject is held to it (a person's value is theirs).
      if (to === undefined || own.length === 0) continue;
      const runs = !had.has(line.text.trim());
      if (isDisputed(to)) {
        if (resolvedOn(lines, line.key)) continue;
        if (runs) return { corrected, failure: disputed(page.rel, line, to) };
        if (states(own, line.value)) stale.push({ line, to });
        continue;
      }
      if (same(line.value, to.value)) continue;
      if (runs || states(own, line.value)) stale.push({ line, to });
    }
    if (stale.length === 0) continue;
    // A page that resolves outside the vault is read, never rewritten (DESIGN §9).
    const target = await pageWriteTarget(tree, page.rel);
    if (!target.ok || target.rel !== page.rel || !target.exists) continue;
    const eol = crlf ? '\r' : '';
    const history: string[] = [];
    // Bottom up, so the indexes of the lines above stay right; History is added after every replacement.
    for (const { line, to } of [...stale].sort((a, b) => b.line.index - a.line.index)) {
      const hasNewest = !isDisputed(to) && page.current.some((l) => l.key === line.key && same(l.value, to.value) && !stale.some((s) => s.line === l));
      const replacement = isDisputed(to) || hasNewest ? [] : [`- ${currentText(to)} ${to.sameValue.map((f) => cite(f)).join(' ')}${eol}`];
      lines.splice(line.index, 1, ...replacement);
      history.unshift(`${historyLine(line.text, isDisputed(to) ? to.date : to.sameValue[0]!.date)}${eol}`);
      corrected.push({ path: page.rel, subject: to.subject, from: line.value, to: replacement.length > 0 ? to.value : '' });
    }
    for (const line of history) addToHistory(lines, line, eol);
    await writeFileAtomic(target.abs, lines.join('\n'));
  }
  corrected.push(...(await addMissingCurrent(tree, written, batch, newest)));
  return { corrected: corrected.sort((a, b) => byText(a.path, b.path)), failure: null };
}

/** Sections whose lines state no value of their page's own: the newest value is not taken from them. */
const NOT_STATED_IN = new Set(['Current', 'History', 'Conflicts', 'Mentions', 'Related', 'Parts']);

/**
 * A newest value the batch brought that no live page holds under `## Current` (a model that noted "moved to
 * Lisbon", or `home city:: Lisbon` in a section of its own, and left Current without it): the runner adds it,
 * cited, under `## Current` of the first page the run wrote that states the fact, so MEMORY.md, search and the
 * archive (which keeps a page with a current value) hold it. A disputed subject is never added.
 */
async function addMissingCurrent(tree: string, written: ReadonlySet<string>, batch: readonly Fact[], newest: ReadonlyMap<string, NewestValue>): Promise<CurrentCorrection[]> {
  const batchIds = new Set(batch.map((f) => f.id));
  const wanted = [...newest.values()].filter((to) => !isDisputed(to) && to.sameValue.some((f) => batchIds.has(f.id)));
  if (wanted.length === 0) return [];
  const live: Array<{ rel: string; content: string }> = [];
  for (const rel of await listWikiPages(tree)) {
    if (rel.startsWith(ARCHIVE_DIR) || rel.startsWith(INBOX_DIR) || isGeneratedPage(rel)) continue;
    live.push({ rel, content: pageText(tree, rel) });
  }
  const held = new Set(live.flatMap((p) => currentLines(p.content).map((l) => `${l.key}\n${normalizeText(l.value)}`)));
  // A value a person wrote under Current without a citation is theirs: the runner adds none beside it.
  const persons = new Set(live.flatMap((p) => currentLines(p.content, true).filter((l) => citedIds(l.text).length === 0).map((l) => l.key)));
  const added: CurrentCorrection[] = [];
  for (const to of wanted.sort((a, b) => byText(a.subject, b.subject))) {
    if (held.has(`${normalizeText(to.subject)}\n${normalizeText(to.value)}`) || persons.has(normalizeText(to.subject))) continue;
    const ids = new Set(to.sameValue.map((f) => f.id));
    const page = live.filter((p) => written.has(p.rel)).find((p) => statesFact(p.content, ids));
    if (page === undefined) continue;
    const target = await pageWriteTarget(tree, page.rel);
    if (!target.ok || target.rel !== page.rel || !target.exists) continue;
    const eol = page.content.includes('\r\n') ? '\r' : '';
    const lines = page.content.split('\n');
    addToCurrent(lines, `- ${currentText(to)} ${to.sameValue.map((f) => cite(f)).join(' ')}${eol}`, eol);
    page.content = lines.join('\n');
    await writeFileAtomic(target.abs, page.content);
    held.add(`${normalizeText(to.subject)}\n${normalizeText(to.value)}`);
    added.push({ path: page.rel, subject: to.subject, from: '', to: to.value });
  }
  return added;
}

/** True when a list item of the page, outside the sections that state no value of its own, cites one of the facts. */
function statesFact(content: string, ids: ReadonlySet<string>): boolean {
  let section: string | null = null;
  for (const { text } of proseLines(content)) {
    if (text.startsWith('## ')) section = text.slice(3).trim();
    if (section !== null && NOT_STATED_IN.has(section)) continue;
    if (isItem(text) && citedIds(text).some((id) => ids.has(id))) return true;
  }
  return false;
}

/** Adds a line at the end of the page's `## Current`, making the section before the first `##` section when it lacks one. */
function addToCurrent(lines: string[], line: string, eol: string): void {
  const bare = (i: number): string => lines[i]!.replace(/\r$/, '').trim();
  const last = lines.length > 0 && lines.at(-1) === '' ? lines.length - 1 : lines.length;
  const start = lines.findIndex((_, i) => i < last && bare(i) === '## Current');
  if (start >= 0) {
    let end = start + 1;
    while (end < last && !/^#{1,2} /.test(bare(end))) end++;
    while (end > start + 1 && bare(end - 1) === '') end--;
    const insert = end === start + 1 ? [eol, line] : [line];
    // A blank line stays between the section and the next heading.
    if (end < last && bare(end) !== '') insert.push(eol);
    lines.splice(end, 0, ...insert);
    return;
  }
  let at = lines.findIndex((_, i) => i < last && /^## /.test(bare(i)));
  if (at < 0) at = last;
  while (at > 0 && bare(at - 1) === '') at--;
  const section = [eol, `## Current${eol}`, eol, line];
  if (at < last && bare(at) !== '') section.push(eol);
  lines.splice(at, 0, ...section);
}

/** A superseded keyed line as History shows it: `subject: value`, so only Current holds the inline field. */
export function historyLine(line: string, until: string): string {
  const keyed = subjectOf(withoutCitations(itemBody(line)));
  const body = keyed === null ? withoutCitations(itemBody(line)).trim() : `${keyed.subject}: ${keyed.value}`;
  return `- ${body} ${citationsIn(line).join(' ')} (until ${until})`;
}

const same = (a: string, b: string): boolean => normalizeText(a) === normalizeText(b);

/** True when one of the facts gives the subject exactly this value (the line states it faithfully). */
const states = (facts: readonly Fact[], value: string): boolean => facts.some((f) => same(statedValue(f.text)?.value ?? '', value));

/** The newest value as a Current line states it: a keyed fact as written, a plain-English one as its keyed value (as the offline consolidator writes it). */
const currentText = (to: NewestValue): string => (subjectOf(to.fact.text) === null ? `${to.subject}:: ${to.value}` : to.fact.text);

/** The cited keyed items (every one, with `uncited`) under the page's `## Current`, outside frontmatter and code; indexes into content.split('\n'). */
function currentLines(content: string, uncited = false): CurrentLine[] {
  const out: CurrentLine[] = [];
  let section: string | null = null;
  for (const { line, text } of proseLines(content)) {
    const heading = /^#{1,2} (.+?)\s*$/.exec(text);
    if (heading !== null) {
      section = text.startsWith('## ') ? heading[1]! : null;
      continue;
    }
    if (section !== 'Current' || !isItem(text) || (!uncited && citedIds(text).length === 0)) continue;
    const keyed = statedValue(withoutCitations(itemBody(text)));
    if (keyed !== null) out.push({ index: line - 1, text, key: keyed.key, value: keyed.value });
  }
  return out;
}

/** True when the page holds a conflict of the subject a person ticked (resolved). */
function resolvedOn(lines: readonly string[], key: string): boolean {
  return lines.some((line) => {
    const subject = RESOLVED_RE.exec(line)?.[1];
    return subject !== undefined && subjectOf(`${subject}:: x`)?.key === key;
  });
}

function disputed(rel: string, line: CurrentLine, to: NewestValue): CheckFailure {
  const values = [to.value, ...to.disputedBy.map((f) => statedValue(f.text)?.value ?? '')].map((v) => `"${v}"`).join(' and ');
  return {
    check: 'disputed_lead',
    message:
      `${rel} holds ${to.subject} under ## Current, but the logs give it ${values} on ${to.date} and nothing says which is right; ` +
      'neither is current until a person decides: put both values under ## Conflicts, cited, and call flag_conflict',
  };
}

/**
 * Adds a line at the end of the page's `## History`, making the section (before Conflicts, Mentions, Related,
 * Parts) when it lacks one. `lines` are the page split at '\n'; `eol` is '\r' on a page with CRLF endings.
 */
function addToHistory(lines: string[], line: string, eol: string): void {
  const bare = (i: number): string => lines[i]!.replace(/\r$/, '').trim();
  // The trailing '' of a page that ends in a newline is not a line of it.
  const last = lines.length > 0 && lines.at(-1) === '' ? lines.length - 1 : lines.length;
  const start = lines.findIndex((_, i) => i < last && bare(i) === '## History');
  if (start >= 0) {
    let end = start + 1;
    while (end < last && !/^#{1,2} /.test(bare(end))) end++;
    while (end > start + 1 && bare(end - 1) === '') end--;
    lines.splice(end, 0, ...(end === start + 1 ? [eol, line] : [line]));
    return;
  }
  let at = lines.findIndex((_, i) => i < last && AFTER_HISTORY.has(/^## (.+)$/.exec(bare(i))?.[1] ?? ''));
  if (at < 0) at = last;
  while (at > 0 && bare(at - 1) === '') at--;
  const section = [eol, `## History${eol}`, eol, line];
  if (at < last && bare(at) !== '') section.push(eol);
  lines.splice(at, 0, ...section);
}
