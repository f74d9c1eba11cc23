/**
 * Plain-English changes of state read into the subject keys keyed facts use (DESIGN §3, docs/formats.md):
 * "I moved to Lisbon last weekend" is `home city: Lisbon`, as `home city:: Lisbon` would be, so a later
 * value supersedes an earlier one in search and pages whether it was keyed or said.
 *
 * A wrong current value is worse than none: only present or just-completed statements of the holder's own
 * state are read; questions, plans, wishes, negations, habits of the past and states of someone unnamed
 * ("my sister lives in Rome") are not; an uncertain reading is returned with `sure: false`.
 *
 * Cost: the indexer asks this of every fact, so a text reaches the grammar only when a cue phrase matches
 * (one regular expression); compromise (the NLP library) is loaded then, synchronously, and tags one clause
 * at a time, each clause once per process (a vault repeats its clauses).
 */
import { normalizeText } from './normalize.js';
import { compromise } from './nlp.js';

export interface StateChange {
  /** As a person would write it: "home city" (the owner's), "Ana's home city" (someone named). */
  subject: string;
  /** normalizeText(subject): what the index's `subject` column holds, as for `subject:: value`. */
  key: string;
  /** "Lisbon"; for an ending, a value that says so: "none (left Acme)". */
  value: string;
  /** Whose state: a name, or null for the vault's owner. */
  holder: string | null;
  /** False for an uncertain reading: it never becomes a current value (a page shows it under Conflicts). */
  sure: boolean;
}

/** Alternatives of words that may start a sentence: "live|lives" → "[Ll]ive|[Ll]ives" (the cue is case-sensitive, for the capitals of names). */
const either = (words: string): string => `(?:${words.split('|').map((w) => `[${w[0]!.toUpperCase()}${w[0]}]${w.slice(1)}`).join('|')})`;
/** A name, a model or a place: a capital, a digit, or "iPhone". */
const NAMED = String.raw`(?:the\s+)?(?:\p{Lu}|\p{N}|i\p{Lu})`;
const JOB_WORDS = 'engineer|developer|programmer|designer|manager|director|lead|architect|analyst|scientist|researcher|consultant|teacher|professor|lecturer|nurse|doctor|physician|surgeon|lawyer|attorney|accountant|editor|writer|journalist|reporter|chef|barista|pharmacist|therapist|counselor|recruiter|intern|executive|officer|president|founder|cofounder|administrator|technician|mechanic|electrician|plumber|carpenter|pilot|firefighter|paramedic|librarian|principal|coach|trainer|marketer|clerk|cashier|waiter|waitress|bartender|student|postdoc|dentist|veterinarian|vet|photographer|freelancer|contractor|specialist|coordinator|supervisor|partner|associate|CEO|CTO|CFO|COO|SRE|PM';
const PARTNERS = 'partner|wife|husband|girlfriend|boyfriend|fianc[eé]e?|spouse';

/**
 * The phrases a change of state is said with, each as the readers below need it (a name after "moved to",
 * a job word after "I'm a"); a text without one never reaches the grammar. Kept narrow: most facts are not
 * changes of state, and each clause that matches costs a tagging (~1 ms) the first time it is seen.
 */
const CUE_RE = new RegExp(
  [
    String.raw`${either('live|lives|living|lived')}\s+in\s+${NAMED}`,
    String.raw`${either('moved|relocated')}\s+(?:\S+\s+){0,4}?to\s+${NAMED}`,
    String.raw`\bbased\s+(?:in|out\s+of)\s+${NAMED}`,
    String.raw`\bhome\s+is\s+(?:\w+\s+)?in\s+${NAMED}`,
    String.raw`${either('work|works|working|worked')}\s+(?:(?:at|for)\s+${NAMED}|as\s+an?\s)`,
    String.raw`${either('joined|started|hired|left|quit')}\s+(?:(?:working\s+)?(?:at|with|by)\s+)?${NAMED}`,
    String.raw`${either('started|left|quit')}\s+(?:a|my|our)\s+(?:\S+\s+){0,2}?(?:job|position|role)\b`,
    String.raw`\b(?:employer|company|role|title)\s+is\b|\bpromoted\s+to\b`,
    String.raw`(?:\b(?:am|is|are)|'m|'re|'s)\s+(?:\w+\s+)?an?\s+(?:\S+\s+){0,3}?(?:${JOB_WORDS})\b`,
    String.raw`\b(?:manager|boss|supervisor|${PARTNERS})\s+is\s|\bis\s+my\s+(?:\w+\s+)?(?:manager|boss|supervisor|${PARTNERS})\b`,
    String.raw`${either('report|reports|reporting')}\s+to\s+\p{Lu}`,
    String.raw`\b(?:married|engaged|dating|divorced)\s+(?:to\s+)?\p{Lu}|\b(?:broke|split)\s+up\b`,
    String.raw`\b(?:vegetarian|vegan|pescatarian|pescetarian)\b|\beat(?:s|ing)?\s+meat\b`,
    String.raw`\b(?:named|called)\s+\p{Lu}|\b(?:died|passed\s+away)\b`,
    String.raw`\b(?:phone|car|bank|provider|gym|laptop|dentist|doctor|therapist|carrier)\s+is\s+(?:\S+\s+){0,2}?${NAMED}`,
    String.raw`\bswitched\b(?:\s+\S+){0,5}?\s+to\s+(?:\S+\s+)?${NAMED}|\bdrives?\s+an?\s+(?:\S+\s+)?\p{Lu}|\bbanks?\s+with\s+\p{Lu}`,
  ].join('|'),
  'u',
);

/** A speaker's label, `Caroline: …` (transcripts). */
const SPEAKER_RE = /^(\p{Lu}[\p{L}\p{M}'’-]*(?: \p{Lu}[\p{L}\p{M}'’-]*)?):\s(?!:)/u;

/** Words before the change that make it a plan, a wish, a condition or a question of its own. */
const HYPOTHETICAL_RE = /\b(?:if|unless|whether|wish|wishes|hope|hoping|dream|dreaming|imagine|suppose|someday|one day|eventually|considering|thinking|planning|plan|plans|want|wants|wanted|would|might|could|should|may|going to|gonna|about to|trying|try|tried|soon)\b/i;
/** Words before it that make it hearsay or a guess: read, but not sure. */
const HEDGE_RE = /\b(?:think|thought|guess|believe|heard|hear|apparently|maybe|perhaps|probably|possibly|rumou?red|seems|supposedly)\b/i;
/** Words after a move that date it long ago: the holder may have moved since. */
const LONG_AGO_RE = /\b(?:(?:years?|decades?)\s+ago|back in|as a (?:kid|child|teen)|when I was|in (?:19|20)\d\d)\b/i;

// ---- the clause as compromise tags it ------------------------------------------------------------------

interface Term {
  /** As written. */
  text: string;
  /** Lower case, a contraction's implicit word ("am" for the `'m` of "I'm"). */
  word: string;
  tags: ReadonlySet<string>;
  /** Starts with a capital or is a number: a name, a product, a place. */
  named: boolean;
  /** Punctuation after it ends a phrase. */
  stop: boolean;
}

interface NlpTerm {
  text: string;
  post: string;
  tags: string[];
  normal: string;
  machine?: string;
  implicit?: string;
}
type Nlp = (text: string) => { json(): Array<{ terms: NlpTerm[] }> };

let nlp: Nlp | null = null;
/** compromise, loaded on first use (its CommonJS build, so reading stays synchronous). */
function tagger(): Nlp {
  return (nlp ??= compromise<Nlp>());
}

function termsOf(clause: string): Term[] {
  return tagger()(clause)
    .json()
    .flatMap((s) => s.terms)
    .map((t) => ({
      text: t.text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''),
      word: (t.machine ?? t.implicit ?? t.normal).toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''),
      tags: new Set(t.tags),
      named: /^(?:\p{Lu}|\p{N}|i\p{Lu})/u.test(t.text.replace(/^[^\p{L}\p{N}]+/u, '')),
      stop: /[,;:!?.()"—–]/.test(t.post),
    }))
    .filter((t) => t.word !== '' || t.tags.size > 0);
}

// ---- who the clause is about --------------------------------------------------------------------------

/** self: the speaker or owner; name: someone named; inherit: no subject in the clause; other: someone unnamed. */
type Holder = { kind: 'self' } | { kind: 'name'; name: string } | { kind: 'inherit' } | { kind: 'other' };

const ADVERBS = new Set(['just', 'now', 'recently', 'finally', 'officially', 'currently', 'still', 'also', 'already', 'actually', 'permanently', 'happily', 'since', 'then', 'so', 'and', 'both', 'all', 'even', 'really', 'newly', 'technically']);
/** Auxiliaries of a present or just-completed state. */
const AUXILIARIES = new Set(['have', 'has', 'am', 'is', 'are', 'been', 'got', 'get', 'gets', 'do', 'does']);
const SELF = new Set(['i', 'we', 'me']);
const OTHERS = new Set(['you', 'he', 'she', 'they', 'it', 'who', 'someone', 'everyone', 'people', 'this', 'that', 'there']);
/** Subordinators that make the clause background, not news ("since I moved to Lisbon, …"). */
const SUBORDINATE = new Set(['when', 'since', 'after', 'before', 'if', 'once', 'until', 'unless', 'whether', 'while', 'where', 'that', 'which', 'who']);
/** Capitalized words that start sentences without naming anyone. */
const NOT_NAMES = new Set(['yesterday', 'today', 'tonight', 'tomorrow', 'recently', 'finally', 'last', 'this', 'next', 'so', 'and', 'but', 'also', 'well', 'oh', 'yeah', 'yes', 'no', 'hey', 'hi', 'guess', 'fun', 'big', 'great', 'news', 'update', 'officially', 'now', 'then', 'after', 'before', 'when', 'since', 'my', 'our', 'the', 'a', 'an', 'his', 'her', 'their', 'your']);

interface Verb {
  holder: Holder;
  /** The auxiliaries and adverbs before the verb, lower case. */
  before: string[];
}

/**
 * Reads back from the verb at `at`: auxiliaries and adverbs, then its subject. Null when something there
 * makes it no statement of a present state: a modal, a negation, "used to", a past auxiliary, a subordinator.
 */
function verbBefore(terms: readonly Term[], at: number, allow: readonly string[] = []): Verb | null {
  const before: string[] = [];
  let i = at - 1;
  for (; i >= 0; i--) {
    const t = terms[i]!;
    if (allow.includes(t.word)) {
      before.push(t.word);
      continue;
    }
    if (t.tags.has('Modal') || t.tags.has('Negative') || ['to', 'used', 'was', 'were', 'had', 'would', 'not', 'never'].includes(t.word)) return null;
    if (AUXILIARIES.has(t.word) || ADVERBS.has(t.word) || (t.tags.has('Adverb') && !t.named)) {
      before.push(t.word);
      continue;
    }
    break;
  }
  if (i < 0) return { holder: { kind: 'inherit' }, before };
  const t = terms[i]!;
  if (SUBORDINATE.has(t.word)) return null;
  // "when I moved to Berlin, …", "since Ana moved …": the subordinator stands before the subject
  let first = i;
  while (first > 0 && t.named && terms[first - 1]!.named && !terms[first - 1]!.stop && !SUBORDINATE.has(terms[first - 1]!.word)) first--;
  if (first > 0 && SUBORDINATE.has(terms[first - 1]!.word)) return null;
  if (SELF.has(t.word)) return { holder: { kind: 'self' }, before };
  if (t.word === 'user' && (i === 0 || terms[i - 1]!.word === 'the')) return { holder: { kind: 'self' }, before };
  if (OTHERS.has(t.word)) return { holder: { kind: 'other' }, before };
  if (t.named && !NOT_NAMES.has(t.word) && !t.tags.has('Date') && !t.tags.has('Pronoun')) {
    const words = [t.text];
    for (let j = i - 1; j >= 0 && words.length < 3 && terms[j]!.named && !terms[j]!.stop && !NOT_NAMES.has(terms[j]!.word); j--) words.unshift(terms[j]!.text);
    return { holder: { kind: 'name', name: words.join(' ').replace(/['’]s$/u, '') }, before };
  }
  if (['but', 'so', 'then', 'and'].includes(t.word) && i === 0) return { holder: { kind: 'inherit' }, before };
  return { holder: { kind: 'other' }, before };
}

/** A sentence's first word's tags, by the word. */
const nameTags = new Map<string, ReadonlySet<string>>();

/** The subject of a sentence's first clause, for a later clause that has none ("Umar leads Harbor and lives in Kyoto"). */
function sentenceHolder(sentence: string): Holder {
  const first = /^\s*(?:(?:[Tt]he\s+)?[Uu]ser\b|(I|We|we)\b|(\p{Lu}[\p{L}\p{M}'’-]*(?:\s\p{Lu}[\p{L}\p{M}'’-]*){0,2}))/u.exec(sentence);
  if (first === null) return { kind: 'other' };
  if (first[2] === undefined) return { kind: 'self' };
  const name = first[2].replace(/['’]s$/u, '');
  if (/\s/.test(name) === false && !/^\p{Lu}/u.test(name)) return { kind: 'other' };
  if (NOT_NAMES.has(name.split(/\s/)[0]!.toLowerCase())) return { kind: 'other' };
  let tags = nameTags.get(name);
  if (tags === undefined) {
    if (nameTags.size >= MEMO_LIMIT) nameTags.clear();
    nameTags.set(name, (tags = termsOf(name)[0]?.tags ?? new Set()));
  }
  const word = { tags };
  if (tags.size === 0 || ['Date', 'Adverb', 'Verb', 'Pronoun', 'Conjunction', 'Preposition', 'Determiner', 'Adjective', 'QuestionWord', 'Expression'].some((tag) => word.tags.has(tag))) return { kind: 'other' };
  return { kind: 'name', name };
}

// ---- values -------------------------------------------------------------------------------------------

const CONNECTORS = new Set(['de', 'da', 'do', 'dos', 'das', 'del', 'della', 'di', 'du', 'la', 'le', 'of', 'upon', 'am', 'on', 'and']);

/** A name from `at`: capitalized words (a lower-case connector between two), up to punctuation. */
function nameAt(terms: readonly Term[], at: number, max = 4, person = false): { value: string; end: number } | null {
  if (at < 0) return null;
  let i = at;
  if (!person && terms[i]?.word === 'the' && terms[i + 1]?.named) i++; // "the Netherlands"; a person has no article
  const words: string[] = [];
  for (; i < terms.length && words.length < max; i++) {
    const t = terms[i]!;
    if (t.named && !t.tags.has('Pronoun') && !t.tags.has('Date') && !/^\p{N}+$/u.test(t.text)) words.push(t.text);
    else if (words.length > 0 && CONNECTORS.has(t.word) && terms[i + 1]?.named && !terms[i + 1]!.tags.has('Date') && !terms[i - 1]!.stop && t.word !== 'and') words.push(t.text);
    else break;
    if (t.stop) {
      i++;
      break;
    }
  }
  if (words.length === 0 || words[0] === 'I') return null;
  return { value: words.join(' ').replace(/['’]s$/u, ''), end: i };
}

/** A thing's name after "is": "a Pixel 8", "Monzo", "a red Tesla Model 3": a run of capitalized words and numbers. */
function thingAt(terms: readonly Term[], at: number): string | null {
  let i = at;
  while (['a', 'an', 'the', 'my', 'our', 'now', 'still'].includes(terms[i]?.word ?? '')) i++;
  const words: string[] = [];
  // up to two describing words before the name ("a red Tesla")
  for (let n = 0; n < 2 && terms[i] !== undefined && !terms[i]!.named && terms[i]!.tags.has('Adjective') && !terms[i]!.stop; n++) words.push(terms[i++]!.text);
  const start = words.length;
  for (; i < terms.length && words.length < start + 4; i++) {
    const t = terms[i]!;
    if (!t.named || t.tags.has('Date') || t.tags.has('Pronoun')) break;
    words.push(t.text);
    if (t.stop) break;
  }
  return words.length === start ? null : words.join(' ');
}

/** The last word of a job title. */
const JOB_HEADS = new Set(
  ('engineer developer programmer designer manager director lead architect analyst scientist researcher consultant teacher professor lecturer ' +
    'nurse doctor physician surgeon lawyer attorney accountant editor writer journalist reporter chef barista pharmacist therapist counselor ' +
    'recruiter intern executive officer president vp founder cofounder co-founder administrator technician mechanic electrician plumber carpenter pilot ' +
    'firefighter paramedic librarian principal coach trainer marketer clerk cashier waiter waitress bartender student postdoc dentist ' +
    'veterinarian vet photographer freelancer contractor specialist coordinator supervisor partner associate ceo cto cfo coo sre pm').split(' '),
);
/** Words a job title may start with although compromise calls them adjectives. */
const JOB_MODIFIERS = new Set(['senior', 'junior', 'lead', 'principal', 'staff', 'chief', 'head', 'associate', 'assistant', 'deputy', 'executive', 'new', 'full-time', 'part-time', 'freelance', 'general', 'managing', 'technical', 'medical', 'financial', 'legal', 'creative', 'clinical']);

/** A job title from `at` ("a senior engineer", "staff software engineer"), or null. */
function roleAt(terms: readonly Term[], at: number): string | null {
  let i = at;
  while (['a', 'an', 'the', 'now', 'officially'].includes(terms[i]?.word ?? '')) i++;
  const words: Term[] = [];
  for (; i < terms.length && words.length < 5; i++) {
    const t = terms[i]!;
    const titleWord = JOB_MODIFIERS.has(t.word) || JOB_HEADS.has(t.word);
    if (!titleWord && (t.tags.has('Preposition') || t.tags.has('Conjunction') || t.tags.has('Verb') || t.tags.has('Determiner') || t.word === 'now')) break;
    words.push(t);
    // a title ends at its job word ("staff engineer last month"), unless another follows ("lead designer")
    if (t.stop || (JOB_HEADS.has(t.word) && !JOB_HEADS.has(terms[i + 1]?.word ?? ''))) break;
  }
  const head = words.at(-1);
  if (head === undefined || !JOB_HEADS.has(head.word)) return null;
  for (const w of words.slice(0, -1)) if (w.tags.has('Adjective') && !JOB_MODIFIERS.has(w.word)) return null;
  return words.map((w) => w.text).join(' ').replace(/^new\s+/i, '');
}

// ---- the readings -------------------------------------------------------------------------------------

interface Reading {
  holder: Holder;
  subject: string;
  value: string;
  sure: boolean;
  /** Where the cue stands in the clause: the hedges and plans before it are looked for up to there. */
  at: number;
}

const index = (terms: readonly Term[], words: readonly string[], from = 0): number => terms.findIndex((t, i) => i >= from && words.includes(t.word));

/** Present "live(s)/living in", "have lived in"; past "moved/relocated to". */
function homeCity(terms: readonly Term[]): Reading | null {
  const at = index(terms, ['live', 'lives', 'living', 'lived', 'moved', 'relocated', 'based', 'home']);
  if (at < 0) return null;
  const verb = terms[at]!;
  if (verb.word === 'home') {
    // "my home is (now) in Lisbon", "Ana's home is in Oslo"
    const owner = terms[at - 1];
    if (terms[at + 1]?.word !== 'is' || owner === undefined) return null;
    let v = at + 2;
    while (ADVERBS.has(terms[v]?.word ?? '')) v++;
    if (terms[v]?.word !== 'in') return null;
    const place = nameAt(terms, v + 1);
    const holder = possessor(terms, at - 1);
    return place === null || holder === null ? null : { holder, subject: 'home city', value: place.value, sure: true, at };
  }
  const group = verbBefore(terms, at);
  if (group === null) return null;
  const perfect = group.before.some((w) => ['have', 'has'].includes(w));
  const progressive = group.before.some((w) => ['am', 'is', 'are', 'been'].includes(w));
  let next = at + 1;
  if (verb.word === 'based') {
    if (!progressive) return null;
    if (terms[next]?.word === 'out' && terms[next + 1]?.word === 'of') next++;
  } else if (verb.word === 'lived') {
    if (!perfect) return null; // "I lived in Paris" is over; "I've lived in Lisbon for years" is not
  } else if (verb.word === 'living') {
    if (!progressive) return null;
  } else if (verb.word === 'moved' || verb.word === 'relocated') {
    if (group.before.includes('is') || group.before.includes('am') || group.before.includes('are')) return null;
    // "moved back to", "moved from Berlin to", "moved here to": the destination follows "to"
    const to = index(terms, ['to'], next);
    if (to < 0 || to > next + 4) return null;
    for (let i = next; i < to; i++) if (terms[i]!.stop) return null;
    next = to;
  }
  const prep = terms[next]?.word;
  if (!(prep === 'in' || prep === 'to' || prep === 'of')) return null;
  const place = nameAt(terms, next + 1);
  if (place === null) return null;
  const rest = terms.slice(place.end).map((t) => t.text).join(' ');
  const longAgo = (verb.word === 'moved' || verb.word === 'relocated') && LONG_AGO_RE.test(rest);
  return { holder: group.holder, subject: 'home city', value: place.value, sure: !longAgo, at };
}

/** "works at/for Acme", "joined Acme as …", "started at Acme"; "left/quit Acme" ends it. */
function employer(terms: readonly Term[]): Reading | null {
  const at = index(terms, ['work', 'works', 'working', 'worked', 'joined', 'started', 'hired', 'left', 'quit', 'employer', 'company']);
  if (at < 0) return null;
  const verb = terms[at]!;
  if (verb.word === 'employer' || verb.word === 'company') return myNounIs(terms, at, 'employer', (v) => nameAt(terms, v)?.value ?? null);
  const group = verbBefore(terms, at);
  if (group === null) return null;
  const perfect = group.before.some((w) => ['have', 'has'].includes(w));
  const progressive = group.before.some((w) => ['am', 'is', 'are', 'been'].includes(w));
  let next = at + 1;
  switch (verb.word) {
    case 'work':
    case 'works':
    case 'working':
    case 'worked': {
      if (verb.word === 'working' && !progressive) return null;
      if (verb.word === 'worked' && !perfect) return null;
      if (terms[next]?.word === 'as') {
        // "I work as a designer at Acme": the employer when named, else the role
        const role = roleAt(terms, next + 1);
        const at2 = index(terms, ['at', 'for'], next + 1);
        const org = at2 < 0 ? null : nameAt(terms, at2 + 1);
        if (org !== null) return { holder: group.holder, subject: 'employer', value: org.value, sure: true, at };
        return role === null ? null : { holder: group.holder, subject: 'role', value: role, sure: true, at };
      }
      if (!['at', 'for'].includes(terms[next]?.word ?? '')) return null;
      const org = nameAt(terms, next + 1);
      return org === null ? null : { holder: group.holder, subject: 'employer', value: org.value, sure: true, at };
    }
    case 'hired': {
      // "I got hired at/by Acme", "I was hired by Acme" (was is read as past: only "got")
      if (!group.before.includes('got') && !group.before.includes('been')) return null;
      if (!['at', 'by'].includes(terms[next]?.word ?? '')) return null;
      const org = nameAt(terms, next + 1);
      return org === null ? null : { holder: group.holder, subject: 'employer', value: org.value, sure: true, at };
    }
    case 'started': {
      // "started at Acme", "started working at Acme", "started a new job at Acme"
      if (terms[next]?.word === 'working') next++;
      else if (['a', 'my'].includes(terms[next]?.word ?? '')) {
        const job = index(terms, ['job', 'position', 'role'], next);
        if (job < 0 || job > next + 3) return null;
        next = job + 1;
      }
      if (!['at', 'with'].includes(terms[next]?.word ?? '')) return null;
      const org = nameAt(terms, next + 1);
      return org === null ? null : { holder: group.holder, subject: 'employer', value: org.value, sure: true, at };
    }
    case 'joined': {
      const org = nameAt(terms, next);
      if (org === null) return null;
      // "joined Acme as a designer" or a known organization: a job; else it may be a club or a team
      const asRole = terms[org.end]?.word === 'as' && roleAt(terms, org.end + 1) !== null;
      const organization = terms[next]!.tags.has('Organization');
      return { holder: group.holder, subject: 'employer', value: org.value, sure: asRole || organization, at };
    }
    default: {
      // left / quit: "left Acme", "quit my job (at Acme)", "left my IT job"
      if (terms[next]?.word === 'my' || terms[next]?.word === 'our') {
        const job = index(terms, ['job', 'position', 'role'], next);
        if (job < 0 || job > next + 3) return null;
        const phrase = terms.slice(next, job + 1).map((t) => t.text).join(' ');
        const org = ['at', 'with'].includes(terms[job + 1]?.word ?? '') ? nameAt(terms, job + 2) : null;
        return { holder: group.holder, subject: 'employer', value: `none (${verb.word} ${org === null ? phrase : `${phrase} at ${org.value}`})`, sure: true, at };
      }
      const org = nameAt(terms, next);
      if (org === null) return null;
      // "left Lisbon" is a place; "left Acme" a job only when compromise knows it as an organization
      if (terms[next]!.tags.has('Place')) return null;
      const organization = terms[next]!.tags.has('Organization');
      return { holder: group.holder, subject: 'employer', value: `none (left ${org.value})`, sure: organization, at };
    }
  }
}

/** "I'm a senior engineer now", "promoted to staff engineer", "my role is …", "I work as a …". */
function role(terms: readonly Term[]): Reading | null {
  const promoted = index(terms, ['promoted']);
  if (promoted >= 0) {
    const group = verbBefore(terms, promoted, ['was', 'were']);
    if (group === null || terms[promoted + 1]?.word !== 'to') return null;
    const title = roleAt(terms, promoted + 2);
    return title === null ? null : { holder: group.holder, subject: 'role', value: title, sure: true, at: promoted };
  }
  const noun = index(terms, ['role', 'title']);
  if (noun >= 0) return myNounIs(terms, noun, 'role', (v) => roleAt(terms, v));
  const work = index(terms, ['work', 'works', 'working']);
  if (work >= 0 && terms[work + 1]?.word === 'as') return employer(terms);
  // a copula then a job title: "I'm a nurse", "Ana is now a senior designer"
  const copula = terms.findIndex((t) => t.tags.has('Copula') && ['am', 'is', 'are'].includes(t.word));
  if (copula < 0) return null;
  const group = verbBefore(terms, copula);
  if (group === null) return null;
  let v = copula + 1;
  while (ADVERBS.has(terms[v]?.word ?? '')) v++;
  if (!['a', 'an'].includes(terms[v]?.word ?? '')) return null;
  const title = roleAt(terms, v);
  if (title === null) return null;
  // "I'm a student at Oslo University" stands; "I'm a teacher's aid" would not reach here
  return { holder: group.holder, subject: 'role', value: title, sure: true, at: copula };
}

const MANAGER_NOUNS = ['manager', 'boss', 'supervisor'];
const PARTNER_NOUNS = ['partner', 'wife', 'husband', 'girlfriend', 'boyfriend', 'fiance', 'fiancé', 'fiancee', 'fiancée', 'spouse'];

/** "my manager is Dana", "Dana is my manager", "I report to Dana". */
function manager(terms: readonly Term[]): Reading | null {
  const report = index(terms, ['report', 'reports', 'reporting']);
  if (report >= 0 && terms[report + 1]?.word === 'to') {
    const group = verbBefore(terms, report);
    const name = nameAt(terms, report + 2, 3, true);
    if (group === null || name === null) return null;
    if (terms[report]!.word === 'reporting' && !group.before.some((w) => ['am', 'is', 'are', 'been'].includes(w))) return null;
    return { holder: group.holder, subject: 'manager', value: name.value, sure: true, at: report };
  }
  return personNoun(terms, MANAGER_NOUNS, 'manager');
}

/** "my wife is Sofia", "Sam is my boyfriend", "I married Tom", "I broke up with Sam" (an ending). */
function partner(terms: readonly Term[]): Reading | null {
  const verb = index(terms, ['married', 'engaged', 'dating', 'broke', 'split', 'divorced']);
  if (verb >= 0) {
    const w = terms[verb]!.word;
    const group = verbBefore(terms, verb);
    if (group === null) return null;
    let holder = group.holder;
    // "Sam and I broke up", "Tom and I got married": the holder is "I", the partner the name before
    let named: string | null = null;
    if (holder.kind === 'self' && terms[verb - 1 - group.before.length]?.word === 'i' && terms[verb - 2 - group.before.length]?.word === 'and') {
      named = nameAt(terms, verb - 3 - group.before.length, 1)?.value ?? null;
    }
    if (holder.kind === 'self' && terms[verb - 1 - group.before.length]?.word === 'we') holder = { kind: 'other' }; // "we got married": to whom?
    let next = verb + 1;
    if (w === 'broke' || w === 'split') {
      if (terms[next]?.word !== 'up') return null;
      next++;
    }
    if (['to', 'with'].includes(terms[next]?.word ?? '')) next++;
    const name = named ?? nameAt(terms, next, 3, true)?.value ?? null;
    if (name === null) return null;
    const ending = w === 'broke' || w === 'split' || w === 'divorced';
    if (w === 'dating' && !group.before.some((b) => ['am', 'is', 'are', 'been'].includes(b))) return null;
    if (w === 'engaged' && !group.before.some((b) => ['am', 'is', 'are', 'got', 'get'].includes(b))) return null;
    const value = ending ? `none (${w === 'divorced' ? 'divorced' : `${w} up with`} ${name})` : name;
    return { holder, subject: 'partner', value, sure: true, at: verb };
  }
  return personNoun(terms, PARTNER_NOUNS, 'partner');
}

/** "my <noun> is Name", "Name is my <noun>", "Ana's <noun> is Name". */
function personNoun(terms: readonly Term[], nouns: readonly string[], subject: string): Reading | null {
  const at = index(terms, nouns);
  if (at < 0) return null;
  let owner = at - 1;
  while (['new', 'current', 'direct'].includes(terms[owner]?.word ?? '')) owner--;
  // "Name is my manager"
  if (terms[owner]?.word === 'my' && terms[owner - 1]?.word === 'is' && owner - 2 >= 0) {
    const group = verbBefore(terms, owner - 1);
    if (group === null || group.holder.kind !== 'name' || (terms[at + 1] !== undefined && !terms[at]!.stop && !['now', 'too'].includes(terms[at + 1]!.word))) return null;
    return { holder: { kind: 'self' }, subject, value: group.holder.name, sure: true, at };
  }
  return myNounIs(terms, at, subject, (v) => {
    const name = nameAt(terms, v, 3, true);
    return name === null || terms[name.end]?.word === 'and' ? null : name.value;
  });
}

/** Who owns the noun at `at`: "my" (self), "Ana's" (Ana), else null. */
function possessor(terms: readonly Term[], at: number): Holder | null {
  let i = at;
  while (['new', 'current', 'direct', 'mobile', 'main', 'daily', 'primary', 'email'].includes(terms[i]?.word ?? '')) i--;
  const t = terms[i];
  if (t === undefined) return null;
  if (t.word === 'my' || t.word === 'our') {
    const before = terms[i - 1];
    // "one of my …", "that my …": not a statement about the noun
    if (before !== undefined && !['and', 'but', 'so', 'now', 'also', 'oh'].includes(before.word) && !before.stop) return null;
    return { kind: 'self' };
  }
  if (/['’]s$/u.test(t.text) || (t.tags.has('Possessive') && t.named)) {
    const name = t.text.replace(/['’]s$/u, '');
    return /^\p{Lu}/u.test(name) && !NOT_NAMES.has(name.toLowerCase()) ? { kind: 'name', name } : null;
  }
  return null;
}

/** "my <noun> is <value>" (a present copula, no negation), the value read by `read` from after the copula. */
function myNounIs(terms: readonly Term[], at: number, subject: string, read: (from: number) => string | null): Reading | null {
  const holder = possessor(terms, at - 1);
  if (holder === null) return null;
  let v = at + 1;
  if (terms[v]?.word !== 'is') return null;
  v++;
  while (['now', 'officially', 'currently', 'still'].includes(terms[v]?.word ?? '')) v++;
  if (terms[v]?.tags.has('Negative')) return null;
  const value = read(v);
  return value === null ? null : { holder, subject, value, sure: true, at };
}

const DIETS = new Set(['vegetarian', 'vegan', 'pescatarian', 'pescetarian']);

/** "I'm vegetarian (now)", "went vegan", "no longer vegetarian" (an ending), "stopped eating meat", "eat meat again". */
function diet(terms: readonly Term[]): Reading | null {
  const meat = index(terms, ['meat']);
  if (meat >= 0) {
    const eat = terms[meat - 1];
    if (eat === undefined || !['eat', 'eats', 'eating'].includes(eat.word)) return null;
    const text = terms.map((t) => t.word).join(' ');
    let i = meat - 1;
    const stopped = terms[i - 1]?.word === 'stopped' || terms[i - 1]?.word === 'quit';
    if (stopped) i--;
    const again = terms[meat + 1]?.word === 'again';
    const negated = /\b(?:not|n't|never)\b/.test(text) || terms.some((t) => t.tags.has('Negative'));
    // "I don't eat meat" says a diet; "I don't eat meat on Fridays" only a habit
    const plainly = negated && (meat === terms.length - 1 || terms[meat]!.stop || ['anymore', 'any', 'now', 'at'].includes(terms[meat + 1]?.word ?? ''));
    const noLonger = /\bno longer\b/.test(text) || plainly;
    // "no longer eat meat" / "stopped eating meat": read past the negation the verb group would refuse
    const start = terms.findIndex((t) => ['no', 'not', 'don', 'do'].includes(t.word));
    const group = verbBefore(terms, stopped || (!noLonger && !again) ? i : start < 0 ? i : start);
    if (group === null && !noLonger) return null;
    const holder = group?.holder ?? holderBefore(terms, start);
    if (holder === null) return null;
    if (stopped || noLonger) return { holder, subject: 'diet', value: 'vegetarian', sure: true, at: meat };
    if (again) return { holder, subject: 'diet', value: 'eats meat', sure: true, at: meat };
    return null;
  }
  const at = terms.findIndex((t) => DIETS.has(t.word));
  if (at < 0) return null;
  const next = terms[at + 1];
  // "vegan ice cream", "a vegan chef": the word describes something else
  if (next !== undefined && !terms[at]!.stop && (next.tags.has('Noun') || next.tags.has('Actor')) && !['now', 'anymore', 'again'].includes(next.word)) return null;
  let i = at - 1;
  while (['a', 'fully', 'strictly', 'mostly', 'now', 'officially', 'completely', 'full', 'totally'].includes(terms[i]?.word ?? '')) i--;
  const verb = terms[i];
  if (verb === undefined) return null;
  const name = terms[at]!.word === 'pescetarian' ? 'pescatarian' : terms[at]!.word;
  // "no longer vegetarian", "not vegan anymore"
  const no = verb.word === 'longer' && terms[i - 1]?.word === 'no';
  const notAnymore = verb.tags.has('Negative') && ['anymore', 'any'].includes(next?.word ?? '');
  if (no || notAnymore) {
    const copula = no ? i - 2 : i - 1;
    if (!['am', 'is', 'are'].includes(terms[copula]?.word ?? '')) return null;
    const holder = holderBefore(terms, copula);
    return holder === null ? null : { holder, subject: 'diet', value: `none (no longer ${name})`, sure: true, at };
  }
  if (['am', 'is', 'are'].includes(verb.word) || ['went', 'gone', 'become', 'became', 'turned', 'been'].includes(verb.word)) {
    if (['gone', 'been'].includes(verb.word) && !['have', 'has'].includes(terms[i - 1]?.word ?? '')) return null;
    const group = verbBefore(terms, i);
    return group === null ? null : { holder: group.holder, subject: 'diet', value: name, sure: true, at };
  }
  return null;
}

/** The holder of a clause whose verb group verbBefore would refuse (a negation that is the news). */
function holderBefore(terms: readonly Term[], at: number): Holder | null {
  const t = terms[at - 1];
  if (t === undefined) return { kind: 'inherit' };
  if (SELF.has(t.word)) return { kind: 'self' };
  if (t.named && !NOT_NAMES.has(t.word) && !t.tags.has('Pronoun')) return { kind: 'name', name: t.text.replace(/['’]s$/u, '') };
  return null;
}

const PET_KINDS: Record<string, string> = {
  dog: 'dog', puppy: 'dog', pup: 'dog', cat: 'cat', kitten: 'cat', rabbit: 'rabbit', bunny: 'rabbit', hamster: 'hamster', parrot: 'parrot',
  bird: 'bird', turtle: 'turtle', tortoise: 'tortoise', snake: 'snake', horse: 'horse', lizard: 'lizard', ferret: 'ferret', fish: 'fish',
};

/** A pet by its name, so pets accumulate: "adopted a cat named Miso" is `pet Miso: cat`; "my dog Rex died" ends `pet Rex`. */
function pet(terms: readonly Term[]): Reading | null {
  const kindAt = terms.findIndex((t) => PET_KINDS[t.word] !== undefined);
  const died = index(terms, ['died', 'passed']);
  if (died >= 0 && (terms[died]!.word === 'died' || terms[died + 1]?.word === 'away')) {
    // "my dog Rex died" (sure), "Rex died" (a pet? a person?)
    const name = terms[died - 1];
    if (name === undefined || !name.named || NOT_NAMES.has(name.word) || name.tags.has('Pronoun')) return null;
    const kind = kindAt >= 0 && kindAt === died - 2 ? PET_KINDS[terms[kindAt]!.word]! : null;
    const holder = kind === null ? { kind: 'self' as const } : possessor(terms, kindAt - 1);
    if (holder === null) return null;
    return { holder, subject: `pet ${name.text}`, value: `none (${name.text} died)`, sure: kind !== null, at: died };
  }
  if (kindAt < 0) return null;
  const named = terms[kindAt + 1];
  if (named === undefined || !['named', 'called'].includes(named.word)) return null;
  const name = nameAt(terms, kindAt + 2, 2);
  if (name === null) return null;
  const verb = index(terms, ['have', 'has', 'got', 'adopted', 'rescued', 'bought', 'welcomed', 'adopt']);
  if (verb < 0 || verb > kindAt) return null;
  const group = verbBefore(terms, verb);
  if (group === null || terms[verb]!.word === 'adopt') return null;
  return { holder: group.holder, subject: `pet ${name.value}`, value: PET_KINDS[terms[kindAt]!.word]!, sure: true, at: verb };
}

/** "my <thing> is <name>" for the things one has one of at a time. */
const THINGS: Record<string, string> = {
  phone: 'phone', car: 'car', bank: 'bank', gym: 'gym', laptop: 'laptop', dentist: 'dentist', doctor: 'doctor', therapist: 'therapist',
  email: 'email provider', provider: 'email provider', carrier: 'phone carrier',
};
/** Brands that say what a switch was of ("I switched to Fastmail"). */
const BRANDS: Record<string, string> = {
  fastmail: 'email provider', gmail: 'email provider', protonmail: 'email provider', proton: 'email provider', outlook: 'email provider', hey: 'email provider', icloud: 'email provider', tutanota: 'email provider',
  iphone: 'phone', pixel: 'phone', galaxy: 'phone', oneplus: 'phone', fairphone: 'phone',
  monzo: 'bank', revolut: 'bank', n26: 'bank', chase: 'bank', wise: 'bank', barclays: 'bank', hsbc: 'bank', ing: 'bank', starling: 'bank',
  tesla: 'car', toyota: 'car', volvo: 'car', honda: 'car', bmw: 'car', volkswagen: 'car', subaru: 'car', kia: 'car', hyundai: 'car',
  macbook: 'laptop', thinkpad: 'laptop',
};
/** "switched banks/phones/gyms", "switched my bank": what was switched. */
const SWITCHED: Record<string, string> = { bank: 'bank', banks: 'bank', phone: 'phone', phones: 'phone', gym: 'gym', gyms: 'gym', car: 'car', cars: 'car', laptop: 'laptop', laptops: 'laptop', email: 'email provider', provider: 'email provider', providers: 'email provider' };

function thing(terms: readonly Term[]): Reading | null {
  const switched = index(terms, ['switched']);
  if (switched >= 0) {
    const group = verbBefore(terms, switched);
    if (group === null) return null;
    const to = index(terms, ['to'], switched + 1);
    if (to < 0 || to > switched + 6) return null;
    const value = thingAt(terms, to + 1);
    if (value === null) return null;
    const between = terms.slice(switched + 1, to).map((t) => SWITCHED[t.word]).find((s) => s !== undefined);
    const after = terms.slice(to + 1).find((t, i) => t.word === 'for' && SWITCHED[terms[to + 2 + i]?.word ?? ''] !== undefined);
    const forWhat = after === undefined ? undefined : SWITCHED[terms[terms.indexOf(after) + 1]!.word];
    const brand = BRANDS[normalizeText(value).split(' ')[0]!];
    const subject = between ?? forWhat ?? brand;
    return subject === undefined ? null : { holder: group.holder, subject, value, sure: true, at: switched };
  }
  const drive = index(terms, ['drive', 'drives']);
  if (drive >= 0 && ['a', 'an'].includes(terms[drive + 1]?.word ?? '')) {
    const group = verbBefore(terms, drive);
    const value = thingAt(terms, drive + 1);
    return group === null || value === null || BRANDS[normalizeText(value).split(' ').find((w) => BRANDS[w] === 'car') ?? ''] === undefined
      ? null
      : { holder: group.holder, subject: 'car', value, sure: true, at: drive };
  }
  const bank = index(terms, ['bank', 'banks']);
  if (bank >= 0 && terms[bank + 1]?.word === 'with' && terms[bank]!.tags.has('Verb')) {
    const group = verbBefore(terms, bank);
    const value = nameAt(terms, bank + 2, 3);
    return group === null || value === null ? null : { holder: group.holder, subject: 'bank', value: value.value, sure: true, at: bank };
  }
  const at = terms.findIndex((t, i) => THINGS[t.word] !== undefined && terms[i + 1]?.word === 'is');
  if (at < 0 || (terms[at]!.word === 'provider' && terms[at - 1]?.word !== 'email')) return null;
  return myNounIs(terms, at, THINGS[terms[at]!.word]!, (v) => thingAt(terms, v));
}

/** The readers, most specific first: a clause yields the first reading. */
const READERS = [pet, partner, manager, diet, homeCity, employer, role, thing];

// ---- the text -----------------------------------------------------------------------------------------

/** Sentences: ends at . ! ? followed by space and not after a one-letter or title abbreviation. */
function sentencesOf(text: string): string[] {
  return text.split(/(?<=(?<!\b(?:Dr|Mr|Mrs|Ms|St|Jr|Sr|[A-Z]))[.!?])\s+|\n+/u).filter((s) => s.trim() !== '');
}

/** Clauses of a sentence: cut at semicolons, dashes, and at "and"/"but"/commas before a verb phrase's holder or verb. */
function clausesOf(sentence: string): string[] {
  return sentence.split(/\s*[;—–]\s*|\s+-\s+|,\s+(?=(?:and|but|so|then|now)\s)|(?<!^\s*\p{Lu}[\p{L}'’-]*)\s+(?=(?:and|but)\s+(?:I|we|she|he|they|[a-z]+s|just|now|recently|moved|joined|started|left|quit|lives|works)\b)/u).filter((c) => c.trim() !== '');
}

/** A clause's reading and the words before its cue, by the clause's text; cleared when it outgrows a vault's repeats. */
const readings = new Map<string, { reading: Reading; own: string } | null>();
const MEMO_LIMIT = 20_000;

/** The first reading of a clause, unless the words before its cue make it a plan, a wish or a condition. */
function clauseReading(clause: string): { reading: Reading; own: string } | null {
  let read = readings.get(clause);
  if (read !== undefined) return read;
  read = null;
  const terms = termsOf(clause);
  for (const reader of READERS) {
    const reading = reader(terms);
    if (reading === null) continue;
    const own = terms.slice(0, reading.at).map((t) => t.text).join(' ');
    if (!HYPOTHETICAL_RE.test(own.replace(/\bMay\b/g, ''))) read = { reading, own }; // "May": the month, not the modal
    break;
  }
  if (readings.size >= MEMO_LIMIT) readings.clear();
  readings.set(clause, read);
  return read;
}

/**
 * False when `readStateChange` returns null without reading (no cue phrase): the indexer keeps the readings of
 * the cued texts only (indexer/state-readings.ts), most facts being cheap to read again.
 */
export function stateChangeCued(text: string): boolean {
  return CUE_RE.test(text);
}

/**
 * The change of state a text states, or null. A speaker's label (`Caroline: …`) or `ctx.speaker` makes
 * the first person that speaker; otherwise the first person, an agent's "the user", and a sentence with no
 * subject ("Moved to Oslo") are the vault's owner.
 */
export function readStateChange(text: string, ctx: { speaker?: string | null } = {}): StateChange | null {
  if (!CUE_RE.test(text)) return null; // most facts: one regular expression, and nothing loaded
  let body = text.trim();
  let speaker = ctx.speaker ?? null;
  const label = SPEAKER_RE.exec(body);
  if (label !== null) {
    body = body.slice(label[0].length);
    if (ctx.speaker === undefined) speaker = label[1]!;
  }
  let unsure: StateChange | null = null;
  for (const sentence of sentencesOf(body)) {
    if (!CUE_RE.test(sentence) || /\?\s*["')\]]*\s*$/.test(sentence)) continue; // a question asks, it does not tell
    if (/^\s*(?:do|does|did|are|is|have|has|will|would|could|can|should|were|was)\s+(?:you|i|we|he|she|they)\b/i.test(sentence)) continue;
    const clauses = clausesOf(sentence);
    let inherited: Holder | undefined;
    for (const [n, clause] of clauses.entries()) {
      if (!CUE_RE.test(clause)) continue;
      const read = clauseReading(clause);
      if (read === null) continue;
      const { reading, own } = read;
      let holder = reading.holder;
      if (holder.kind === 'inherit') holder = n === 0 ? { kind: 'self' } : (inherited ??= sentenceHolder(clauses[0]!));
      if (holder.kind === 'other' || holder.kind === 'inherit') continue;
      const name = holder.kind === 'self' ? speaker : holder.name;
      const subject = name === null ? reading.subject : `${name}'s ${reading.subject}`;
      const hedged = HEDGE_RE.test(`${clauses.slice(0, n).join(' ')} ${own}`);
      const change: StateChange = { subject, key: normalizeText(subject), value: reading.value.trim(), holder: name, sure: reading.sure && !hedged };
      if (change.sure) return change;
      unsure ??= change;
    }
  }
  return unsure;
}

/**
 * Words a question about a subject uses that a statement of its change may lack ("where do I live" of "I
 * moved to Lisbon"): the indexer adds them to the fact's terms, as a keyed fact holds its subject's words.
 */
export function subjectWords(change: StateChange): string {
  const base = change.holder === null ? change.subject : change.subject.slice(change.holder.length + 3);
  return `${change.subject} ${ASKED_WITH[base] ?? (base.startsWith('pet ') ? 'pet' : '')}`.trim();
}

const ASKED_WITH: Record<string, string> = {
  'home city': 'live lives living',
  employer: 'work works job company',
  role: 'job work title position',
  manager: 'boss report',
  partner: 'relationship married',
  diet: 'eat food',
};
