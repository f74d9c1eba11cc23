/**
 * A deterministic synthetic vault for benchmarks: N days of M facts in the log format the writer uses,
 * and P wiki pages under the zones with frontmatter, headings, citations of real generated facts and
 * wikilinks between pages. The same options give byte-identical files.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CATEGORIES, formatBatchHeader, formatFactLine, logRelPath, writtenText, type CanonicalFact, type Category } from '#src/logs/factlog.js';
import { factId } from '#src/logs/ids.js';
import { initVault } from '#src/vault/init.js';
import { createRandom, type Random } from './random.js';
import {
  ASPECTS, CONTEXTS, MONTHS, PEOPLE, PLACES, PROJECTS, QUALITIES, RELATIONS, ROLES, SOURCES, TOPICS, WEEKDAYS, type Topic,
} from './vocabulary.js';

export interface GenerateOptions {
  days: number;
  factsPerDay: number;
  pages: number;
  seed: number;
  /** The first log date (default 2024-01-01). */
  startDate?: string;
}

export interface GeneratedFile {
  /** Vault-relative path. */
  rel: string;
  content: string;
}

export interface GeneratedVault {
  root: string;
  dates: string[];
  facts: number;
  pages: number;
}

interface CitedFact {
  date: string;
  id: string;
  text: string;
}

const DEFAULT_START = '2024-01-01';
/** Facts kept per topic for pages to cite. */
const RESERVOIR = 64;
const MEAN_BATCH = 12;
const CATEGORY_WEIGHTS: ReadonlyArray<[Category, number]> = [
  ['fact', 35], ['preference', 12], ['decision', 10], ['commitment', 8], ['entity', 8], ['relationship', 7], ['moment', 8],
  ['skill', 5], ['principle', 4], ['correction', 3],
];
/** Places that are towns (the others are 'home', 'the office', …). */
const CITIES = PLACES.filter((p) => /^[A-Z]/.test(p));
const PAGE_KINDS = [
  { type: 'project', zone: '1_Projects' },
  { type: 'area', zone: '2_Areas' },
  { type: 'person', zone: '3_Personal' },
  { type: 'resource', zone: '4_Resources' },
] as const;

/** Writes a new vault at `root` (made by the real init) holding the generated logs and pages. */
export async function generateVault(root: string, options: GenerateOptions): Promise<GeneratedVault> {
  await initVault(root);
  const dates: string[] = [];
  let pages = 0;
  for (const file of planVault(options)) {
    const target = path.join(root, file.rel);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.content);
    if (file.rel.startsWith('logs/')) dates.push(file.rel.slice(5, 15));
    else pages++;
  }
  return { root, dates, facts: options.days * options.factsPerDay, pages };
}

/** The files of a generated vault, logs first (oldest first), then pages. Pure: no file system. */
export function* planVault(options: GenerateOptions): Generator<GeneratedFile> {
  validate(options);
  const rng = createRandom(options.seed);
  const sampler = createRandom(options.seed ^ 0x5eed_cafe);
  const reservoirs = TOPICS.map(() => ({ seen: 0, facts: [] as CitedFact[] }));
  const start = options.startDate ?? DEFAULT_START;
  for (let day = 0; day < options.days; day++) {
    const date = addDays(start, day);
    const lines = [`# ${date}`, ''];
    const ordinals = new Map<string, number>();
    const batches = Math.max(1, Math.round(options.factsPerDay / MEAN_BATCH));
    const times = batchTimes(rng, batches);
    for (let b = 0; b < batches; b++) {
      const size = Math.floor(((b + 1) * options.factsPerDay) / batches) - Math.floor((b * options.factsPerDay) / batches);
      if (size === 0) continue;
      const time = times[b]!;
      const source = rng.pick(SOURCES);
      if (lines.length > 2) lines.push('');
      lines.push(formatBatchHeader(time, source));
      for (let i = 0; i < size; i++) {
        const { fact, topic } = makeFact(rng);
        const key = `${time}\u0000${source}\u0000${fact.text}`;
        const ordinal = ordinals.get(key) ?? 0;
        ordinals.set(key, ordinal + 1);
        const id = factId(date, time, source, writtenText(fact.text), ordinal);
        lines.push(formatFactLine(fact, id));
        sample(sampler, reservoirs[topic]!, { date, id, text: fact.text });
      }
    }
    yield { rel: logRelPath(date), content: `${lines.join('\n')}\n` };
  }
  const names = pageNames(options.pages);
  for (let index = 0; index < options.pages; index++) {
    yield makePage(rng, index, names, reservoirs[index % TOPICS.length]!.facts);
  }
}

/** A fact text of the kind the generator writes, for appends during a benchmark. */
export function syntheticFact(rng: Random, marker?: string): CanonicalFact {
  const { fact } = makeFact(rng);
  return marker === undefined ? fact : { ...fact, text: `${fact.text} (${marker})` };
}

/** Search queries over the generator's vocabulary: names, things, places and short questions. */
export function benchQueries(seed: number, count: number): string[] {
  const rng = createRandom(seed ^ 0x0abc_def1);
  const queries: string[] = [];
  for (let i = 0; i < count; i++) {
    const topic = rng.pick(TOPICS);
    const thing = rng.pick(topic.things);
    switch (rng.int(6)) {
      case 0: queries.push(thing); break;
      case 1: queries.push(`${rng.pick(PEOPLE)} ${thing}`); break;
      case 2: queries.push(`what does ${rng.pick(PEOPLE)} prefer when ${rng.pick(CONTEXTS)}`); break;
      case 3: queries.push(`project ${rng.pick(PROJECTS)} decision about the ${thing}`); break;
      case 4: queries.push(`${topic.title.toLowerCase()} in ${rng.pick(PLACES)}`); break;
      default: queries.push(`who is the ${rng.pick(ROLES)} of project ${rng.pick(PROJECTS)}`); break;
    }
  }
  return queries;
}

function validate(options: GenerateOptions): void {
  for (const key of ['days', 'factsPerDay', 'pages', 'seed'] as const) {
    const value = options[key];
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`${key} must be a whole number >= 0, got ${value}`);
  }
}

export function addDays(date: string, days: number): string {
  const ms = Date.parse(`${date}T00:00:00Z`) + days * 86_400_000;
  return new Date(ms).toISOString().slice(0, 10);
}

/** Increasing HH:MM times between 07:00 and 23:59 (repeating when a day has more batches than minutes). */
function batchTimes(rng: Random, count: number): string[] {
  const minutes: number[] = [];
  for (let i = 0; i < count; i++) minutes.push(7 * 60 + rng.int(17 * 60));
  minutes.sort((a, b) => a - b);
  return minutes.map((m) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`);
}

function pickCategory(rng: Random): Category {
  const total = CATEGORY_WEIGHTS.reduce((sum, [, w]) => sum + w, 0);
  let roll = rng.int(total);
  for (const [category, weight] of CATEGORY_WEIGHTS) {
    if (roll < weight) return category;
    roll -= weight;
  }
  return CATEGORIES[0];
}

function makeFact(rng: Random): { fact: CanonicalFact; topic: number } {
  const topicIndex = rng.int(TOPICS.length);
  const topic = TOPICS[topicIndex]!;
  const category = pickCategory(rng);
  const person = rng.pick(PEOPLE);
  const other = rng.pick(PEOPLE.filter((p) => p !== person));
  const thing = rng.pick(topic.things);
  const action = rng.pick(topic.actions);
  const project = rng.pick(PROJECTS);
  let text: string;
  let withProject = false;
  switch (category) {
    case 'preference':
      text = `${person} prefers the ${thing} over the ${rng.pick(topic.things.filter((t) => t !== thing))} when ${rng.pick(CONTEXTS)}`;
      break;
    case 'decision':
      text = `Decided to ${action} the ${thing} for project ${project} before ${rng.pick(MONTHS)}`;
      withProject = true;
      break;
    case 'commitment':
      text = `Promised ${person} to ${action} the ${thing} by ${rng.pick(WEEKDAYS)}`;
      break;
    case 'entity':
      text = `${person} is the ${rng.pick(ROLES)} of project ${project} and lives in ${rng.pick(CITIES)}`;
      withProject = true;
      break;
    case 'relationship':
      text = `${person} and ${other} ${rng.pick(RELATIONS)} through ${topic.title.toLowerCase()}`;
      break;
    case 'moment':
      text = `${person} and ${other} celebrated the ${thing} in ${rng.pick(PLACES)} on ${rng.pick(WEEKDAYS)}`;
      break;
    case 'skill':
      text = `${person} learned to ${action} the ${thing} in ${rng.pick(MONTHS)}`;
      break;
    case 'principle':
      text = `Always ${action} the ${thing} before ${rng.pick(CONTEXTS)}`;
      break;
    case 'correction':
      text = rng.int(2) === 0 ? `${person} favourite ${topic.tag}:: ${thing}` : `${person} home city:: ${rng.pick(CITIES)}`;
      break;
    default:
      if (rng.int(2) === 0) {
        text = `${person} keeps the ${thing} at ${rng.pick(PLACES)} and checks it every ${rng.pick(WEEKDAYS)}`;
      } else {
        text = `The ${thing} for project ${project} was ${rng.pick(QUALITIES)} according to ${person}`;
        withProject = true;
      }
  }
  const tags = withProject ? [topic.tag, `project/${project.toLowerCase()}`] : [topic.tag];
  return { fact: { category, text, tags }, topic: topicIndex };
}

function sample(rng: Random, reservoir: { seen: number; facts: CitedFact[] }, fact: CitedFact): void {
  reservoir.seen++;
  if (reservoir.facts.length < RESERVOIR) {
    reservoir.facts.push(fact);
    return;
  }
  const slot = rng.int(reservoir.seen);
  if (slot < RESERVOIR) reservoir.facts[slot] = fact;
}

/** Up to `n` different items, in random order (a partial Fisher–Yates shuffle of the indices). */
function pickDistinct<T>(rng: Random, items: readonly T[], n: number): T[] {
  const order = items.map((_, i) => i);
  const count = Math.min(n, items.length);
  for (let i = 0; i < count; i++) {
    const j = i + rng.int(order.length - i);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order.slice(0, count).map((i) => items[i]!);
}

function pageNames(count: number): string[] {
  const names: string[] = [];
  const cycle = TOPICS.length * ASPECTS.length;
  for (let i = 0; i < count; i++) {
    const topic = TOPICS[i % TOPICS.length]!;
    const aspect = ASPECTS[Math.floor(i / TOPICS.length) % ASPECTS.length]!;
    const round = Math.floor(i / cycle);
    names.push(`${topic.title} ${aspect}${round === 0 ? '' : ` ${round + 1}`}`);
  }
  return names;
}

function makePage(rng: Random, index: number, names: readonly string[], facts: readonly CitedFact[]): GeneratedFile {
  const topic: Topic = TOPICS[index % TOPICS.length]!;
  const kind = PAGE_KINDS[index % PAGE_KINDS.length]!;
  const name = names[index]!;
  const cite = (f: CitedFact): string => `[[${f.date}#^${f.id}]]`;
  const others = names.filter((n) => n !== name);
  const links = (n: number): string[] => pickDistinct(rng, others, n).map((other) => `[[${other}]]`);
  const take = (n: number): CitedFact[] => pickDistinct(rng, facts, n);
  const lines = [
    '---',
    `title: ${name}`,
    `type: ${kind.type}`,
    `tags: [${topic.tag}, bench]`,
    `status: ${rng.int(10) === 0 ? 'draft' : 'active'}`,
    '---',
    `# ${name}`,
    '',
    `What the logs say about ${topic.title.toLowerCase()}, with ${rng.pick(PEOPLE)} and ${rng.pick(PEOPLE)} involved. See also ${links(2).join(' and ') || 'the index'}.`,
    '',
    '## Summary',
    '',
    take(3).map((f) => `${f.text}. ${cite(f)}`).join(' ') || `Nothing recorded about ${topic.title.toLowerCase()} yet.`,
    '',
  ];
  const sections = 2 + rng.int(3);
  for (let s = 0; s < sections; s++) {
    const thing = topic.things[(index + s) % topic.things.length]!;
    lines.push(`## ${thing.charAt(0).toUpperCase()}${thing.slice(1)}`, '');
    for (const f of take(2 + rng.int(4))) lines.push(`- ${f.text} ${cite(f)}`);
    if (rng.int(2) === 0) {
      lines.push('', `### Open questions`, '', `- Should we ${rng.pick(topic.actions)} the ${thing} in ${rng.pick(MONTHS)}? Ask ${rng.pick(PEOPLE)}.${links(1).map((l) => ` Related: ${l}`).join('')}`);
    }
    lines.push('');
  }
  const related = links(3);
  if (related.length > 0) lines.push('## Related', '', ...related.map((l) => `- ${l}`));
  return { rel: `${kind.zone}/${name}.md`, content: `${lines.join('\n')}\n` };
}
