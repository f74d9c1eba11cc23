/**
 * Recognizes the people, places, organizations and projects a batch of facts is about, for the offline
 * consolidator's entity pages. compromise (an offline NLP library) finds names in running text; a few
 * shapes it cannot see are read directly: a speaker's `Name: …` prefix (transcripts), a possessive keyed
 * subject (`Farid's home address:: …`), `Project Atlas`, and a `project-x` tag. Deterministic: the same
 * texts give the same entities in the same order.
 */
import type { Fact } from '../logs/factlog.js';
import { normalizeText } from '../text/normalize.js';
import { byText } from '../text/compare.js';

export type EntityType = 'person' | 'place' | 'organization' | 'project';

export interface Entity {
  name: string;
  /** normalizeText(name): how mentions of one entity are told apart. */
  key: string;
  type: EntityType;
}

export interface Mention {
  entity: Entity;
  /** Where the name first stands in the fact's text (0 for a tag), to pick the fact's main entity. */
  at: number;
}

/** Ties on position prefer the more specific kind of page. */
const TYPE_RANK: Record<EntityType, number> = { person: 0, project: 1, organization: 2, place: 3 };
const NAME = String.raw`\p{Lu}[\p{L}\p{M}'’-]*`;
const SPEAKER_RE = new RegExp(String.raw`^(${NAME}(?: ${NAME})?):\s(?!:)`, 'u');
const POSSESSIVE_RE = new RegExp(String.raw`^\[?(${NAME}(?: ${NAME})?)['’]s\s`, 'u');
/** The speaker of a transcript turn (`Caroline: …`), or null. */
export const speakerOf = (text: string): string | null => SPEAKER_RE.exec(text)?.[1] ?? null;
const PROJECT_RE = new RegExp(String.raw`\bProject (${NAME})`, 'gu');
/** Words compromise sometimes takes for names that never make a page. */
const NOT_NAMES = new Set(['i', 'me', 'you', 'we', 'they', 'he', 'she', 'it', 'the', 'a', 'an', 'day', 'today', 'tomorrow', 'yesterday', 'mom', 'dad']);

/** A name as it should title a page: no trailing punctuation, no possessive, no leading article. */
function cleanName(raw: string): string {
  return raw
    .replace(/['’]s$/u, '')
    .replace(/^(?:the|a|an)\s+/iu, '')
    .replace(/[^\p{L}\p{N})]+$/u, '')
    .replace(/^[^\p{L}\p{N}]+/u, '')
    .trim();
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function acceptable(name: string): boolean {
  const key = normalizeText(name);
  return key.length >= 2 && !NOT_NAMES.has(key) && /^\p{Lu}/u.test(name) && name.length <= 60;
}

/** The text a keyed fact states, without Obsidian's inline-field brackets. */
function plainText(text: string): string {
  return text.replace(/^\[(.+?::.*)\]$/u, '$1');
}

type Nlp = (text: string) => { people(): Found; places(): Found; organizations(): Found; match(pattern: string): Found; json(): Array<{ terms: Array<{ tags: string[] }> }> };
interface Found {
  out(format: 'array'): string[];
}

/** A run of words the tagger joined across punctuation ("Thanks, Mel!") is a greeting, not a name. */
const PUNCTUATED_RE = /[,;:!?.()"]\s*\S/u;

/**
 * Mentions in each fact, in order of position; names not yet merged across facts (see `canonical`).
 * `known` are the names (titles and aliases) of entities that already have a page: they are found
 * wherever they stand, even when the tagger does not know them ("Farid likes chess").
 */
export async function recognizeEntities(facts: readonly Fact[], known: ReadonlyArray<{ name: string; entity: Entity }> = []): Promise<Map<string, Mention[]>> {
  const nlp = ((await import('compromise')) as unknown as { default: Nlp }).default;
  const out = new Map<string, Mention[]>();
  // Longer names first, so "Alice Chen" is found before "Alice"; a name must stand as written, capital included.
  const knownNames = known
    .filter(({ name }) => acceptable(name))
    .map(({ name, entity }) => ({ entity, re: new RegExp(String.raw`(?<![\p{L}\p{N}])${escapeRegExp(name)}(?![\p{L}\p{N}])`, 'u'), length: name.length, name }))
    .sort((a, b) => b.length - a.length || byText(a.name, b.name));
  // How the tagger reads a word on its own, to tell a greeting beside a first name ("Congrats Caroline",
  // "Melanie Absolutely") from a full name ("Farid Haddad").
  const alone = new Map<string, string[]>();
  const tagsOf = (word: string): string[] => {
    const key = word.toLowerCase();
    let tags = alone.get(key);
    if (tags === undefined) {
      tags = nlp(key).json()[0]?.terms[0]?.tags ?? [];
      alone.set(key, tags);
    }
    return tags;
  };
  const GREETING_TAGS = ['Expression', 'Adjective', 'Adverb', 'Verb', 'Plural'];
  const notName = (word: string): boolean => !tagsOf(word).includes('Person') && tagsOf(word).some((t) => GREETING_TAGS.includes(t));
  const firstName = (word: string): boolean => tagsOf(word).includes('FirstName');
  const withoutGreeting = (name: string): string => {
    const words = name.split(' ');
    while (words.length > 1 && notName(words[0]!) && firstName(words[1]!)) words.shift();
    while (words.length > 1 && notName(words.at(-1)!) && firstName(words.at(-2)!)) words.pop();
    return words.join(' ');
  };
  for (const fact of facts) {
    const text = plainText(fact.text);
    const found: Mention[] = [];
    const add = (raw: string, type: EntityType, at?: number): void => {
      const cleaned = cleanName(raw);
      const name = type === 'person' && cleaned.includes(' ') ? withoutGreeting(cleaned) : cleaned;
      if (!acceptable(name)) return;
      const key = normalizeText(name);
      if (found.some((m) => m.entity.key === key)) return;
      const index = at ?? text.indexOf(name);
      found.push({ entity: { name, key, type }, at: index < 0 ? text.length : index });
    };
    const speaker = SPEAKER_RE.exec(text)?.[1];
    if (speaker !== undefined) add(speaker, 'person', 0);
    const owner = POSSESSIVE_RE.exec(text)?.[1];
    if (owner !== undefined && !owner.startsWith('Project ')) add(owner, 'person', 0);
    for (const match of text.matchAll(PROJECT_RE)) add(`Project ${match[1]!}`, 'project', match.index);
    for (const tag of fact.tags) {
      const project = /^project[-_/](.+)$/u.exec(tag)?.[1];
      if (project !== undefined) add(`Project ${project.charAt(0).toUpperCase()}${project.slice(1).replace(/[-_]+/gu, ' ')}`, 'project', 0);
    }
    // A keyed fact reads as a sentence ("home city is Kyoto"), so the tagger sees its value as a name.
    const keyed = /^(.+?)::\s*(.*)$/u.exec(text);
    const doc = nlp(keyed === null ? text : `${keyed[1]!} is ${keyed[2]!}`);
    for (const name of doc.people().out('array')) add(name, 'person');
    for (const name of doc.organizations().out('array')) add(name, 'organization');
    for (const name of doc.places().out('array')) add(name, 'place');
    // Two or more proper nouns in a row that the tagger could not place are most often a person's name.
    for (const name of doc.match('#ProperNoun #ProperNoun+').out('array')) if (!name.startsWith('Project ') && !PUNCTUATED_RE.test(name.trim())) add(name, 'person');
    for (const { entity, re } of knownNames) {
      const at = re.exec(text)?.index;
      if (at !== undefined && !found.some((m) => m.entity.key === entity.key)) found.push({ entity, at });
    }
    out.set(fact.id, found);
  }
  // A first name alone ("Farid likes chess") is a mention of the one full name that starts with it.
  const full = new Map<string, string[]>();
  for (const list of out.values()) {
    for (const m of list) {
      if (m.entity.type !== 'person' || !m.entity.name.includes(' ')) continue;
      const first = m.entity.name.split(' ')[0]!;
      if (!(full.get(first) ?? []).includes(m.entity.name)) full.set(first, [...(full.get(first) ?? []), m.entity.name]);
    }
  }
  for (const fact of facts) {
    const list = out.get(fact.id)!;
    const text = plainText(fact.text);
    for (const [first, names] of [...full.entries()].sort(([a], [b]) => byText(a, b))) {
      if (names.length !== 1 || list.some((m) => m.entity.name.split(' ')[0] === first)) continue;
      const at = new RegExp(String.raw`(?<![\p{L}])${first}(?![\p{L}])`, 'u').exec(text)?.index;
      if (at !== undefined) list.push({ entity: { name: first, key: normalizeText(first), type: 'person' }, at });
    }
    // At one position the longer name is the one meant ("Daniel Okafor", not a page titled "Daniel").
    list.sort((a, b) => a.at - b.at || b.entity.name.length - a.entity.name.length || TYPE_RANK[a.entity.type] - TYPE_RANK[b.entity.type] || byText(a.entity.key, b.entity.key));
  }
  return out;
}

/**
 * Merges the names of one entity across facts: a first name alone ("Alice") joins the one full name
 * that starts with it ("Alice Chen"), and every name joins a known page's title or alias.
 * Returns the canonical entity for each key, and the aliases each canonical name gathered.
 */
export function canonical(mentions: ReadonlyMap<string, Mention[]>, known: ReadonlyMap<string, Entity>): { of: (key: string) => Entity | undefined; aliases: Map<string, string[]> } {
  const all = new Map<string, Entity>();
  for (const list of mentions.values()) for (const m of list) if (!all.has(m.entity.key)) all.set(m.entity.key, m.entity);
  const full = [...all.values()].filter((e) => e.type === 'person' && e.key.includes(' '));
  const map = new Map<string, Entity>();
  for (const [key, entity] of [...all.entries()].sort(([a], [b]) => byText(a, b))) {
    const page = known.get(key);
    if (page !== undefined) {
      map.set(key, page);
      continue;
    }
    // A first or last name alone joins the one full name it belongs to.
    const longer = !key.includes(' ') && entity.type === 'person' ? full.filter((f) => f.key.split(' ')[0] === key || f.key.split(' ').at(-1) === key) : [];
    map.set(key, longer.length === 1 ? (known.get(longer[0]!.key) ?? longer[0]!) : entity);
  }
  const aliases = new Map<string, string[]>();
  for (const [key, target] of map) {
    if (target.key === key) continue;
    const name = all.get(key)!.name;
    const list = aliases.get(target.key) ?? [];
    if (!list.includes(name)) list.push(name);
    aliases.set(target.key, list.sort());
  }
  return { of: (key) => map.get(key) ?? known.get(key), aliases };
}
