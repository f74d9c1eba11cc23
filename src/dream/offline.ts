/**
 * The offline consolidator: deterministic rules, no model (DESIGN §7). Same input, same pages.
 * - routes facts to pages: where their subject or statement already stands; else the page of the
 *   person, project, organization or place they are about (entities.ts); else the topic page of their
 *   tags (tags that occur together share one page); else their category's page;
 * - a fact about several entities is stated on its main entity's page, names the others as links, is
 *   repeated under each other's `## Mentions` with a link back (mentions.ts), and each page lists the
 *   others under `## Related`;
 * - merges duplicates (same normalized text) into one line that cites every occurrence;
 * - keyed facts (`subject:: value`): the newest value stands under "## Current", older ones move to
 *   "## History" (without the `::`, so an inline-field query finds only the current value); two values
 *   on one day are a conflict: neither stands under Current until a person resolves it (conflicts.ts);
 * - commitments go under "## Open commitments" with their due date, and to "## Past commitments" once
 *   it passes (commitments.ts);
 * - a page past the size bound splits into parts by period, linked from its hub (bound.ts); a long
 *   Notes section is grouped under subject or month headings (sections.ts);
 * - removes forgotten (tombstoned) facts from pages.
 * It only appends to lines or moves them: a line a person wrote stays, and a page no rule touches is
 * not rewritten (its line endings, blank lines and code stay as they were).
 */
import { pushTo } from './push-to.js';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readLog, type Category, type Fact } from '../logs/factlog.js';
import { listWikiPages } from '../pages/discover.js';
import { citationsIn, citedDates, citedIds, CITATION_RE, withoutCitations } from '../text/citation.js';
import { normalizeText } from '../text/normalize.js';
import type { TombstoneSet } from '../tombstones/tombstones.js';
import { ARCHIVE_DIR, isGeneratedPage } from '../vault/layout.js';
import { boundPages, pastBound } from './bound.js';
import { sectionNotes, type Subjects } from './sections.js';
import { dueDate, dueOf, isCommitment, mayCommit } from './commitments.js';
import { flagConflict, flagUnsure, resolveConflicts } from './conflicts.js';
import type { Conflict, ConsolidationInput, ConsolidationResult, Consolidator } from './consolidator.js';
import { canonical, recognizeEntities, speakerOf, type Entity, type EntityType, type Mention } from './entities.js';
import { cite } from './generate.js';
import { addMention, isMention, markDisputed, markSuperseded } from './mentions.js';
import { isItem, itemBody, Page, subjectOf, type Keyed } from './page.js';
import { pageWriteTarget } from '../vault/confine.js';
import { byText } from '../text/compare.js';
import { allParts, writeLead } from './lead.js';
import { writeSummaries } from './summaries.js';
import { personLeads } from './person-lead.js';
import { gatherer, type Gathered } from './gather.js';
import { pageOwners } from './ownership.js';
import { TOPICS, topicOf } from './topics.js';
import { fileChatter, isRecordPage } from './records.js';
import { sayAll, type Said } from './said.js';
import { citeQuestion } from './exchanges.js';
import { brief } from './brief.js';
import { slicer } from './slice.js';
import { readStateChange, type StateChange } from '../text/state-change.js';
import { pageText } from '../pages/page-read.js';

const ZONE_OF: Record<Category, string> = {
  preference: '3_Personal',
  relationship: '3_Personal',
  moment: '3_Personal',
  principle: '3_Personal',
  decision: '1_Projects',
  commitment: '1_Projects',
  fact: '2_Areas',
  entity: '2_Areas',
  skill: '2_Areas',
  correction: '2_Areas',
};

const ENTITY_ZONE: Record<EntityType, string> = { person: '3_Personal', project: '1_Projects', organization: '2_Areas', place: '2_Areas' };

const CATEGORY_PAGE: Record<Category, string> = {
  preference: 'Preferences',
  relationship: 'People',
  moment: 'Moments',
  principle: 'Principles',
  decision: 'Decisions',
  commitment: 'Commitments',
  fact: 'General',
  entity: 'General',
  skill: 'Skills',
  correction: 'General',
};

/** Category and topic pages' titles: a name that is one of them is the category, never an entity's page. */
const CATEGORY_LABEL_TITLES = new Set([...Object.values(CATEGORY_PAGE), ...TOPICS].map((t) => normalizeText(t)));

/** An entity or a tag group gets a page of its own once this many facts of the batch name it. */
const MIN_FACTS_FOR_PAGE = 3;
const ENTITY_TYPES = new Set<string>(['person', 'place', 'organization', 'project']);

export function createOfflineConsolidator(): Consolidator {
  return { name: 'offline', consolidate };
}

/** The statement a line makes, without its bullet, citations, links' brackets and category marker, normalized. */
function statementKey(line: string): string {
  const body = withoutCitations(itemBody(line)).replace(/\s*\(due \d{4}-\d{2}-\d{2}\)/, '').replace(/^\[[a-z]+\]\s*/, '');
  return normalizeText(body.replace(/\[\[([^\]|]+)\|([^\]]+)\]\]/g, '$2'));
}

function titleOf(tag: string): string {
  const words = tag.split('/').at(-1)!.replace(/[-_]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A page title that is also a safe file name on every system Obsidian runs on. */
const fileTitle = (name: string): string => name.replace(/[\\/:*?"<>|#^[\]]+/g, ' ').replace(/\s+/g, ' ').trim();

const quoteList = (items: readonly string[]): string => `[${items.map((t) => JSON.stringify(t)).join(', ')}]`;

interface Plan {
  page: Page;
  /** Entities linked from the statement and from Related, when they have a page. */
  others: Entity[];
}

async function consolidate(input: ConsolidationInput): Promise<ConsolidationResult> {
  const pages = new Map<string, Page>();
  for (const rel of await listWikiPages(input.root)) {
    const content = pageText(input.root, rel);
    pages.set(rel, new Page(rel, content.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n'), false, content));
  }
  // A person's notes on an adopted vault are theirs (dream.adopted_notes): read, never written; the dream's
  // statements go to pages of its own (a name they hold is kept free, below).
  const reserved = new Set(input.readOnly ?? []);
  for (const rel of reserved) pages.delete(rel);
  removeForgotten(pages, input.tombstones);
  resolveConflicts(pages.values());

  const all = [...input.facts].sort((a, b) => byText(a.date, b.date) || a.line - b.line);
  const tick = slicer(input.signal);
  const said = await sayAll(all, input.owner ?? null, tick);
  const saidOf = (fact: Fact): Said => said.get(fact.id)!;
  // Small talk is cited from its record page, never stated on an entity's (records.ts).
  const facts = all.filter((f) => !saidOf(f).chatter || subjectOf(f.text) !== null);
  const open = (rel: string, make: () => Page): Page => {
    const held = pages.get(rel);
    if (held !== undefined) return held;
    const page = make();
    pages.set(rel, page);
    return page;
  };
  const content = new Set(facts);
  const chatter = all.filter((f) => !content.has(f));
  const routing = await planRouting(pages, facts, reserved, tick, chatter);
  const stated = new StatementIndex(pages);
  const conflicts: Conflict[] = [];
  const touched = new Map<Page, string>();
  const mark = (page: Page, date: string): void => {
    if ((touched.get(page) ?? '') < date) touched.set(page, date);
  };
  for (const [page, date] of fileChatter(chatter.map((fact) => ({ fact, speaker: saidOf(fact).speaker })), open)) mark(page, date);
  const placed: Array<{ page: Page; fact: Fact; others: Entity[]; line: string | null }> = [];
  const speakers = new Set(facts.map((f) => speakerOf(f.text)).flatMap((name) => (name === null ? [] : [normalizeText(name)])));
  for (const fact of facts) {
    input.signal.throwIfAborted();
    await tick();
    const keyed = subjectOf(fact.text);
    const change = keyed === null ? readStateChange(fact.text) : null;
    const due = keyed === null && mayCommit(fact) ? await dueDate(fact) : null;
    const plan = routing.route(fact, keyed?.key ?? change?.key ?? null);
    const at = keyed === null ? placeStatement(stated, plan, fact, brief(saidOf(fact).text), isCommitment(fact, due) ? due ?? '' : null) : { page: placeKeyed(plan.page, fact, keyed, conflicts), line: null };
    const question = saidOf(fact).question;
    if (question !== undefined && at.line !== null) citeQuestion(at.page, at.line, question);
    if (keyed !== null) routing.holds(keyed.key, at.page);
    if (change !== null) routing.holds(change.key, placeChange(plan.page, fact, change, conflicts));
    mark(at.page, fact.date);
    placed.push({ page: at.page, fact, others: plan.others, line: at.line });
  }
  // An entity named in enough facts has its page even when no fact is mainly about it (a pet, a city, a
  // friend only ever named in someone's turn): the page opens here and tells what is said of it (Mentions).
  for (const { entity, date } of routing.unpaged()) mark(routing.open(entity, date), date);
  const gathered = await gatherOnNewPages(input.root, pages, mark);
  // Links last, once the batch has made its pages: a name links to a page that exists, and no page is
  // made only to be linked (it would hold no statement of its own).
  for (const { page, fact, others, line } of placed) {
    await tick();
    const linkable = others.map((o) => ({ entity: o, target: routing.pageOf(o) })).filter((o): o is { entity: Entity; target: Page } => o.target !== undefined && o.target !== page);
    if (line !== null) {
      // A duplicate later in the batch may have added its citation to the line since.
      const index = page.lines.findIndex((l) => l.startsWith(line) && citedIds(l).includes(fact.id));
      const text = brief(saidOf(fact).text);
      if (index >= 0) page.lines[index] = page.lines[index]!.replace(text, linked(text, linkable.map((o) => o.entity), (e) => fileTitle(e.name)));
    }
    for (const { entity, target } of linkable) {
      target.link('Related', page.title);
      page.link('Related', target.title);
      // In a conversation's turn a speaker's name mostly addresses them ("Thanks, Caroline!"): that says
      // nothing about them, and would repeat half the conversation on their page. Anyone else named in a
      // turn is talked about ("Oliver loves the lake").
      if (entity.type !== 'person' || speakerOf(fact.text) === null || (!speakers.has(entity.key) && !addressed(fact.text, entity.name))) addMention(target, page, fact);
      mark(target, fact.date);
    }
  }
  markSuperseded([...pages.values()], (p) => !p.rel.startsWith(ARCHIVE_DIR));
  markDisputed([...pages.values()], (p) => !p.rel.startsWith(ARCHIVE_DIR));
  const today = input.now.toISOString().slice(0, 10);
  // An archived page is left as it was archived.
  for (const page of pages.values()) if (!page.rel.startsWith(ARCHIVE_DIR) && pastCommitments(page, today)) touched.set(page, touched.get(page) ?? '');
  for (const [page, date] of touched) {
    if (date === '') continue;
    if (page.isNew && page.property('created') === null) page.setProperty('created', date);
    if (page.property('type') !== null) page.setProperty('updated', date);
  }
  // A fact waiting under an open conflict stands in no lead, whichever page holds the conflict (a part that
  // became a hub reads statements its top hub disputes).
  const disputed = new Set(
    [...pages.values()].flatMap((p) => (p.rel.startsWith(ARCHIVE_DIR) ? [] : p.sectionLines('Conflicts').flatMap((i) => (/^\s*- \[ \] /.test(p.lines[i]!) ? citedIds(p.lines[i]!) : [])))),
  );
  // Split, then section and lead; sections and a lead add lines, so a page they take past the bound splits
  // again (a few passes at most: each pass leaves parts under the split size).
  const theirs = await personLeads(input.root, [...pages.values()].filter((p) => !p.isNew && p.changed() && p.property('type') !== null).map((p) => p.rel));
  for (let pass = 0; pass < 3; pass++) {
    boundPages(pages);
    const grouped = [...pages.values()].filter((p) => p.changed() && p.property('type') !== null && !isRecordPage(p.rel));
    const subjects = await noteSubjects(input.root, grouped, facts);
    for (const page of grouped) {
      sectionNotes(page, subjects);
      await tick();
    }
    const partsByTitle = new Map<string, Page[]>();
    for (const p of pages.values()) if (p.property('part_of') !== null) pushTo(partsByTitle, p.title, p);
    const partsOf = (hub: Page): Page[] =>
      hub
        .sectionLines('Parts')
        .map((i) => /^- \[\[([^\]|]+)\]\]$/.exec(hub.lines[i]!.trim())?.[1])
        .flatMap((title) => (title === undefined ? [] : partsByTitle.get(title) ?? []));
    for (const page of grouped) {
      if (!theirs.has(page.rel)) writeLead(page, partsOf, disputed);
      if (!theirs.has(page.rel)) writeSummaries(page, page.headingIndex('Parts') >= 0 ? allParts(partsOf(page), partsOf) : []);
      await tick();
    }
    if (!grouped.some((p) => pastBound(p.text()))) break;
  }

  let written = 0;
  const notRewritten: string[] = [];
  for (const page of [...pages.values()].sort((a, b) => byText(a.rel, b.rel))) {
    if (!page.changed()) continue;
    const text = page.text();
    if (text === page.original) continue;
    // A page linked in from outside the vault is read, never rewritten (DESIGN §9); its facts go uncited
    // and the runner files them in the inbox.
    const target = await pageWriteTarget(input.root, page.rel);
    if (!target.ok) {
      notRewritten.push(page.rel);
      continue;
    }
    await mkdir(path.dirname(target.abs), { recursive: true });
    await writeFile(target.abs, text);
    written++;
    input.onEvent?.({ type: 'page', path: page.rel, action: page.isNew ? 'created' : 'updated' });
  }
  const outside = notRewritten.length === 0 ? '' : `; not rewritten (a link out of the vault): ${notRewritten.join(', ')}`;
  const moved = gathered.length === 0 ? '' : `; moved ${gathered.reduce((n, g) => n + g.lines, 0)} statements to the pages of their entity: ${gathered.map((g) => `${g.lines} from ${g.from} to ${g.to}`).join(', ')}`;
  return {
    summary: `placed ${facts.length} facts on ${written} pages (${chatter.length} of them small talk, on record pages); ${conflicts.length} conflicts flagged${moved}${outside}`,
    conflicts,
    notRewritten,
    llm: { calls: 0, tokens: 0 },
  };
}

/**
 * A note's subject, for grouping a long Notes by subject: its fact's first tag (as a page title), or its
 * category's page name when it has no tag or the tag names the page itself. Facts older than the batch are
 * read from their logs (read only).
 */
async function noteSubjects(root: string, pages: readonly Page[], batch: readonly Fact[]): Promise<Subjects> {
  const known = new Map(batch.map((f) => [f.id, f]));
  const dates = new Set<string>();
  for (const page of pages) {
    for (const i of page.sectionLines('Notes')) for (const m of page.lines[i]!.matchAll(CITATION_RE)) if (!known.has(m[2]!)) dates.add(m[1]!);
  }
  for (const date of [...dates].sort()) for (const fact of (await readLog(root, date)).facts) if (!known.has(fact.id)) known.set(fact.id, fact);
  // A note's tag says what it is about; else the words of its statement do (topics.ts); else its category.
  const subjectOfFact = (fact: Fact, page: Page, line: string): string => {
    const tag = fact.tags[0];
    if (tag !== undefined && normalizeText(titleOf(tag)) !== normalizeText(page.title)) return titleOf(tag);
    return topicOf(withoutCitations(itemBody(line))) ?? CATEGORY_PAGE[fact.category];
  };
  return {
    of(line, page) {
      const fact = known.get(citedIds(line)[0] ?? '');
      return fact === undefined ? null : subjectOfFact(fact, page, line);
    },
    titles: new Set([...Object.values(CATEGORY_PAGE), ...TOPICS, ...[...known.values()].flatMap((f) => f.tags.map(titleOf))]),
  };
}

/**
 * Entity pages this run made gather the statements about their entity that earlier runs filed on other
 * pages of the dream's (gather.ts). A person's own pages are never a source: who made a page is read from
 * the tree's history.
 */
async function gatherOnNewPages(root: string, pages: Map<string, Page>, mark: (page: Page, date: string) => void): Promise<Gathered[]> {
  const made = [...pages.values()].filter((p) => p.isNew && ENTITY_TYPES.has(p.property('type') ?? '') && p.property('part_of') === null).sort((a, b) => byText(a.rel, b.rel));
  if (made.length === 0) return [];
  const older = [...pages.values()].filter((p) => !p.isNew && !p.rel.startsWith(ARCHIVE_DIR) && !isGeneratedPage(p.rel) && !isRecordPage(p.rel) && p.property('type') !== null);
  const owners = await pageOwners(root, older.map((p) => p.rel));
  const sources = older.filter((p) => owners.get(p.rel) === 'dream').sort((a, b) => byText(a.rel, b.rel));
  const out: Gathered[] = [];
  const gather = gatherer(sources);
  for (const target of made) {
    const moved = gather(target, [target.title, ...listProperty(target.property('aliases'))]);
    for (const g of moved) {
      const from = pages.get(g.from)!;
      const newest = from.lines.flatMap((l) => citedDates(l)).sort().at(-1) ?? '';
      mark(from, newest);
      mark(target, newest);
    }
    out.push(...moved);
  }
  return out;
}

/** Open commitments whose due date is before today move to Past commitments. True when one moved. */
function pastCommitments(page: Page, today: string): boolean {
  const passed = page.sectionLines('Open commitments').filter((i) => {
    const due = dueOf(page.lines[i]!);
    return due !== null && due < today;
  });
  if (passed.length === 0) return false;
  const moved = passed.map((i) => page.lines[i]!);
  for (const i of [...passed].reverse()) page.lines.splice(i, 1);
  page.dropIfEmpty('Open commitments');
  for (const line of moved) page.append('Past commitments', line);
  return true;
}

/** Lines that cite only forgotten facts, or repeat a forgotten text, leave the pages; mixed lines lose the forgotten citations. */
function removeForgotten(pages: Map<string, Page>, tombstones: TombstoneSet): void {
  if (tombstones.entries.length === 0) return;
  for (const page of pages.values()) {
    page.lines = page.lines.flatMap((line) => {
      const ids = citedIds(line);
      if (ids.length === 0) return isItem(line) && tombstones.repeats(line) ? [] : [line];
      const forgotten = ids.filter((id) => tombstones.hasId(id));
      if (forgotten.length === ids.length || tombstones.repeats(withoutCitations(line))) return [];
      if (forgotten.length === 0) return [line];
      return [withoutCitations(line, (id) => tombstones.hasId(id))];
    });
  }
}

interface Routing {
  route(fact: Fact, subjectKey: string | null): Plan;
  /** The page an entity has, if any (never makes one: a link goes only to a page that exists). */
  pageOf(entity: Entity): Page | undefined;
  /** Says that `page` now holds a value of the keyed subject, so later values of it go there. */
  holds(subjectKey: string, page: Page): void;
  /** Entities that earned a page (named in enough facts) and have none yet, with the date of the first fact naming them. */
  unpaged(): Array<{ entity: Entity; date: string }>;
  /** The entity's page, made when it has none. */
  open(entity: Entity, date: string): Page;
}

/**
 * Decides, for the whole batch at once, which entities and tag groups earn a page: an entity named in
 * at least MIN_FACTS_FOR_PAGE facts, or one that already has a page; a group of tags that occur together
 * on facts, likewise. A tag that mostly rides along with one entity's name folds into that entity's page.
 */
async function planRouting(pages: Map<string, Page>, facts: readonly Fact[], reserved: ReadonlySet<string>, tick: () => Promise<void>, smallTalk: readonly Fact[] = []): Promise<Routing> {
  // A generated page (digest, dashboard) is rewritten by the program: facts never go there.
  const live = (): Page[] => [...pages.values()].filter((p) => !p.rel.startsWith(ARCHIVE_DIR) && !isGeneratedPage(p.rel)).sort((a, b) => byText(a.rel, b.rel));
  // An archived page takes no new facts (they would be hidden from plain search): its entity or topic
  // starts a live page again under the same name, and links resolve to that one (the shorter path).
  // By normalized title, the first by path; rebuilt when a page is added (a lookup per fact must not scan every page).
  let titles = new Map<string, Page>();
  let titled = -1;
  const byName = (name: string): Page | undefined => {
    if (titled !== pages.size) {
      titles = new Map();
      for (const p of [...pages.values()].sort((a, b) => byText(a.rel, b.rel))) {
        const key = normalizeText(p.title);
        if (!isGeneratedPage(p.rel) && !p.rel.startsWith(ARCHIVE_DIR) && !titles.has(key)) titles.set(key, p);
      }
      titled = pages.size;
    }
    return titles.get(normalizeText(name));
  };
  // Entities that already have a page, by title and alias.
  const known = new Map<string, Entity>();
  const knownNames: Array<{ name: string; entity: Entity }> = [];
  for (const page of live()) {
    const type = page.property('type');
    if (type === null || !ENTITY_TYPES.has(type)) continue;
    const entity: Entity = { name: page.title, key: normalizeText(page.title), type: type as EntityType };
    known.set(entity.key, entity);
    knownNames.push({ name: page.title, entity });
    for (const alias of listProperty(page.property('aliases'))) {
      known.set(normalizeText(alias), entity);
      knownNames.push({ name: alias, entity });
    }
  }
  // Small talk is stated on no entity's page, but a name it says counts toward the name's page ("What do you
  // love about Seattle?" is the third fact naming Seattle).
  const read = [...facts, ...smallTalk];
  const raw = await recognizeEntities(read, knownNames, { tick });
  const canon = canonical(raw, known, [...new Set(read.flatMap((f) => speakerOf(f.text) ?? []))]);
  const mentions = new Map<string, Mention[]>();
  const named = new Map<string, number>();
  for (const fact of read) {
    const seen = new Map<string, Mention>();
    for (const m of raw.get(fact.id) ?? []) {
      const entity = canon.of(m.entity.key) ?? m.entity;
      if (!seen.has(entity.key)) seen.set(entity.key, { entity, at: m.at });
    }
    mentions.set(fact.id, [...seen.values()]);
    for (const key of seen.keys()) named.set(key, (named.get(key) ?? 0) + 1);
  }
  // Statements already on pages count too (a name met twice a month earns its page over a few runs);
  // a mention repeats one of them.
  const placed = live()
    .flatMap((p) => p.lines.filter((l) => isItem(l) && citedIds(l).length > 0 && !isMention(l)))
    .join('\n');
  const onPages = new Map<string, number>();
  // Counted up to the threshold only: past it the sum below is decided, and a rare name need not split the
  // whole vault's text into pieces (once per name, over a vault that grows with the backlog).
  const mentioned = (entity: Entity): number => {
    let n = onPages.get(entity.key);
    if (n === undefined) {
      n = occurrences(placed, entity.name, MIN_FACTS_FOR_PAGE);
      onPages.set(entity.key, n);
    }
    return n;
  };
  // An entity whose page was archived earned it once: a new fact about it opens a live page again.
  const archivedTitles = new Set([...pages.values()].filter((p) => p.rel.startsWith(ARCHIVE_DIR)).map((p) => normalizeText(p.title)));
  const eligible = (entity: Entity): boolean =>
    byName(fileTitle(entity.name)) !== undefined || archivedTitles.has(normalizeText(fileTitle(entity.name))) || (named.get(entity.key) ?? 0) + mentioned(entity) >= MIN_FACTS_FOR_PAGE;
  const mainOf = (fact: Fact): Mention | undefined => (mentions.get(fact.id) ?? []).find((m) => eligible(m.entity));

  // Tags that occur together on a fact share a topic page (union-find, deterministic by sorted names).
  const parent = new Map<string, string>();
  const find = (t: string): string => {
    let root = t;
    while (parent.get(root) !== root) root = parent.get(root) ?? root;
    return root;
  };
  const tagCount = new Map<string, number>();
  for (const fact of facts) {
    for (const tag of fact.tags) {
      if (!parent.has(tag)) parent.set(tag, tag);
      tagCount.set(tag, (tagCount.get(tag) ?? 0) + 1);
    }
    // A tag with a page of its own never merges: that page is where its facts have always gone.
    const free = fact.tags.filter((t) => byName(titleOf(t)) === undefined);
    for (const tag of free.slice(1)) {
      const [a, b] = [find(free[0]!), find(tag)].sort();
      if (a !== b) parent.set(b!, a!);
    }
  }
  const groups = new Map<string, string[]>();
  for (const tag of [...parent.keys()].sort()) groups.set(find(tag), [...(groups.get(find(tag)) ?? []), tag]);
  // Facts per tag group and per tag, counted once (a count per fact routed would grow with the batch's square).
  const groupFacts = new Map<string, number>();
  const factsWith = new Map<string, Fact[]>();
  for (const fact of facts) {
    for (const root of new Set(fact.tags.map(find))) groupFacts.set(root, (groupFacts.get(root) ?? 0) + 1);
    for (const tag of new Set(fact.tags)) pushTo(factsWith, tag, fact);
  }
  const groupTitle = (tag: string): { title: string; tags: string[]; facts: number } => {
    const members = groups.get(find(tag)) ?? [tag];
    const lead = [...members].sort((a, b) => (tagCount.get(b) ?? 0) - (tagCount.get(a) ?? 0) || byText(a, b))[0]!;
    return { title: titleOf(lead), tags: members, facts: groupFacts.get(find(tag)) ?? 0 };
  };
  // A tag whose facts mostly name one entity (or that is the entity's name) goes to that entity's page.
  const tagEntity = new Map<string, Entity>();
  for (const tag of parent.keys()) {
    const withTag = factsWith.get(tag) ?? [];
    const same = canon.of(normalizeText(titleOf(tag)));
    if (same !== undefined && eligible(same)) {
      tagEntity.set(tag, same);
      continue;
    }
    const counts = new Map<string, { entity: Entity; n: number }>();
    for (const f of withTag) {
      const main = mainOf(f);
      if (main !== undefined) counts.set(main.entity.key, { entity: main.entity, n: (counts.get(main.entity.key)?.n ?? 0) + 1 });
    }
    const top = [...counts.values()].sort((a, b) => b.n - a.n || byText(a.entity.key, b.entity.key))[0];
    if (top !== undefined && top.n >= 2 && top.n * 3 >= withTag.length * 2 && byName(titleOf(tag)) === undefined) tagEntity.set(tag, top.entity);
  }

  const create = (at: string, title: string, type: string, tags: string[], aliases: string[], date: string): Page => {
    // Beside a generated page or a person's read-only note of the same name, never over it.
    const rel = isGeneratedPage(at) ? at.replace(/\.md$/, ' notes.md') : reserved.has(at) ? at.replace(/\.md$/, ' (wiki).md') : at;
    const held = pages.get(rel);
    if (held !== undefined) return held;
    const front = ['---', `title: ${JSON.stringify(title)}`, `type: ${type}`, `tags: ${quoteList(tags)}`];
    if (aliases.length > 0) front.push(`aliases: ${quoteList(aliases)}`);
    front.push('status: active', `created: ${date}`, `updated: ${date}`, '---', `# ${title}`);
    const page = new Page(rel, front, true, '');
    pages.set(rel, page);
    return page;
  };
  const entityPage = (entity: Entity, date: string): Page => {
    const title = fileTitle(entity.name);
    const existing = byName(title);
    if (existing !== undefined) {
      const have = listProperty(existing.property('aliases'));
      const more = (canon.aliases.get(entity.key) ?? []).filter((a) => !have.includes(a) && normalizeText(a) !== normalizeText(title));
      if (more.length > 0 && existing.property('type') !== null) existing.setProperty('aliases', quoteList([...have, ...more].sort()));
      return existing;
    }
    return create(`${ENTITY_ZONE[entity.type]}/${title}.md`, title, entity.type, [], canon.aliases.get(entity.key) ?? [], date);
  };
  // The page whose Current holds each keyed subject (the first by path), kept as the batch places values.
  const currentOf = new Map<string, Page>();
  for (const page of live()) {
    for (const i of page.sectionLines('Current')) {
      const key = subjectOf(itemBody(page.lines[i]!))?.key;
      if (key !== undefined && !currentOf.has(key)) currentOf.set(key, page);
    }
  }
  type Target = { page: Page } | { entity: Entity } | { topic: ReturnType<typeof groupTitle> } | { category: string };
  /** Where a fact goes, decided without making any page (so a whole batch can be weighed first). */
  const decide = (fact: Fact, subjectKey: string | null, main: Mention | undefined): Target => {
    if (subjectKey !== null) {
      const page = currentOf.get(subjectKey);
      if (page !== undefined) return { page };
    }
    const tag = fact.tags[0];
    const ownTagPage = tag === undefined ? undefined : byName(titleOf(tag));
    // A tag with a page of its own keeps its facts there; a person or project beats any other tag, and so
    // does a place a statement starts from (a trip, an event), though not the value of a keyed fact.
    const strong = main !== undefined && (main.entity.type === 'person' || main.entity.type === 'project' || (main.entity.type === 'place' && subjectKey === null));
    if (ownTagPage === undefined && main !== undefined && (tag === undefined || strong)) return { entity: main.entity };
    const folded = tag === undefined ? undefined : tagEntity.get(tag);
    if (ownTagPage === undefined && folded !== undefined && eligible(folded)) return { entity: folded };
    if (ownTagPage !== undefined) return { page: ownTagPage };
    if (tag !== undefined) {
      const group = groupTitle(tag);
      const existing = byName(group.title);
      if (existing !== undefined) return { page: existing };
      if (group.facts >= MIN_FACTS_FOR_PAGE) return { topic: group };
    }
    return { category: CATEGORY_PAGE[fact.category] };
  };
  // Category pages this batch would open, and how many facts would fill each: a page opened for one or
  // two facts that name a person or project would stay that small (their later facts go to the entity's
  // page), so those facts start the entity's page instead.
  const opening = new Map<string, number>();
  for (const fact of facts) {
    const target = decide(fact, subjectOf(fact.text)?.key ?? null, mainOf(fact));
    if ('category' in target && byName(target.category) === undefined) opening.set(target.category, (opening.get(target.category) ?? 0) + 1);
  }
  // A full name or a project, not a first name alone: that may yet turn out to be someone's full name.
  const starter = (fact: Fact): Entity | undefined => (mentions.get(fact.id) ?? []).find((m) => (m.entity.type === 'person' && m.entity.name.includes(' ')) || m.entity.type === 'project')?.entity;

  return {
    pageOf: (entity) => byName(fileTitle(entity.name)),
    holds(subjectKey, page) {
      if (!currentOf.has(subjectKey)) currentOf.set(subjectKey, page);
    },
    unpaged() {
      const out = new Map<string, { entity: Entity; date: string }>();
      for (const fact of facts) {
        for (const { entity } of mentions.get(fact.id) ?? []) {
          if (out.has(entity.key) || !eligible(entity) || byName(fileTitle(entity.name)) !== undefined || CATEGORY_LABEL_TITLES.has(entity.key)) continue;
          out.set(entity.key, { entity, date: fact.date });
        }
      }
      return [...out.values()].sort((a, b) => byText(a.entity.key, b.entity.key));
    },
    open: entityPage,
    route(fact, subjectKey) {
      const list = mentions.get(fact.id) ?? [];
      const main = mainOf(fact);
      const others = list.filter((m) => m !== main && eligible(m.entity)).map((m) => m.entity);
      const target = decide(fact, subjectKey, main);
      if ('page' in target) return { page: target.page, others: main === undefined || target.page === byName(fileTitle(main.entity.name)) ? others : [main.entity, ...others] };
      if ('entity' in target) return { page: entityPage(target.entity, fact.date), others: others.filter((o) => o.key !== target.entity.key) };
      const withMain = main === undefined ? others : [main.entity, ...others];
      if ('topic' in target) return { page: create(`${ZONE_OF[fact.category]}/${fileTitle(target.topic.title)}.md`, target.topic.title, 'topic', target.topic.tags, [], fact.date), others: withMain };
      const title = target.category;
      const page = byName(title);
      if (page !== undefined) return { page, others: withMain };
      const start = starter(fact);
      if (start !== undefined && (opening.get(title) ?? 0) < MIN_FACTS_FOR_PAGE) return { page: entityPage(start, fact.date), others: list.map((m) => m.entity).filter((e) => e.key !== start.key && eligible(e)) };
      return { page: create(`${ZONE_OF[fact.category]}/${title}.md`, title, 'topic', [], [], fact.date), others: withMain };
    },
  };
}

/** How often `name` occurs in `text` (as `split` counts: case-sensitive, not overlapping), counted up to `cap`. */
function occurrences(text: string, name: string, cap: number): number {
  if (name === '') return Math.min(cap, text.length);
  let n = 0;
  for (let at = text.indexOf(name); at >= 0 && n < cap; at = text.indexOf(name, at + name.length)) n++;
  return n;
}

/** A frontmatter list written `[a, "b"]` or `a, b`. */
function listProperty(value: string | null): string[] {
  if (value === null || value === '') return [];
  return value
    .replace(/^\[|\]$/g, '')
    .split(',')
    .map((s) => s.trim().replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1'))
    .filter((s) => s !== '');
}

/** Words a turn opens with before the name of the person it speaks to ("Thanks, Caroline!", "Hey Mel"). */
const GREETING = String.raw`(?:hi|hey|hello|heya|hiya|yo|thanks|thank you|thx|congrats|congratulations|wow|oh|aww+|yes|yeah|no|sure|bye|goodbye|haha|lol|omg|great|good morning|good night|morning|dear|well|ok|okay)`;

/**
 * Whether a turn speaks to `name` rather than of it: the name stands between the turn's opening (or a
 * greeting) and a comma or an exclamation ("Caroline, how was it?", "Thanks, Caroline!"), or closes a sentence
 * after a comma ("That is lovely, Caroline!"). A speaker of an earlier batch is addressed so, not described.
 */
function addressed(text: string, name: string): boolean {
  const body = text.replace(/^[^:]{1,40}:\s/u, '');
  const n = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(String.raw`(?:^|[.!?]\s+|\b${GREETING}[,!]?\s+)${n}\s*[,!?]|,\s*${n}\s*[!?.]`, 'iu').test(body);
}

/** The fact's text with the first mention of each other entity made a link to its page. */
function linked(text: string, others: readonly Entity[], titles: (e: Entity) => string): string {
  let out = text;
  for (const other of others) {
    const title = titles(other);
    const name = other.name;
    const at = out.indexOf(name);
    if (at < 0 || out.lastIndexOf('[[', at) > out.lastIndexOf(']]', at)) continue;
    out = `${out.slice(0, at)}[[${title === name ? name : `${title}|${name}`}]]${out.slice(at + name.length)}`;
  }
  return out;
}

/**
 * Where each statement already stands, by its normalized text: found once per run instead of scanning every
 * page for every fact (that scan grew with the square of a backlog). Lines in Conflicts, Mentions, Related
 * and Parts are not statements; keyed lines have their own rule (placeKeyed). A line citing nothing is a
 * person's (an imported note's observation, a line they typed): it never takes a citation (that would rewrite
 * it), so a fact it repeats is stated on a line of the dream's own beside it.
 */
class StatementIndex {
  private readonly at = new Map<string, Page>();

  constructor(pages: ReadonlyMap<string, Page>) {
    for (const page of [...pages.values()].filter((p) => !p.rel.startsWith(ARCHIVE_DIR) && !isGeneratedPage(p.rel) && !isRecordPage(p.rel)).sort((a, b) => byText(a.rel, b.rel))) {
      const code = page.codeLines();
      const sections = page.sections();
      page.lines.forEach((line, i) => {
        const key = this.keyOf(page, line, i, code, sections);
        if (key !== null && !this.at.has(key)) this.at.set(key, page);
      });
    }
  }

  /** Each line's key, normalized once: a lookup compares the keys of a whole page. */
  private readonly keys = new Map<string, string | null>();

  private keyOf(page: Page, line: string, i: number, code = page.codeLines(), sections = page.sections()): string | null {
    if (!isItem(line) || code.has(i) || ['Conflicts', 'Mentions', 'Related', 'Parts'].includes(sections[i] ?? '')) return null;
    let key = this.keys.get(line);
    if (key === undefined) {
      key = subjectOf(itemBody(line)) !== null || citedIds(line).length === 0 ? null : statementKey(line);
      this.keys.set(line, key);
    }
    return key;
  }

  /** The page and line holding a statement of this key (a page may have moved lines since), or null. */
  find(key: string): { page: Page; index: number } | null {
    const page = this.at.get(key);
    if (page === undefined) return null;
    const code = page.codeLines();
    const sections = page.sections();
    const index = page.lines.findIndex((l, i) => this.keyOf(page, l, i, code, sections) === key);
    return index < 0 ? null : { page, index };
  }

  add(key: string, page: Page): void {
    if (!this.at.has(key)) this.at.set(key, page);
  }
}

/**
 * A statement already on a page (the same normalized text, whatever its tags) gets the new citation on
 * its line; only a new statement goes to the page it routes to. `due` is set for a commitment ('' when
 * it names no date). Returns the page that holds the statement, and the line when it is a new one.
 */
function placeStatement(stated: StatementIndex, plan: Plan, fact: Fact, text: string, due: string | null): { page: Page; line: string | null } {
  const key = statementKey(`- ${text}`);
  const held = stated.find(key);
  if (held !== null) {
    const { page, index } = held;
    if (!citedIds(page.lines[index]!).includes(fact.id)) page.lines[index] = `${page.lines[index]!.trimEnd()} ${cite(fact)}`;
    return { page, line: null };
  }
  const line = due === null ? `- ${text} ${cite(fact)}` : `- ${text}${due === '' ? '' : ` (due ${due})`} ${cite(fact)}`;
  plan.page.append(due === null ? 'Notes' : 'Open commitments', line);
  stated.add(key, plan.page);
  return { page: plan.page, line };
}

function placeKeyed(page: Page, fact: Fact, keyed: Keyed, conflicts: Conflict[]): Page {
  const currentIndex = page.sectionLines('Current').find((i) => subjectOf(itemBody(page.lines[i]!))?.key === keyed.key);
  if (currentIndex === undefined) {
    page.append('Current', `- ${fact.text} ${cite(fact)}`);
    return page;
  }
  const current = page.lines[currentIndex]!;
  if (citedIds(current).includes(fact.id)) return page;
  const currentValue = subjectOf(withoutCitations(itemBody(current)))?.value ?? '';
  if (normalizeText(currentValue) === normalizeText(keyed.value)) {
    page.lines[currentIndex] = `${current.trimEnd()} ${cite(fact)}`; // the same value again: one line, every citation
    return page;
  }
  const currentDates = citedDates(current).sort();
  if (currentDates.at(-1) === fact.date && fact.category !== 'correction') {
    // Two values on one day: neither is promoted; both wait under Conflicts for a person.
    page.lines.splice(currentIndex, 1);
    page.dropIfEmpty('Current');
    conflicts.push(flagConflict(page, current, fact, keyed));
    return page;
  }
  // The newest value stands; the one it replaces keeps its words and citations under History.
  page.lines.splice(currentIndex, 1);
  page.append('History', historyLine(current, fact.date));
  page.append('Current', `- ${fact.text} ${cite(fact)}`);
  return page;
}

/**
 * A plain-English change of state (text/state-change.ts: "I moved to Lisbon" is `home city: Lisbon`) also
 * stands under the page's Current as its keyed value, cited to the fact, by the keyed rules (placeKeyed): the
 * value it replaces goes to History, two values of one day to Conflicts. An unsure reading is never made
 * current: it waits under Conflicts for a person (flagUnsure). The statement itself stays in Notes.
 */
function placeChange(page: Page, fact: Fact, change: StateChange, conflicts: Conflict[]): Page {
  const keyed: Keyed = { subject: change.subject, key: change.key, value: change.value };
  if (!change.sure) {
    if (!page.sectionLines('Conflicts').some((i) => citedIds(page.lines[i]!).includes(fact.id))) conflicts.push(flagUnsure(page, fact, keyed));
    return page;
  }
  return placeKeyed(page, { ...fact, text: `${change.subject}:: ${change.value}` }, keyed, conflicts);
}

/** A superseded keyed line as History shows it: `subject: value`, so only Current holds the inline field. */
export function historyLine(line: string, until: string): string {
  const keyed = subjectOf(withoutCitations(itemBody(line)));
  const cites = citationsIn(line);
  const body = keyed === null ? withoutCitations(itemBody(line)).trim() : `${keyed.subject}: ${keyed.value}`;
  return `- ${body} ${cites.join(' ')} (until ${until})`;
}
