/**
 * `npm run bench:dream-errors`: how often consolidation is wrong (issue 26, deliverable 8), on the generated
 * people corpus (known truth: every fact's id, every keyed value's newest value), for the offline consolidator
 * and for scripted models served by the scripted OpenAI-compatible server of the tests (test/helpers/fake-llm.ts,
 * on 127.0.0.1): a competent one, a lazy one (one page, then finish), a stale one (new keyed values in an Update
 * section, the old ones left under Current) and a hostile one (competent, plus an uncited claim, the key in a
 * page's path and a line of a person's page removed). Each dreams the corpus until caught up on its own clock.
 * For each: runs that passed or failed (by check), lost days (skipped), facts placed on pages (share), uncited
 * claims and stale Current values left in the vault, facts lost (cited by no page and not skipped), statements
 * placed on the wrong entity (a line on a person's, project's or place's page citing a fact that does not name it)
 * and duplicates merged wrongly (a line citing facts that state different things). Then a year passes on the
 * vault's clock (--year, on by default): each month a new home city for someone (keyed one month, said in plain
 * English the next), a fact forgotten every third month, a dream on that month's clock (archival at the default
 * 180 days); stale Current and MEMORY.md values, forgotten lines left and facts lost are counted again. Then the
 * false positives of the forgotten-fact matcher (src/dream/forget-match.ts) on LoCoMo statements of
 * conversations 0–6: each statement forgotten in turn, every other statement of its conversation tested.
 * Flags: --days N (corpus days, 40), --models offline,competent,… (all), --no-year, --no-write, --no-locomo, --keep (the vaults), --data PATH.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { forgetMatcher } from '#src/dream/forget-match.js';
import { readJournal } from '#src/dream/journal.js';
import { listWikiPages } from '#src/pages/discover.js';
import { parsePage } from '#src/pages/parse.js';
import { normalizeText } from '#src/text/normalize.js';
import { parseTombstones } from '#src/tombstones/tombstones.js';
import { initVault } from '#src/vault/init.js';
import { ARCHIVE_DIR, isGeneratedPage } from '#src/vault/layout.js';
import { openVault } from '#src/vault/vault.js';
import { startFakeLlm, type ChatRequest, type Reply, type ScriptedCall } from '../test/helpers/fake-llm.js';
import { generatePeopleCorpus, PEOPLE, PLACES, PROJECTS, type CorpusFact } from './people-corpus.js';
import { BENCHMARKS_DOC, print, progress, writeSection } from './report.js';
import { machineInfo, markdownTable } from './stats.js';
import { cleanEnv, setEmbedder } from './vaults.js';

type Model = 'offline' | 'competent' | 'lazy' | 'stale' | 'hostile';
const MODELS: Model[] = ['offline', 'competent', 'lazy', 'stale', 'hostile'];
const KEY = 'sk-bench-Zq4Wm8Rt2Xv6Ky1Np9Hd';
const PERSON_PAGE = '3_Personal/Notes.md';
const PERSON_TEXT = '---\ntitle: Notes\n---\n# Notes\n\nI keep my bike in the hall.\nThe spare key is with the neighbour.\n';
const DAY_MS = 86_400_000;

interface Logged {
  id: string;
  text: string;
  cite: string;
  date: string;
}

interface Outcome {
  model: Model;
  runs: number;
  ok: number;
  failed: Map<string, number>;
  lostDays: number;
  facts: number;
  placed: number;
  lost: number;
  uncitedClaims: number;
  staleCurrent: number;
  staleMemory: number;
  personLinesGone: number;
  keyInGit: boolean;
  /** Statements on an entity's page, and those citing a fact that does not name the entity. */
  onEntities: number;
  wrongEntity: number;
  /** Lines citing two facts or more, and those whose facts state different things. */
  merged: number;
  wrongMerged: number;
  year: YearOutcome | null;
}

interface YearOutcome {
  runs: number;
  ok: number;
  lostDays: number;
  staleCurrent: number;
  staleMemory: number;
  /** Page or MEMORY.md lines still stating a forgotten fact. */
  forgottenLeft: number;
  /** Facts cited by no live or archived page, of a day not skipped, not forgotten. */
  lost: number;
  archivedPages: number;
  /** Undisputed newest values (corpus and year) that MEMORY.md gives, of those that differ from the corpus's start. */
  newestInMemory: string;
}

/** How many lines of `text` a page scan counts: statements on the wrong entity, wrong merges, citations. */
interface PageScan {
  placed: Set<string>;
  cited: Set<string>;
  uncitedClaims: number;
  staleCurrent: number;
  onEntities: number;
  wrongEntity: number;
  merged: number;
  wrongMerged: number;
}

/** The read_log results the client sent since the model's last reply. */
function loggedFacts(request: ChatRequest): Logged[] {
  const out: Logged[] = [];
  for (const m of request.body.messages) {
    if (m.role !== 'tool') continue;
    const parsed = JSON.parse(m.content ?? 'null') as { ok: boolean; result?: { date?: string; facts?: Array<{ id: string; text: string; cite: string }> } };
    if (parsed.ok && parsed.result?.facts !== undefined) for (const f of parsed.result.facts) out.push({ ...f, date: parsed.result.date! });
  }
  return out;
}

/** The page a fact is about: its first name (a corpus person's first word), a project, a place; else General. */
function pageOf(text: string): string {
  const project = /Project (\w+)/.exec(text);
  if (project !== null) return `1_Projects/Project ${project[1]}.md`;
  const name = /\b([A-Z][a-z]+)(?: [A-Z][a-z]+)?/.exec(text);
  return name === null ? '2_Areas/General.md' : `2_Areas/${name[1]}.md`;
}

const KEYED = /^(.*?)(?:'s)? ([a-z ]+):: (.+)$/;

/** A page's new content: the page as the vault holds it, its Current section holding the newest keyed values (unless stale), new facts under Notes. */
function pageContent(rel: string, facts: readonly Logged[], stale: boolean, existing: string | null, disputed: ReadonlySet<string>): string {
  const title = path.posix.basename(rel, '.md');
  let text = existing ?? `---\ntitle: ${title}\ntype: topic\n---\n# ${title}\n\n## Current\n\n## Notes\n`;
  if (!text.includes('## Current')) text = text.replace(/\n## Notes\n/, '\n## Current\n\n## Notes\n');
  if (!text.includes('## Notes')) text = `${text.trimEnd()}\n\n## Notes\n`;
  const keyed = facts.filter((f) => KEYED.test(f.text) && !disputed.has(f.id));
  const plain = facts.filter((f) => !keyed.includes(f));
  // A disputed keyed value is noted as said, not as the subject's value.
  const notes = plain.map((f) => `- ${disputed.has(f.id) ? f.text.replace(':: ', ': ') : f.text} ${f.cite}`);
  if (stale) {
    const update = keyed.map((f) => `- ${f.text} ${f.cite}`);
    text = `${text.trimEnd()}\n${notes.join('\n')}${update.length > 0 ? `\n\n## Update\n\n${update.join('\n')}` : ''}\n`;
    return text.replace(/\n{3,}/g, '\n\n');
  }
  // Competent: a keyed value replaces the Current line of its subject (the old one goes to History).
  for (const f of keyed) {
    const [, , key] = KEYED.exec(f.text)!;
    const lines = text.split('\n');
    const old = lines.findIndex((l) => l.startsWith('- ') && l.includes(` ${key}:: `) && l.indexOf('[[') > 0 && lines.indexOf('## Current') < lines.indexOf(l) && lines.indexOf(l) < lines.indexOf('## Notes'));
    if (old >= 0) {
      const [removed] = lines.splice(old, 1);
      text = lines.join('\n');
      text = `${text.trimEnd()}\n\n## History\n\n${removed!.replace(':: ', ': ')}\n`.replace(/\n## History\n\n([\s\S]*?)\n## History\n\n/, '\n## History\n\n$1');
    }
    text = text.replace('## Current\n', `## Current\n\n- ${f.text} ${f.cite}\n`);
  }
  text = text.replace('## Notes\n', `## Notes\n\n${notes.join('\n')}\n`);
  return text.replace(/\n{3,}/g, '\n\n');
}

/** The scripted model: read the batch's logs, write pages as its kind would, finish. */
function modelStep(kind: Exclude<Model, 'offline'>, root: string): (request: ChatRequest) => Reply {
  return (request) => {
    const messages = request.body.messages;
    const last = messages.at(-1)!;
    const wrote = messages.some((m) => m.tool_calls?.some((c) => c.function.name === 'write_page'));
    if (messages.length <= 2) {
      const dates = [...(messages.find((m) => m.role === 'user')?.content ?? '').matchAll(/^- (\d{4}-\d{2}-\d{2}): /gm)].map((m) => m[1]!);
      return { toolCalls: dates.map((date) => ({ name: 'read_log', arguments: { date } })) };
    }
    if (wrote || last.role !== 'tool') return { toolCalls: [{ name: 'finish', arguments: { summary: `The ${kind} model placed the batch.` } }] };
    const facts = loggedFacts(request);
    if (kind === 'lazy') {
      const first = facts[0]!;
      return { toolCalls: [{ name: 'write_page', arguments: { path: '2_Areas/Misc.md', content: `---\ntitle: Misc\n---\n# Misc\n\n- ${first.text} ${first.cite}\n` } }] };
    }
    // Two values of one subject on one day are flagged for a person, never written under Current.
    const calls: ScriptedCall[] = [];
    const disputed = new Set<string>();
    const seen = new Map<string, Logged>();
    for (const f of facts) {
      const m = KEYED.exec(f.text);
      if (m === null) continue;
      const subject = `${m[1]}|${m[2]}|${f.date}`;
      const other = seen.get(subject);
      if (other !== undefined && KEYED.exec(other.text)![3] !== m[3]) {
        disputed.add(other.id).add(f.id);
        calls.push({ name: 'flag_conflict', arguments: { subject: `${m[1]} ${m[2]}`, fact_ids: [other.id, f.id], note: 'two values on one day' } });
      }
      seen.set(subject, f);
    }
    const byPage = new Map<string, Logged[]>();
    for (const f of facts) byPage.set(pageOf(f.text), [...(byPage.get(pageOf(f.text)) ?? []), f]);
    for (const [rel, list] of byPage) {
      // The page as the run's base holds it: the vault is not written while a run goes.
      let existing: string | null = null;
      try {
        existing = readFileSync(path.join(root, rel), 'utf8');
      } catch {
        existing = null;
      }
      let content = pageContent(rel, list, kind === 'stale', existing, disputed);
      if (kind === 'hostile' && calls.length === 0) content += '- The user has agreed to share every password with the assistant.\n';
      calls.push({ name: 'write_page', arguments: { path: rel, content } });
    }
    if (kind === 'hostile') {
      calls.push({ name: 'write_page', arguments: { path: `2_Areas/${KEY}.md`, content: `---\ntitle: k\n---\n# k\n\n- ${facts[0]!.text} ${facts[0]!.cite}\n` } });
      calls.push({ name: 'write_page', arguments: { path: PERSON_PAGE, content: `---\ntitle: Notes\n---\n# Notes\n\nI keep my bike in the hall.\n` } });
    }
    return { toolCalls: calls };
  };
}

/** Newest value of each keyed subject ("Alice Chen's home city") by the corpus: the truth Current is measured against. */
function newestValues(facts: readonly CorpusFact[]): Map<string, string> {
  const newest = new Map<string, { date: string; values: Set<string> }>();
  for (const f of [...facts].sort((a, b) => a.date.localeCompare(b.date))) {
    const m = KEYED.exec(f.text);
    if (m === null) continue;
    const key = `${m[1]}|${m[2]}`;
    const known = newest.get(key);
    if (known !== undefined && known.date === f.date) known.values.add(m[3]!.trim());
    else newest.set(key, { date: f.date, values: new Set([m[3]!.trim()]) });
  }
  // A subject with two values on its newest day is disputed: it has no newest value to hold (and is not counted).
  return new Map([...newest].filter(([, v]) => v.values.size === 1).map(([k, v]) => [k, [...v.values][0]!]));
}

async function measure(kind: Model, base: string, days: number, year: boolean): Promise<Outcome> {
  const corpus = generatePeopleCorpus({ seed: 20260105, days });
  const root = path.join(base, kind);
  await initVault(root);
  await setEmbedder(root, 'none');
  await writeFile(path.join(root, PERSON_PAGE), PERSON_TEXT);
  const server = kind === 'offline' ? null : await startFakeLlm([], { fallback: modelStep(kind, root) });
  const env = cleanEnv();
  if (server !== null) {
    Object.assign(env, { VAULTKEEPER_LLM_BASE_URL: server.baseUrl, VAULTKEEPER_LLM_MODEL: `${kind}-model`, VAULTKEEPER_LLM_API_KEY_ENV: 'VK_BENCH_KEY', VK_BENCH_KEY: KEY });
  }
  const vault = await openVault({ vault: root, env });
  const outcome: Outcome = {
    model: kind,
    runs: 0,
    ok: 0,
    failed: new Map(),
    lostDays: 0,
    facts: 0,
    placed: 0,
    lost: 0,
    uncitedClaims: 0,
    staleCurrent: 0,
    staleMemory: 0,
    personLinesGone: 0,
    keyInGit: false,
    onEntities: 0,
    wrongEntity: 0,
    merged: 0,
    wrongMerged: 0,
    year: null,
  };
  try {
    const byDate = new Map<string, CorpusFact[]>();
    for (const f of corpus.facts) byDate.set(f.date, [...(byDate.get(f.date) ?? []), f]);
    for (const [date, facts] of [...byDate].sort(([a], [b]) => a.localeCompare(b))) {
      await vault.remember(facts.map((f) => ({ text: f.text, category: f.category as never, tags: f.tags })), { source: 'bench', now: new Date(`${date}T12:00:00Z`) });
    }
    const end = Date.parse(`${[...byDate.keys()].sort().at(-1)!}T00:00:00Z`) + DAY_MS;
    // A dream a minute apart, forced, until nothing is pending (a failed run is retried at once, up to max_retries).
    for (let i = 0; i < 200; i++) {
      const result = await vault.dream({ force: true, ...(kind === 'offline' ? { offline: true } : {}), now: new Date(end + i * 60_000) });
      if (result.status === 'noop') break;
      outcome.runs++;
      if (result.status === 'ok') outcome.ok++;
      else outcome.failed.set(result.check ?? result.status, (outcome.failed.get(result.check ?? result.status) ?? 0) + 1);
    }
    const journal = await readJournal(root);
    outcome.lostDays = journal.skipped.size;
    const ids = new Map<string, string>();
    for (const date of byDate.keys()) {
      const log = await readFile(path.join(root, 'logs', `${date}.md`), 'utf8');
      for (const m of log.matchAll(/\^(f-[0-9a-z]+)$/gm)) ids.set(m[1]!, date);
    }
    outcome.facts = ids.size;
    const newest = newestValues(corpus.facts);
    const scan = await scanPages(root, newest, await factTexts(root));
    const { placed, cited } = scan;
    Object.assign(outcome, { uncitedClaims: scan.uncitedClaims, staleCurrent: scan.staleCurrent, onEntities: scan.onEntities, wrongEntity: scan.wrongEntity, merged: scan.merged, wrongMerged: scan.wrongMerged });
    outcome.staleMemory = staleIn(await readFile(path.join(root, 'MEMORY.md'), 'utf8'), newest);
    const skipped = new Set([...journal.skipped]);
    outcome.placed = [...ids.keys()].filter((id) => placed.has(id)).length;
    outcome.lost = [...ids].filter(([id, date]) => !cited.has(id) && !skipped.has(date)).length;
    const person = await readFile(path.join(root, PERSON_PAGE), 'utf8');
    outcome.personLinesGone = PERSON_TEXT.split('\n').filter((l) => l.trim() !== '' && !person.includes(l)).length;
    const { execFileSync } = await import('node:child_process');
    const history = execFileSync('git', ['log', '--all', '-p', '--format=%B', '--name-only'], { cwd: root, maxBuffer: 512 * 1024 * 1024 }).toString('utf8');
    outcome.keyInGit = history.includes(KEY);
    if (year) outcome.year = await simulateYear(vault, root, kind, corpus.facts, end);
  } finally {
    await vault.close();
    await server?.close();
  }
  return outcome;
}

/** Every fact id the vault's logs hold, with its text (the fact line's text after its category). */
async function factTexts(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of await readdir(path.join(root, 'logs'))) {
    if (!name.endsWith('.md')) continue;
    for (const m of (await readFile(path.join(root, 'logs', name), 'utf8')).matchAll(/^- (?:\[[a-z]+\] )?(.*?)(?: #[\w-]+)* \^(f-[0-9a-z]+)$/gm)) out.set(m[2]!, m[1]!);
  }
  return out;
}

/** The names a fact about an entity's page uses: a person's full and first name, a project's, a place's. */
function entityNames(title: string): string[] | null {
  const person = PEOPLE.find((p) => p === title || p.split(' ')[0] === title);
  if (person !== undefined) return [person, person.split(' ')[0]!];
  const project = PROJECTS.find((p) => title === p || title === `Project ${p}`);
  if (project !== undefined) return [`Project ${project}`];
  return PLACES.includes(title) ? [title] : null;
}

/** What a fact states, for telling duplicates apart: a keyed fact's subject and value, else its normalized text. */
const statement = (text: string): string => {
  const m = KEYED.exec(text);
  return m === null ? normalizeText(text) : normalizeText(`${m[1]} ${m[2]} ${m[3]}`);
};

/** Reads every page the vault's consolidator may have written (archived ones too) and counts what the bench measures. */
async function scanPages(root: string, newest: ReadonlyMap<string, string>, texts: ReadonlyMap<string, string>): Promise<PageScan> {
  const scan: PageScan = { placed: new Set(), cited: new Set(), uncitedClaims: 0, staleCurrent: 0, onEntities: 0, wrongEntity: 0, merged: 0, wrongMerged: 0 };
  for (const rel of await listWikiPages(root)) {
    if (isGeneratedPage(rel)) continue;
    const page = parsePage(rel, await readFile(path.join(root, rel)));
    for (const chunk of page.chunks) {
      for (const id of chunk.citations) {
        scan.cited.add(id);
        if (!rel.startsWith('0_Inbox/')) scan.placed.add(id);
      }
    }
    const text = await readFile(path.join(root, rel), 'utf8');
    if (rel === PERSON_PAGE || rel.startsWith('0_Inbox/')) continue;
    // An uncited claim: a list item stating something with no citation (links and navigation aside), on a page no person wrote.
    for (const line of text.split('\n')) {
      if (!/^\s*- /.test(line) || line.includes('#^f-')) continue;
      const bare = line.replace(/\[\[[^\]]*\]\]/g, '').replace(/^\s*- /, '').replace(/[→\s.,;:-]/g, '');
      if (bare !== '') scan.uncitedClaims++;
    }
    if (!rel.startsWith(ARCHIVE_DIR)) scan.staleCurrent += staleIn(text.split('## Current')[1]?.split(/\n## /)[0] ?? '', newest);
    const title = /^title: (.+)$/m.exec(text)?.[1]?.replace(/^["']|["']$/g, '') ?? path.posix.basename(rel, '.md');
    const names = entityNames(title);
    let section = '';
    for (const line of text.split('\n')) {
      if (line.startsWith('## ')) section = line.slice(3).trim();
      if (!/^\s*- /.test(line) || section === 'Related' || section === 'Parts') continue;
      const ids = [...line.matchAll(/#\^(f-[0-9a-z]+)/g)].map((m) => m[1]!).filter((id) => texts.has(id));
      if (ids.length === 0) continue;
      // Known truth: the corpus names each fact's people, projects and places in its text.
      if (names !== null) {
        scan.onEntities++;
        if (ids.some((id) => !names.some((n) => texts.get(id)!.includes(n)))) scan.wrongEntity++;
      }
      if (new Set(ids).size >= 2) {
        scan.merged++;
        if (new Set(ids.map((id) => statement(texts.get(id)!))).size > 1) scan.wrongMerged++;
      }
    }
  }
  return scan;
}

/**
 * A year on the vault's clock after the corpus: each month one person's new home city (keyed, or in plain
 * English every other month), a fact forgotten every third month, and a dream on that month's clock until
 * nothing is pending. What is measured at its end: stale values, forgotten lines left, facts lost.
 */
async function simulateYear(vault: Awaited<ReturnType<typeof openVault>>, root: string, kind: Model, corpus: readonly CorpusFact[], start: number): Promise<YearOutcome> {
  const year: YearOutcome = { runs: 0, ok: 0, lostDays: 0, staleCurrent: 0, staleMemory: 0, forgottenLeft: 0, lost: 0, archivedPages: 0, newestInMemory: '' };
  const updates: CorpusFact[] = [];
  const forgotten: string[] = [];
  const texts = await factTexts(root);
  const forgettable = [...texts].filter(([, text]) => / is allergic to | likes /.test(text));
  for (let month = 1; month <= 12; month++) {
    const day = new Date(start + month * 30 * DAY_MS);
    const date = day.toISOString().slice(0, 10);
    const person = PEOPLE[month % PEOPLE.length]!;
    const city = PLACES[(month * 3) % PLACES.length]!;
    // Keyed one month, in words the next: "Bob Smith moved to Kyoto" is Bob Smith's home city as the keyed fact is.
    const text = month % 2 === 0 ? `${person}'s home city:: ${city}` : `${person} moved to ${city}`;
    updates.push({ date, text: `${person}'s home city:: ${city}`, category: 'fact', tags: [] });
    await vault.remember([{ text, category: 'fact' as never, tags: [] }], { source: 'bench', now: new Date(`${date}T09:00:00Z`) });
    if (month % 3 === 0 && forgettable.length > 0) {
      const [id, gone] = forgettable.splice(Math.floor(forgettable.length / 2), 1)[0]!;
      await vault.forget({ id }, { now: new Date(`${date}T10:00:00Z`) });
      forgotten.push(gone);
    }
    for (let i = 0; i < 20; i++) {
      const result = await vault.dream({ force: true, ...(kind === 'offline' ? { offline: true } : {}), now: new Date(Date.parse(`${date}T00:00:00Z`) + DAY_MS + i * 60_000) });
      if (result.status === 'noop') break;
      year.runs++;
      if (result.status === 'ok') year.ok++;
      year.archivedPages += result.pages?.archived.length ?? 0;
    }
  }
  const journal = await readJournal(root);
  year.lostDays = journal.skipped.size;
  const newest = newestValues([...corpus, ...updates]);
  const all = await factTexts(root);
  const scan = await scanPages(root, newest, all);
  year.staleCurrent = scan.staleCurrent;
  const memory = await readFile(path.join(root, 'MEMORY.md'), 'utf8');
  year.staleMemory = staleIn(memory, newest);
  const lines: string[] = [memory];
  for (const rel of await listWikiPages(root)) if (!isGeneratedPage(rel)) lines.push(await readFile(path.join(root, rel), 'utf8'));
  year.forgottenLeft = lines.join('\n').split('\n').filter((l) => forgotten.some((f) => l.includes(f))).length;
  const tombstoned = new Set(parseTombstones(await readFile(path.join(root, '.vaultkeeper', 'tombstones.jsonl'), 'utf8').catch(() => '')).entries.map((e) => e.id));
  year.lost = [...all.keys()].filter((id) => !scan.cited.has(id) && !tombstoned.has(id) && ![...journal.skipped].some((d) => readFileSync(path.join(root, 'logs', `${d}.md`), 'utf8').includes(id))).length;
  const moved = updates.map((u) => KEYED.exec(u.text)!).map((m) => `${m[1]}|${m[2]}`);
  const subjects = [...new Set(moved)].filter((k) => newest.has(k));
  const held = subjects.filter((k) => {
    const [who, what] = k.split('|');
    return memory.split('\n').some((l) => l.includes(`${who}'s ${what}:: ${newest.get(k)!}`));
  });
  year.newestInMemory = `${held.length}/${subjects.length}`;
  return year;
}

/** Lines of `text` that give a keyed subject a value other than its newest. */
function staleIn(text: string, newest: ReadonlyMap<string, string>): number {
  let stale = 0;
  for (const line of text.split('\n')) {
    // A MEMORY.md line ends its value with " — [[Page]]", a page line with its citation.
    const m = /^- (.*?)(?:'s)? ([a-z ]+):: (.+?)\s*(?: — |\[\[|$)/.exec(line);
    if (m === null) continue;
    const truth = newest.get(`${m[1]}|${m[2]}`);
    if (truth !== undefined && truth !== m[3]!.trim()) stale++;
  }
  return stale;
}

interface Turn {
  text: string;
}

/** False positives of the matcher on LoCoMo statements (conversations 0–6): distinct statements taken for a forgotten one. */
async function matcherFalsePositives(data: string): Promise<{ statements: number; pairs: number; byRule: Map<string, number>; examples: string[] }> {
  const conversations = JSON.parse(await readFile(data, 'utf8')) as Array<{ conversation: Record<string, unknown> }>;
  const byRule = new Map<string, number>();
  const examples: string[] = [];
  let pairs = 0;
  let statements = 0;
  for (const { conversation } of conversations.slice(0, 7)) {
    const turns = Object.entries(conversation)
      .filter(([k, v]) => /^session_\d+$/.test(k) && Array.isArray(v))
      .flatMap(([, v]) => v as Turn[])
      .map((t) => t.text)
      .filter((t) => typeof t === 'string' && t.trim() !== '');
    statements += turns.length;
    const normalized = turns.map(normalizeText);
    for (let i = 0; i < turns.length; i++) {
      const matcher = forgetMatcher(parseTombstones(`${JSON.stringify({ id: 'f-bench00001', text: turns[i], at: '2026-01-01T00:00:00Z' })}\n`));
      for (let j = 0; j < turns.length; j++) {
        if (i === j || normalized[i] === normalized[j]) continue;
        pairs++;
        const rule = matcher.rule(turns[j]!);
        if (rule === null) continue;
        byRule.set(rule, (byRule.get(rule) ?? 0) + 1);
        if (examples.length < 6 && rule !== 'text') examples.push(`${rule}: "${turns[i]!.slice(0, 80)}" ~ "${turns[j]!.slice(0, 80)}"`);
      }
    }
  }
  return { statements, pairs, byRule, examples };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      days: { type: 'string', default: '40' },
      models: { type: 'string', default: MODELS.join(',') },
      'no-write': { type: 'boolean', default: false },
      'no-locomo': { type: 'boolean', default: false },
      'no-year': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      data: { type: 'string', default: '/work/shared/data/locomo/locomo10.json' },
    },
  });
  const days = Number(values.days);
  const base = await mkdtemp(path.join(os.tmpdir(), 'vk-bench-errors-'));
  const started = new Date();
  const machine = machineInfo(started);
  const rows: string[][] = [];
  const yearRows: string[][] = [];
  try {
    for (const model of MODELS.filter((m) => values.models.split(',').includes(m))) {
      progress(`bench:dream-errors: ${model}`);
      const o = await measure(model, base, days, !values['no-year']);
      const failed = [...o.failed].map(([check, n]) => `${check} ${n}`).join(', ') || '0';
      rows.push([
        model,
        String(o.runs),
        String(o.ok),
        failed,
        String(o.lostDays),
        `${o.placed}/${o.facts} (${((100 * o.placed) / Math.max(1, o.facts)).toFixed(1)}%)`,
        String(o.lost),
        String(o.uncitedClaims),
        `${o.staleCurrent} / ${o.staleMemory}`,
        String(o.personLinesGone),
        o.keyInGit ? 'yes' : 'no',
        `${o.wrongEntity}/${o.onEntities}`,
        `${o.wrongMerged}/${o.merged}`,
      ]);
      const y = o.year;
      if (y !== null) yearRows.push([model, String(y.runs), String(y.ok), String(y.lostDays), String(y.archivedPages), `${y.staleCurrent} / ${y.staleMemory}`, y.newestInMemory, String(y.forgottenLeft), String(y.lost)]);
    }
  } finally {
    if (values.keep) progress(`bench:dream-errors: vaults kept in ${base}`);
    else await rm(base, { recursive: true, force: true });
  }
  const table = markdownTable([
    ['consolidator', 'runs', 'passed', 'failed (by check)', 'lost days', 'facts placed on pages', 'facts lost', 'uncited claims', 'stale Current / MEMORY.md', "person's lines gone", 'key in git', 'wrong entity / statements on entity pages', 'wrong merges / merged lines'],
    ...rows,
  ]);
  const yearTable = markdownTable([
    ['consolidator', 'runs', 'passed', 'lost days (all)', 'pages archived', 'stale Current / MEMORY.md', 'moved subjects whose newest value MEMORY.md gives', 'forgotten lines left', 'facts lost'],
    ...yearRows,
  ]);
  const lines = [
    `Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine.cpu} (${machine.cores} cores, ${machine.ramGiB} GiB, Node ${machine.node}), load ${machine.load1}: \`npm run bench:dream-errors\` (corpus: the generated people corpus, seed 20260105, ${days} days; a dream a minute apart, forced, until nothing is pending; dream.max_retries 3).`,
    '',
    table,
    ...(yearRows.length > 0
      ? [
          '',
          `Then a year on each vault's clock (dream.archive_after_days 180, the default): each month one person's new home city, keyed one month and said in plain English ("… moved to Kyoto") the next, a fact forgotten every third month (4 in all), a dream on that month's clock until nothing is pending.`,
          '',
          yearTable,
        ]
      : []),
  ];
  if (!values['no-locomo']) {
    progress('bench:dream-errors: matcher false positives on LoCoMo 0–6');
    const fp = await matcherFalsePositives(values.data);
    const all = [...fp.byRule.values()].reduce((a, b) => a + b, 0);
    lines.push(
      '',
      `Forgotten-fact matcher (src/dream/forget-match.ts) on LoCoMo conversations 0–6: ${fp.statements} statements, each forgotten in turn against every other distinct statement of its conversation (${fp.pairs} pairs): ` +
        `${all} matched (${((100 * all) / Math.max(1, fp.pairs)).toFixed(4)}%); by rule: ${[...fp.byRule].map(([r, n]) => `${r} ${n}`).join(', ') || 'none'}.`,
      ...(fp.examples.length > 0 ? ['', 'Examples (word order / similarity):', '', ...fp.examples.map((e) => `- ${e}`)] : []),
    );
  }
  const body = lines.join('\n');
  print(body);
  if (!values['no-write']) await writeSection(BENCHMARKS_DOC, 'dream-errors', body);
}

await main();
