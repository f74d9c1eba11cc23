/**
 * Recognizes the people, places, organizations and projects a batch of facts is about, for the offline
 * consolidator's entity pages. A name is a run of capitalized words between punctuation; compromise (an
 * offline NLP library) says what each word is on its own (a first name, a city, an adverb, a greeting),
 * and its dictionary what a phrase is ("New York" a place), so greetings and sentence-initial words fall
 * away ("Anytime Nate" → Nate) and a speaker's `Name: ` label never joins the name after it. A few shapes
 * are read directly: the label (a speaker is a person, two speakers two people), a possessive keyed
 * subject (`Farid's home address:: …`), `Project Atlas` and a `project-x` tag, an organization's suffix
 * ("Northwind Labs", "Globex Inc."), a place's context ("in Tromsø", "the Tromsø office"). Each name takes
 * the one type the batch's evidence favours, so it is counted the same way in every fact.
 * Linear in the batch's text: each distinct word is tagged once, many words to a call of the tagger (a
 * call costs far more than a word). Deterministic: the same texts give the same entities in the same order.
 */
import { pushTo } from './push-to.js';
import type { Fact } from '../logs/factlog.js';
import { normalizeText } from '../text/normalize.js';
import { byText } from '../text/compare.js';
import { compromise } from '../text/nlp.js';

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

export interface RecognizeOptions {
  /**
   * The batch's speakers (e.g. a transcript's participants): their `Name: ` labels are people even when
   * the tagger reads the word otherwise. Without it, a label is a speaker when it reads as a name.
   */
  speakers?: readonly string[];
  /** Called between facts: a long batch yields to the event loop there (slice.ts). */
  tick?: () => Promise<void>;
}

/** Ties on position prefer the more specific kind of page. */
const TYPE_RANK: Record<EntityType, number> = { person: 0, project: 1, organization: 2, place: 3 };
const NAME = String.raw`\p{Lu}[\p{L}\p{M}'’-]*`;
const LABEL_RE = new RegExp(String.raw`^(${NAME}(?: ${NAME})?):\s(?!:)`, 'u');
const POSSESSIVE_RE = new RegExp(String.raw`^\[?(${NAME}(?: ${NAME})?)['’]s\s`, 'u');

const words = (list: string): Set<string> => new Set(list.split(/\s+/u).filter((w) => w !== ''));
const MONTHS = 'january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec';
const DAYS = 'monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun';
/** Labels and headings of notes, not speakers: "Relationships: Diego is allergic to shellfish". */
const CATEGORY_LABELS = words(
  'entities entity relationships relationship facts fact notes note preferences preference moments moment principles principle decisions decision commitments commitment skills skill corrections correction ' +
    'people places organizations projects topics summary context update updates todo todos task tasks idea ideas question questions answer answers reminder reminders health work family travel misc other ' +
    'status action actions follow followup log journal memory source sources tags tag category date time today tomorrow yesterday',
);
/**
 * Words that are never a name or part of one, whatever the tagger guesses: greetings and interjections it
 * does not know ("Anytime Nate", "Woohoo Melanie"), times, and words for kin and the divine.
 */
const NEVER_NAMES = words(
  `${MONTHS} ${DAYS} anytime congrats congratz thx ty aww awww aw awe woohoo woo wooo woot woah whoa yay yass heya hiya hbu geez oof gotcha omg omgg lol lmao rofl xoxo np cya ` +
    'haha hahaha hehe sooo soo wowww wowza gonna wanna gotta kinda sorta im ive ill id dont didnt cant wont thats whats lets yep yup nope nah ' +
    'today tonight tomorrow yesterday weekend christmas easter halloween thanksgiving hanukkah ramadan diwali eid ' +
    'birthday anniversary morning evening afternoon night holidays holiday ' +
    'god lord mom mum mommy mama dad daddy papa grandma grandpa granny nana sis bro babe honey sweetie darling dude guys everyone ' +
    'i me you we they he she it the a an this that these those my your our his her their',
);
/** Tags of a word read on its own that make it no part of a name ("Absolutely", "Congratulations", "Thanks"). */
const NOT_NAME_TAGS = ['Expression', 'Adverb', 'Verb', 'Modal', 'Determiner', 'Pronoun', 'Preposition', 'Conjunction', 'QuestionWord', 'Date', 'Value', 'Copula', 'Negative'];
/** Tags of a word no name ends with ("Melanie Absolutely", "Northwind Labs CTO"). */
const TRAILING_TAGS = ['Expression', 'Adverb', 'Date', 'Pronoun', 'Determiner', 'Preposition', 'Conjunction', 'Acronym'];
const PERSON_TAGS = ['Person', 'FirstName', 'LastName', 'MaleName', 'FemaleName', 'Honorific'];
const PLACE_TAGS = ['Place', 'City', 'Country', 'Region'];
/** The last word of an organization's name ("Northwind Labs", "Globex Inc.", "Kessler University"). */
const ORG_SUFFIXES = words(
  'labs lab inc incorporated corp corporation co company ltd llc llp plc gmbh ag sa bv group holdings industries technologies tech systems software solutions analytics robotics networks ' +
    'partners ventures capital bank university college institute school academy hospital clinic foundation association society agency council ministry department studio studios ' +
    'media press records airlines airways motors pharma pharmaceuticals therapeutics bio biotech consulting enterprises associates trust fund church museum library',
);
/** The last word of a place's name ("Rocky Mountains", "Eiffel Tower", "Central Park"). */
const PLACE_SUFFIXES = words(
  'mountains mountain hills hill valley canyon lake lakes river falls bay beach coast island islands peninsula park square street st avenue ave road boulevard tower bridge harbour harbor port airport station cathedral castle palace',
);
/** The first word of an organization's name read "X of Y" ("University of Oslo", "Bank of America"). */
const ORG_HEADS = words('university bank institute college school academy museum ministry department society church hospital');
/** Lower-case words that stay inside a name ("Bank of America", "São Paulo da Costa"). */
const CONNECTORS = words('of de da do dos das del della di du van von der den la le y');
/** Abbreviations whose dot does not end a sentence ("St. Olaf Hospital", "Dr. Okafor", "Globex Inc. said"). */
const ABBREVIATIONS = words('st dr mr mrs ms mx prof mt ft jr sr inc corp co ltd bros no vs');
/** The word after a place: "the Tromsø office" is the place Tromsø. */
const PLACE_AFTER = words('office offices branch campus headquarters hq site plant factory warehouse');
/** The word before a place: "in Tromsø", "from Kraków", "visited Zürich". */
const PLACE_BEFORE = words('in from near around across outside inside within toward towards via visited visiting visit');
/** Before "to", words of going somewhere: "moved to Lisbon", "a trip to Kyoto". */
const MOTION = words('came come comes coming moved move moving flew fly flying travelled traveled traveling travelling travel went go going gone trip drove drive driving relocated relocating returned return returning headed heading back road');
/** A keyed fact's key that says what its value is: `home city:: Tromsø`, `employer:: Northwind Labs`. */
const PLACE_KEY_RE = /\b(?:city|town|country|place|location|based|lives?|living|home|hometown|address|region|state|moved)\b/iu;
const ORG_KEY_RE = /\b(?:employer|company|workplace|organi[sz]ation|org|works?|job|school|university|bank|client|customer)\b/iu;
/** Before an organization: "joined Northwind", "works at Globex". */
const ORG_BEFORE = words('joined joining join');
const WORK = words('work works worked working job employed hired intern interning interned');

/** Words that open a note ("Reminder: …"), not a turn, when compromise's lexicon does not know them. */
const NOT_SPEAKERS = words('reminder todo idea fyi note update question answer summary context decision status goal tip warning important edit ps re tldr q a nb');
const NAME_TAGS = new Set(['FirstName', 'MaleName', 'FemaleName', 'LastName', 'Person', 'ProperNoun']);
type Lexicon = Record<string, string | string[] | undefined>;
const lexiconKnows = new Map<string, boolean>();

/** Whether compromise's lexicon holds the word as something other than a name ("Great", "Note"). */
function knownOtherwise(word: string): boolean {
  let out = lexiconKnows.get(word);
  if (out === undefined) {
    const nlp = compromise<{ (text: string): unknown; world(): { model: { one: { lexicon: Lexicon } } }; tokenize(text: string): { docs: Array<Array<{ normal?: string }>> } }>();
    const normal = nlp.tokenize(word).docs[0]?.[0]?.normal ?? word.toLowerCase();
    const lexicon = nlp.world().model.one.lexicon;
    const known = Object.hasOwn(lexicon, normal) ? lexicon[normal] : undefined;
    const tags = known === undefined ? [] : Array.isArray(known) ? known : known.split(',');
    out = NOT_SPEAKERS.has(normal) || (known !== undefined && !tags.some((t) => NAME_TAGS.has(t)));
    lexiconKnows.set(word, out);
  }
  return out;
}

/**
 * The speaker of a transcript turn (`Caroline: …`), or null: the one rule for a speaker's label, used by the
 * statement writer and entity recognition alike. A note's heading (`Relationships: …`, `Reminder: …`) or a
 * label whose first word the lexicon knows as something else ("Note:", "Great:") is none.
 */
export function speakerOf(text: string, speakers?: readonly string[]): string | null {
  const label = LABEL_RE.exec(text)?.[1];
  if (label === undefined) return null;
  if (speakers !== undefined) return speakers.includes(label) ? label : null;
  if (label.split(' ').some((w) => CATEGORY_LABELS.has(w.toLowerCase()) || NEVER_NAMES.has(w.toLowerCase()) || w === 'Project')) return null;
  return knownOtherwise(label.split(' ')[0]!) ? null : label;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The text a keyed fact states, without Obsidian's inline-field brackets. */
function plainText(text: string): string {
  return text.replace(/^\[(.+?::.*)\]$/u, '$1');
}

type Term = { tags: string[]; offset: { start: number } };
type Nlp = ((text: string) => { json(options?: { offset: boolean }): Array<{ terms: Term[] }> }) & {
  model(): {
    one: { lexicon: Record<string, string | string[] | undefined>; tagSet: Record<string, { parents?: string[] } | undefined> };
    /** Words the tagger decides by their context: "frank" is 'Person|Adj', "bill" 'Person|Noun'. */
    two: { switches: Record<string, string | undefined> };
  };
};

/** Words tagged per call of the tagger: a call costs far more than the words in it. */
const TAG_CHUNK = 2000;
/**
 * For a word it has no entry for, the tagger guesses by its shape: "-ly" an adverb, "-s" a plural, capitals
 * an acronym ("CTO", "LGBTQ", not a city or a company it knows) are safe guesses.
 */
const SAFE_GUESS_TAGS = ['Plural', 'Adverb', 'Expression', 'Acronym'];
const ADJECTIVE_ENDING_RE = /(?:ish|ese|ous|ful|less|able|ible)$/u;
/** Initials of a name: "J", "J.K", "J.R.R" (a dot after each but the last, which the tokenizer leaves out). */
const INITIALS_RE = /^\p{Lu}(?:\.\p{Lu})*$/u;
/** A word in capitals the lexicon may not know ("LGBTQ", "NASA", "UK"); "I" and "A" are words. */
const ACRONYM_RE = /^\p{Lu}{2,6}$/u;
/** A word as a dictionary would list it, accents folded: "São Paulo" → "sao paulo". */
const folded = (s: string): string => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
/** An acronym is read as written ("UK", "NASA"); any other word in lower case. */
const wordKey = (word: string): string => (/^\p{Lu}{2,}$/u.test(word) ? word : word.toLowerCase());

/** What compromise says about a word read on its own, and what its dictionary says about a phrase. */
class Tagger {
  private readonly tagsOf = new Map<string, string[]>();
  private readonly one: ReturnType<Nlp['model']>['one'];
  private readonly switches: ReturnType<Nlp['model']>['two']['switches'];

  /**
   * @param midSentence words the batch capitalizes inside a sentence: a name there, so a guess from the
   *   word's ending does not hold at a sentence's start either ("Farid likes chess" beside "with Farid").
   */
  constructor(
    private readonly nlp: Nlp,
    private readonly midSentence: ReadonlySet<string>,
  ) {
    this.one = nlp.model().one;
    this.switches = nlp.model().two.switches;
  }

  /**
   * A word the tagger knows both as a first name and as a common word ("Frank", "Bill", "Rose": read alone, an
   * adjective or a noun), capitalized where a capital says something: inside a sentence, or first in one when the
   * batch also capitalizes it inside one. Months are not among them ("in June").
   */
  ambiguousName(word: string, initial: boolean): boolean {
    const choices = this.switches[word.toLowerCase()]?.split('|') ?? [];
    return choices.includes('Person') && !choices.includes('Date') && /^\p{Lu}\p{Ll}/u.test(word) && (!initial || this.midSentence.has(word));
  }

  /** Tags every word not yet read, one word a line, many per call. */
  learn(words: Iterable<string>): void {
    const todo = [...new Set([...words].map(wordKey))].filter((w) => !this.tagsOf.has(w));
    for (let i = 0; i < todo.length; i += TAG_CHUNK) {
      const chunk = todo.slice(i, i + TAG_CHUNK);
      const starts: number[] = [];
      let text = '';
      for (const word of chunk) {
        starts.push(text.length);
        text += `${word}\n`;
      }
      const byStart = new Map<number, string[]>();
      for (const sentence of this.nlp(text).json({ offset: true })) for (const term of sentence.terms) if (!byStart.has(term.offset.start)) byStart.set(term.offset.start, term.tags);
      chunk.forEach((word, k) => this.tagsOf.set(word, byStart.get(starts[k]!) ?? []));
    }
  }

  tags(word: string): string[] {
    const key = wordKey(word);
    if (!this.tagsOf.has(key)) this.learn([key]);
    return this.tagsOf.get(key)!;
  }

  private listed(word: string): boolean {
    return this.one.lexicon[word.toLowerCase()] !== undefined;
  }

  nameTagged(word: string): boolean {
    return this.tags(word).some((t) => PERSON_TAGS.includes(t) || PLACE_TAGS.includes(t) || t === 'Organization');
  }

  /**
   * What a word on its own says about a name: 'name' (a first name, a city, a company the tagger knows),
   * 'unknown' (a word it has no entry for, most often a name), or 'no' (a common word). A guess from the
   * word's ending counts at a sentence's start ("Learning German"), not inside one ("with Xiaoming").
   */
  kind(word: string, initial: boolean): 'name' | 'unknown' | 'no' {
    const lower = word.toLowerCase();
    if (NEVER_NAMES.has(lower)) return 'no';
    if (INITIALS_RE.test(word)) return 'unknown';
    if (this.nameTagged(word)) return 'name';
    if (this.ambiguousName(word, initial)) return 'unknown';
    const tags = this.tags(word);
    if (!this.listed(word)) {
      const sure = tags.some((t) => SAFE_GUESS_TAGS.includes(t)) || (tags.includes('Adjective') && ADJECTIVE_ENDING_RE.test(lower));
      const guessed = tags.some((t) => NOT_NAME_TAGS.includes(t) || t === 'Adjective');
      return sure || (initial && guessed && !this.midSentence.has(word)) ? 'no' : 'unknown';
    }
    return 'no';
  }

  /** A word no name starts or ends with: a greeting, an adverb, a verb… ("Thanks Mel", "Absolutely Melanie"). */
  leading(word: string, initial: boolean): boolean {
    if (NEVER_NAMES.has(word.toLowerCase())) return true;
    // A name's initials open it ("J.R.R. Tolkien"), whatever the tagger makes of the letters.
    if (INITIALS_RE.test(word) && word.length > 1) return false;
    if (this.nameTagged(word) || this.ambiguousName(word, initial)) return false;
    return this.tags(word).some((t) => NOT_NAME_TAGS.includes(t)) && (this.listed(word) || initial || this.tags(word).some((t) => SAFE_GUESS_TAGS.includes(t)));
  }

  /** A word no name ends with: a greeting, an adverb, a time ("Melanie Absolutely"). */
  trailing(word: string): boolean {
    if (NEVER_NAMES.has(word.toLowerCase())) return true;
    return !this.nameTagged(word) && this.tags(word).some((t) => TRAILING_TAGS.includes(t));
  }

  /** The dictionary's tags for a name of several words ("New York", "São Paulo", "United Nations"), with their parents. */
  phrase(name: string): string[] {
    const entry = this.one.lexicon[name.toLowerCase()] ?? this.one.lexicon[folded(name)];
    if (entry === undefined) return [];
    const tags = [entry].flat();
    return [...tags, ...tags.flatMap((t) => this.one.tagSet[t]?.parents ?? [])];
  }
}

interface Token {
  text: string;
  start: number;
  end: number;
  /** First of its sentence (after the text's start, a label, `.!?:;`, a bracket or a quote). */
  initial: boolean;
  /** Joined to the token before it by a plain space (or an abbreviation's dot and a space). */
  joined: boolean;
  /** Ended in a possessive `'s`, which is not part of the name. */
  possessive: boolean;
}

const WORD_RE = /[\p{L}\p{M}\p{N}]+(?:['’.-][\p{L}\p{M}\p{N}]+)*/gu;
/** A word without a possessive or a trailing dot: "Farid's" → "Farid", "Dr." → "Dr". */
const bare = (word: string): string => word.replace(/['’]s$/u, '').replace(/[^\p{L}\p{M}\p{N}]+$/u, '');
const SENTENCE_GAP_RE = /[.!?:;()[\]{}"“”]|\n/u;

function tokenize(text: string, from: number): Token[] {
  const out: Token[] = [];
  let previousEnd = from;
  for (const m of text.slice(from).matchAll(WORD_RE)) {
    const start = from + m.index;
    const possessive = /['’]s$/u.test(m[0]) && m[0].length > 2;
    const word = possessive ? m[0].slice(0, -2) : m[0];
    const gap = text.slice(previousEnd, start);
    const before = out.at(-1);
    const abbreviated = before !== undefined && (ABBREVIATIONS.has(before.text.toLowerCase()) || /^\p{Lu}$/u.test(before.text) || before.text.includes('.'));
    const joined = before !== undefined && !before.possessive && (gap === ' ' || gap === ' & ' || (gap === '. ' && abbreviated));
    const initial = before === undefined || (!joined && SENTENCE_GAP_RE.test(gap) && !(gap.startsWith('. ') && abbreviated));
    out.push({ text: word, start, end: start + word.length, initial, joined, possessive });
    previousEnd = start + m[0].length;
  }
  return out;
}

interface Candidate {
  name: string;
  at: number;
  /** Evidence for each type: a word the tagger knows or a shape (3), a context (2); none for a name nothing places. */
  votes: Partial<Record<EntityType, number>>;
}

/** A name as it should title a page: no trailing punctuation, no leading article. */
function cleanName(raw: string): string {
  return raw
    .replace(/['’]s$/u, '')
    .replace(/^(?:the|a|an)\s+/iu, '')
    .replace(/[^\p{L}\p{N})]+$/u, '')
    .replace(/^[^\p{L}\p{N}]+/u, '')
    .trim();
}

/** What reading one fact's runs needs: its text and words, the tagger, and what the batch says. */
interface Reading {
  text: string;
  tokens: readonly Token[];
  tagger: Tagger;
  batch: Batch;
}

/** What the whole batch says about its words. */
interface Batch {
  /** The speakers: each a person, and a name of its own. */
  speakers: ReadonlySet<string>;
  /** Words written in lower case. */
  lowered: ReadonlySet<string>;
  /** Capitalized words met inside a sentence. */
  midSentence: ReadonlySet<string>;
  /** Capitalized words followed by another ("Amara" of "Amara Nwosu"). */
  startsNames: ReadonlySet<string>;
  /** Acronyms the lexicon has no name for that compromise reads, in a sentence of the batch, as a name's start: their type. */
  acronyms: ReadonlyMap<string, EntityType>;
}

const isCapitalized = (t: Token): boolean => /^\p{Lu}/u.test(t.text);

/**
 * The names in one run of capitalized words (tokens[from..to)), with their evidence. Greetings and
 * sentence-initial words are dropped from the front and back ("Anytime Nate", "Sure John"), and a project
 * and a speaker's name stand apart from the words around them.
 */
function namesInRun(r: Reading, from: number, to: number): Candidate[] {
  const { text, tokens, tagger } = r;
  for (let i = from; i + 1 < to; i++) {
    if (tokens[i]!.text !== 'Project' || !isCapitalized(tokens[i + 1]!)) continue;
    const project: Candidate = { name: `Project ${tokens[i + 1]!.text}`, at: tokens[i]!.start, votes: { project: 3 } };
    return [...namesInRun(r, from, i), project, ...namesInRun(r, i + 2, to)];
  }
  // An acronym the batch reads as a name's short form stands alone ("The LGBTQ" → LGBTQ).
  for (let i = from; i < to; i++) {
    const type = r.batch.acronyms.get(tokens[i]!.text);
    if (type === undefined) continue;
    return [...namesInRun(r, from, i), { name: tokens[i]!.text, at: tokens[i]!.start, votes: { [type]: 3 } }, ...namesInRun(r, i + 1, to)];
  }
  // A speaker's name stands alone, so no speaker joins another name: "Deborah Jolene" is two people,
  // "Birthday Caroline" is Caroline, and "John Legend" named by the speaker John is not John.
  if (to - from > 1) {
    const cuts = new Set([from, to]);
    for (let i = from; i < to; i++) if (r.batch.speakers.has(tokens[i]!.text)) cuts.add(i).add(i + 1);
    if (cuts.size > 2) {
      const at = [...cuts].sort((a, b) => a - b);
      return at.slice(1).flatMap((cut, k) => namesInRun(r, at[k]!, cut));
    }
  }
  const leading = (i: number): boolean => !isCapitalized(tokens[i]!) || tagger.leading(tokens[i]!.text, tokens[i]!.initial);
  let first = from;
  let last = to - 1;
  // "Bank of America", "University of Oslo": the head word is the name's, whatever it reads as alone.
  const headed = to - from >= 3 && ORG_HEADS.has(tokens[from]!.text.toLowerCase()) && tokens[from + 1]!.text === 'of';
  while (!headed && first <= last && leading(first)) first++;
  // At the end only a greeting or an adverb falls away ("Melanie Absolutely"): "Mountain View" keeps its verb.
  const trailing = (i: number): boolean => !isCapitalized(tokens[i]!) || tagger.trailing(tokens[i]!.text);
  while (last >= first && trailing(last)) last--;
  for (; first <= last; first++) {
    const name = cleanName(text.slice(tokens[first]!.start, tokens[last]!.end));
    if (name === '' || name.length > 60) return [];
    const run = tokens.slice(first, last + 1);
    const lower = run.map((t) => t.text.toLowerCase());
    const votes: Candidate['votes'] = {};
    const vote = (type: EntityType, weight: number): void => {
      votes[type] = (votes[type] ?? 0) + weight;
    };
    const orgShaped = (run.length >= 2 && ORG_SUFFIXES.has(lower.at(-1)!)) || (run.length >= 3 && ORG_HEADS.has(lower[0]!) && lower[1] === 'of');
    // What the dictionary says of the run, or of its first words ("New York City" is where "New York" is).
    let phrase: string[] = [];
    for (let n = run.length; n >= 2 && phrase.length === 0; n--) phrase = tagger.phrase(cleanName(text.slice(run[0]!.start, run[n - 1]!.end)));
    if (orgShaped || phrase.includes('Organization')) vote('organization', 3);
    else if (phrase.some((t) => PLACE_TAGS.includes(t)) || (run.length >= 2 && PLACE_SUFFIXES.has(lower.at(-1)!))) vote('place', 3);
    else {
      const kinds = run.map((t) => (isCapitalized(t) ? tagger.kind(t.text, t.initial) : 'connector'));
      // A common word opens no name ("Great Melanie", "Mother Teresa" → Teresa), and is none alone ("Entities").
      if (run.length > 1 && kinds[0] === 'no') continue;
      if (!kinds.some((k) => k === 'name' || k === 'unknown')) return [];
      // A letter, a numeral or a title alone ("R", "II", "Mr") names no one.
      if (run.length === 1 && (/^(?:\p{Lu}|[IVXLC]+)$/u.test(name) || INITIALS_RE.test(run[0]!.text) || tagger.tags(run[0]!.text).includes('Honorific'))) return [];
      // A sentence's first word the tagger does not know is a name when the batch writes it as one inside a
      // sentence ("Lunch with Amara") or before a surname ("Amara Nwosu"), not when it is only ever first ("Standup").
      const alone = run[0]!.text;
      if (run.length === 1 && kinds[0] === 'unknown' && run[0]!.initial && !r.batch.midSentence.has(alone) && !(r.batch.startsNames.has(alone) && !r.batch.lowered.has(lower[0]!))) return [];
      const tags = run.flatMap((t) => tagger.tags(t.text));
      if (phrase.some((t) => PERSON_TAGS.includes(t)) || tags.some((t) => PERSON_TAGS.includes(t)) || run.some((t) => tagger.ambiguousName(t.text, t.initial))) vote('person', 3);
      else if (tags.some((t) => PLACE_TAGS.includes(t))) vote('place', run.length === 1 ? 3 : 2);
      else if (run.length === 1 && tags.includes('Organization')) vote('organization', 3);
    }
    // The words around the run.
    const word = (i: number): string => tokens[i]?.text.toLowerCase() ?? '';
    const before = run[0]!.initial ? '' : word(first - 1);
    const beforeThat = before === '' || tokens[first - 1]!.initial ? '' : word(first - 2);
    const after = tokens[last + 1]?.initial === false ? word(last + 1) : '';
    if (PLACE_AFTER.has(after) && !orgShaped) vote('place', 3);
    else if (PLACE_BEFORE.has(before) || (before === 'to' && MOTION.has(beforeThat)) || (before === 'the' && PLACE_BEFORE.has(beforeThat))) vote('place', 2);
    if (ORG_BEFORE.has(before) || ((before === 'at' || before === 'for') && WORK.has(beforeThat))) vote('organization', 2);
    return [{ name, at: run[0]!.start, votes }];
  }
  return [];
}

/** A fact's text and words, the words read after a speaker's label. */
interface Read {
  text: string;
  label: string | undefined;
  tokens: Token[];
}

/** Addresses and file names hold no names ("https://example.com/Foo", "Notes.md"): blanked, so positions stay. */
const ADDRESS_RE = /\b(?:https?:\/\/|www\.)\S+|[\w.-]+@[\w.-]+|\b[\p{L}\p{N}_-]+\.(?:md|txt|pdf|png|jpe?g|json|csv|html?|com|org|net|io|dev)\b/giu;

function read(fact: Fact, speakers: ReadonlySet<string>): Read {
  const text = plainText(fact.text).replace(ADDRESS_RE, (m) => ' '.repeat(m.length));
  const label = LABEL_RE.exec(text)?.[1];
  const spoken = label !== undefined && speakers.has(label);
  const tokens = tokenize(text, spoken ? label.length + 1 : 0);
  if (tokens[0] !== undefined) tokens[0].initial = true;
  return { text, label: spoken ? label : undefined, tokens };
}

/** The names of one fact, with evidence, before the batch settles each name's type. */
function candidatesOf(fact: Fact, { text, label, tokens }: Read, tagger: Tagger, batch: Batch, phrases: readonly Phrase[] = []): Candidate[] {
  const found: Candidate[] = [];
  if (label !== undefined) found.push({ name: label, at: 0, votes: { person: 5 } });
  const owner = POSSESSIVE_RE.exec(text)?.[1];
  if (owner !== undefined && !owner.startsWith('Project ') && owner.split(' ').every((w) => tagger.kind(w, false) !== 'no')) found.push({ name: owner, at: 0, votes: { person: 3 } });
  for (const tag of fact.tags) {
    const project = /^project[-_/](.+)$/u.exec(tag)?.[1];
    if (project !== undefined) found.push({ name: `Project ${project.charAt(0).toUpperCase()}${project.slice(1).replace(/[-_]+/gu, ' ')}`, at: 0, votes: { project: 3 } });
  }
  // A keyed fact's value is what its key says: `home city:: Tromsø` a place, `employer:: Northwind` an organization.
  const key = /^(.+?)::/u.exec(text);
  const valueType = key === null ? undefined : PLACE_KEY_RE.test(key[1]!) ? 'place' : ORG_KEY_RE.test(key[1]!) ? 'organization' : undefined;
  const startsName = (t: Token): boolean => isCapitalized(t) && t.text !== 'I' && !/^I['’]/u.test(t.text);
  for (let i = 0; i < tokens.length; ) {
    if (!startsName(tokens[i]!)) {
      i++;
      continue;
    }
    // An acronym compromise reads as the start of a name: "the LGBTQ community" names the community, and
    // "LGBTQ" alone names it too (canonical joins the two), though neither word is in the dictionary.
    const phrase = phrases.find((p) => p.start === tokens[i]!.start);
    if (phrase !== undefined) {
      found.push({ name: phrase.name, at: phrase.start, votes: { [phrase.type]: 3 } });
      while (i < tokens.length && tokens[i]!.start < phrase.end) i++;
      continue;
    }
    const acronym = batch.acronyms.get(tokens[i]!.text);
    if (acronym !== undefined && !(tokens[i + 1]?.joined === true && isCapitalized(tokens[i + 1]!))) {
      found.push({ name: tokens[i]!.text, at: tokens[i]!.start, votes: { [acronym]: 3 } });
      i++;
      continue;
    }
    // A run: capitalized words joined by spaces, lower-case connectors between two of them ("Bank of America").
    let end = i + 1;
    while (end < tokens.length && tokens[end]!.joined) {
      const t = tokens[end]!;
      const next = tokens[end + 1];
      if (startsName(t)) end++;
      else if (CONNECTORS.has(t.text) && (t.text !== 'of' || ORG_HEADS.has(tokens[end - 1]!.text.toLowerCase())) && next?.joined === true && startsName(next)) end += 2;
      else break;
    }
    for (const c of namesInRun({ text, tokens, tagger, batch }, i, end)) {
      if (valueType !== undefined && key !== null && c.at > key[0].length) c.votes[valueType] = (c.votes[valueType] ?? 0) + 2;
      found.push(c);
    }
    i = end;
  }
  return found;
}

/** A name compromise reads in a sentence that starts with an acronym: "LGBTQ community" (an organization). */
interface Phrase {
  acronym: string;
  name: string;
  type: EntityType;
  start: number;
  end: number;
}

/** Facts read whole for each acronym, at most: enough to see how the batch uses it, linear in the batch. */
const ACRONYM_READS = 20;
type Sentences = { json(options: { offset: boolean }): Array<{ terms: Array<{ text: string; offset: { start: number; length: number } }> }> };
type Matcher = (text: string) => { organizations(): Sentences; places(): Sentences };

/**
 * The acronyms no dictionary names ("LGBTQ", "DIY", "CTO") are read in their sentences: where compromise finds
 * an organization or place that opens with one and goes on in lower-case words ("the LGBTQ community"), the
 * phrase is a name, and the acronym its short form. An acronym it never reads so ("DIY projects") is no name.
 */
function acronymPhrases(facts: readonly Fact[], reads: readonly Read[], tagger: Tagger, nlp: unknown): Map<string, Phrase[]> {
  const out = new Map<string, Phrase[]>();
  const readFor = new Map<string, number>();
  facts.forEach((fact, index) => {
    const { text, tokens } = reads[index]!;
    const unknown = tokens.filter((t) => ACRONYM_RE.test(t.text) && !tagger.nameTagged(t.text) && !NEVER_NAMES.has(t.text.toLowerCase()) && !tagger.tags(t.text).includes('Expression'));
    const fresh = unknown.filter((t) => (readFor.get(t.text) ?? 0) < ACRONYM_READS);
    if (fresh.length === 0) return;
    for (const t of new Set(fresh.map((t) => t.text))) readFor.set(t, (readFor.get(t) ?? 0) + 1);
    const doc = (nlp as Matcher)(text);
    const found: Phrase[] = [];
    for (const [type, matches] of [['organization', doc.organizations()], ['place', doc.places()]] as const) {
      for (const { terms } of matches.json({ offset: true })) {
        const head = unknown.find((t) => t.start === terms[0]?.offset.start);
        const last = terms.at(-1);
        if (head === undefined || last === undefined || terms.length < 2 || !terms.slice(1).every((w) => /^\p{Ll}/u.test(w.text))) continue;
        const end = last.offset.start + last.offset.length;
        const name = cleanName(text.slice(head.start, end));
        if (!found.some((p) => p.start === head.start)) found.push({ acronym: head.text, name, type, start: head.start, end });
      }
    }
    if (found.length > 0) out.set(fact.id, found);
  });
  return out;
}

/** A `Name: ` label that reads as a person: no heading, each word a name or a word the tagger does not know. */
function isSpeakerLabel(label: string, tagger: Tagger): boolean {
  return speakerOf(`${label}: `) !== null && label.split(' ').every((w) => tagger.kind(w, true) !== 'no');
}

/**
 * A known name read for matching (its first word and its pattern), or null for one never matched. Kept per name:
 * the registry holds every page's names, and compiling a pattern for each on every run grew with the vault
 * (issue 31). A pattern without the g flag keeps no state between uses, so one serves every run.
 */
const knownNames = new Map<string, { first: string; re: RegExp } | null>();
const MAX_KNOWN_NAMES = 200_000;

function knownName(name: string): { first: string; re: RegExp } | null {
  const kept = knownNames.get(name);
  if (kept !== undefined) return kept;
  const key = normalizeText(name);
  const found =
    key.length < 2 || NEVER_NAMES.has(key) || !/^\p{Lu}/u.test(name) || name.length > 60
      ? null
      : { first: bare(name.split(' ')[0]!), re: new RegExp(String.raw`(?<![\p{L}\p{N}])${escapeRegExp(name)}(?![\p{L}\p{N}])`, 'u') };
  if (knownNames.size >= MAX_KNOWN_NAMES) knownNames.clear();
  knownNames.set(name, found);
  return found;
}

/**
 * Mentions in each fact, in order of position; names not yet merged across facts (see `canonical`).
 * `known` are the names (titles and aliases) of entities that already have a page: they are found
 * wherever they stand, even when the tagger does not know them ("Farid likes chess").
 */
export async function recognizeEntities(facts: readonly Fact[], known: ReadonlyArray<{ name: string; entity: Entity }> = [], options: RecognizeOptions = {}): Promise<Map<string, Mention[]>> {
  const nlp = compromise<Nlp>();
  // Every capitalized word of the batch is tagged up front, many to a call of the tagger.
  const lowered = new Set<string>();
  const capitalized = new Set<string>();
  const midSentence = new Set<string>();
  const startsNames = new Set<string>();
  for (const fact of facts) {
    const tokens = tokenize(plainText(fact.text), 0);
    tokens.forEach((t, i) => {
      if (!isCapitalized(t)) {
        lowered.add(t.text);
        return;
      }
      capitalized.add(t.text);
      if (!t.initial) midSentence.add(t.text);
      const next = tokens[i + 1];
      if (next !== undefined && next.joined && isCapitalized(next)) startsNames.add(t.text);
    });
  }
  const tagger = new Tagger(nlp, midSentence);
  tagger.learn(capitalized);
  // A label is a speaker when the caller says so or it reads as a name; two speakers are never one name.
  const speakers = new Set(options.speakers ?? []);
  for (const fact of facts) {
    const label = LABEL_RE.exec(plainText(fact.text))?.[1];
    if (label !== undefined && !speakers.has(label) && isSpeakerLabel(label, tagger)) speakers.add(label);
  }
  const reads = facts.map((fact) => read(fact, speakers));
  const phrases = acronymPhrases(facts, reads, tagger, nlp);
  const acronyms = new Map<string, EntityType>();
  for (const list of [...phrases.values()]) for (const p of list) if (!acronyms.has(p.acronym)) acronyms.set(p.acronym, p.type);
  const batch: Batch = { speakers, lowered, midSentence, startsNames, acronyms };
  const perFact: Candidate[][] = [];
  for (const [index, fact] of facts.entries()) {
    perFact.push(candidatesOf(fact, reads[index]!, tagger, batch, phrases.get(fact.id)));
    await options.tick?.();
  }

  // One type per name over the batch, from all its evidence; one spelling per name, the most frequent.
  const tally = new Map<string, { votes: Record<EntityType, number>; spellings: Map<string, number> }>();
  for (const list of perFact) {
    for (const c of list) {
      const key = normalizeText(c.name);
      const t = tally.get(key) ?? { votes: { person: 0, place: 0, organization: 0, project: 0 }, spellings: new Map<string, number>() };
      for (const [type, weight] of Object.entries(c.votes) as Array<[EntityType, number]>) t.votes[type] += weight;
      t.spellings.set(c.name, (t.spellings.get(c.name) ?? 0) + 1);
      tally.set(key, t);
    }
  }
  const entities = new Map<string, Entity>();
  for (const [key, t] of tally) {
    // A name nothing places is most often a person's.
    const type = (Object.keys(TYPE_RANK) as EntityType[]).sort((a, b) => t.votes[b] - t.votes[a] || TYPE_RANK[a] - TYPE_RANK[b])[0]!;
    const name = [...t.spellings].sort(([a, n], [b, m]) => m - n || byText(a, b))[0]![0];
    entities.set(key, { name, key, type });
  }

  // Known names, indexed by their first word so each fact is read once, not once per name.
  const byFirst = new Map<string, Array<{ name: string; entity: Entity; re: RegExp }>>();
  for (const { name, entity } of known) {
    const found = knownName(name);
    if (found === null) continue;
    const list = byFirst.get(found.first) ?? [];
    list.push({ name, entity, re: found.re });
    byFirst.set(found.first, list);
  }
  // Longer names first, so "Alice Chen" is found before "Alice"; a name must stand as written, capital included.
  for (const list of byFirst.values()) list.sort((a, b) => b.name.length - a.name.length || byText(a.name, b.name));

  const out = new Map<string, Mention[]>();
  facts.forEach((fact, index) => {
    const text = plainText(fact.text);
    const list: Mention[] = [];
    for (const c of perFact[index]!) {
      const entity = entities.get(normalizeText(c.name))!;
      if (!list.some((m) => m.entity.key === entity.key)) list.push({ entity, at: c.at });
    }
    if (byFirst.size > 0) {
      const seen = new Set<string>();
      for (const m of text.matchAll(WORD_RE)) {
        const word = bare(m[0]);
        if (seen.has(word)) continue;
        seen.add(word);
        for (const { name, entity, re } of byFirst.get(word) ?? []) {
          // The plain substring first: a hub's parts share its first word, so a word may head thousands of names.
          if (!text.includes(name)) continue;
          const at = re.exec(text)?.index;
          if (at !== undefined && !list.some((x) => x.entity.key === entity.key)) list.push({ entity, at });
        }
      }
    }
    // At one position the longer name is the one meant ("Daniel Okafor", not a page titled "Daniel").
    list.sort((a, b) => a.at - b.at || b.entity.name.length - a.entity.name.length || TYPE_RANK[a.entity.type] - TYPE_RANK[b.entity.type] || byText(a.entity.key, b.entity.key));
    out.set(fact.id, list);
  });
  return out;
}

/**
 * Merges the names of one entity across facts: a first name alone ("Alice") joins the one full name
 * that starts with it ("Alice Chen"), an acronym alone ("LGBTQ") the one name it opens ("LGBTQ community"),
 * and every name joins a known page's title or alias.
 * Returns the canonical entity for each key, and the aliases each canonical name gathered.
 */
export function canonical(
  mentions: ReadonlyMap<string, Mention[]>,
  known: ReadonlyMap<string, Entity>,
  speakers: readonly string[] = [],
): { of: (key: string) => Entity | undefined; aliases: Map<string, string[]> } {
  const all = new Map<string, Entity>();
  for (const list of mentions.values()) for (const m of list) if (!all.has(m.entity.key)) all.set(m.entity.key, m.entity);
  // Full names by their first and by their last word.
  const full = new Map<string, Entity[]>();
  for (const e of all.values()) {
    if (e.type !== 'person' || !e.key.includes(' ')) continue;
    const parts = e.key.split(' ');
    for (const word of new Set([parts[0]!, parts.at(-1)!])) pushTo(full, word, e);
  }
  // The name an acronym opens most often ("LGBTQ community", beside a "LGBTQ conference" named once), by the
  // acronym's key: the acronym alone is most likely its short form. A tie names none.
  const factsNaming = new Map<string, number>();
  for (const list of mentions.values()) for (const key of new Set(list.map((m) => m.entity.key))) factsNaming.set(key, (factsNaming.get(key) ?? 0) + 1);
  const openedAll = new Map<string, Entity[]>();
  for (const e of all.values()) {
    const first = normalizeText(e.name.split(' ')[0]!);
    if (e.type !== 'person' && e.key.includes(' ') && ACRONYM_RE.test(e.name.split(' ')[0]!)) pushTo(openedAll, first, e);
  }
  const opened = new Map<string, Entity[]>();
  for (const [acronym, list] of openedAll) {
    const [top, next] = [...list].sort((a, b) => (factsNaming.get(b.key) ?? 0) - (factsNaming.get(a.key) ?? 0) || byText(a.key, b.key));
    if (next === undefined || (factsNaming.get(top!.key) ?? 0) > (factsNaming.get(next.key) ?? 0)) opened.set(acronym, [top!]);
  }
  const speakerKeys = speakers.map((name) => normalizeText(name));
  const map = new Map<string, Entity>();
  for (const [key, entity] of [...all.entries()].sort(([a], [b]) => byText(a, b))) {
    const page = known.get(key);
    if (page !== undefined) {
      map.set(key, page);
      continue;
    }
    // A first or last name alone joins the one full name it belongs to.
    const longer = !key.includes(' ') && entity.type === 'person' ? (full.get(key) ?? []) : ACRONYM_RE.test(entity.name) ? (opened.get(key) ?? []) : [];
    const nick = longer.length === 0 && entity.type === 'person' ? nicknameOf(key, speakerKeys) : undefined;
    map.set(key, longer.length === 1 ? (known.get(longer[0]!.key) ?? longer[0]!) : nick !== undefined ? (known.get(nick) ?? all.get(nick) ?? entity) : entity);
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

/**
 * The speaker a one-word name is the short form of ("mel" → "melanie", "jo" → "joanna"): the start of exactly
 * one speaker's first name, and no speaker itself (two speakers are two people, "Jo" beside "Joanna" too).
 */
function nicknameOf(key: string, speakers: readonly string[]): string | undefined {
  if (key.length < 2 || key.includes(' ') || speakers.includes(key)) return undefined;
  const of = speakers.filter((s) => s.split(' ')[0]!.length > key.length && s.startsWith(key));
  return of.length === 1 ? of[0] : undefined;
}
