/**
 * A fact written as a statement that stands alone on a page: "Caroline: Hey Mel! I went to a LGBTQ
 * support group yesterday and it was so powerful." said on 2023-05-08 becomes "Caroline went to a LGBTQ
 * support group on 7 May 2023 and it was so powerful." The page line keeps its citation, so the wording
 * as said stays one click away.
 * - a speaker label (`Caroline: `) is stripped and its name becomes who "I" is (else the vault owner's);
 * - greetings, vocatives and interjections are stripped at the start and end of each sentence;
 * - first person becomes the name ("I'm" → "Caroline is", "my" → "Caroline's"), verbs agreeing by
 *   compromise's conjugation; "you" becomes the listener's name where it is clearly the one addressed;
 * - relative times are resolved against the fact's date (relative-dates.ts);
 * - a turn with nothing durable (greetings, thanks, reactions, small talk, questions) is marked chatter,
 *   and a sentence of that kind is dropped from a turn that also says something.
 * compromise (an offline NLP library) splits sentences and contractions and tags words; its full tagger
 * costs milliseconds per sentence, so words are tagged one at a time, in the context they need, and
 * cached. Pure and deterministic: the same text and context give the same statement.
 */
import { keyedSubject } from '../text/keyed.js';
import { compromise } from '../text/nlp.js';
import { speakerOf } from './entities.js';
import { createRelativeDateResolver, type Chrono, type RelativeDateResolver, type ResolvedTime } from '../text/relative-dates.js';

export interface StatementContext {
  /** The fact's log date, YYYY-MM-DD: relative times resolve against it. */
  date: string;
  /** The vault owner's name: who "I" is when the text has no speaker label (null: first person stays). */
  owner: string | null;
  /** The other party of a two-person exchange (who "you" is), when known; null: "you" stays. */
  listener: string | null;
}

export interface Statement {
  /** The statement, standing alone; for chatter, the turn as said without its label. */
  text: string;
  /** The name from a leading `Name: ` speaker label, if any. */
  speaker: string | null;
  /** Whom the first person was resolved to (speaker, else owner), or null. */
  about: string | null;
  /** Nothing durable: greeting, thanks, farewell, bare reaction, small talk, or only a question. */
  chatter: boolean;
  /** The turn asks rather than states. */
  question: boolean;
  /** Each relative time and what it became. */
  dates: ResolvedTime[];
}

export type StatementWriter = (text: string, ctx: StatementContext) => Statement;

/** The parts of compromise this module calls. */
interface Term {
  text: string;
  pre: string;
  post: string;
  normal: string;
  implicit?: string;
  tags?: Set<string>;
}
interface Doc {
  docs: Term[][];
  verbs(): { conjugate(): Array<Partial<Record<'PresentTense' | 'PastTense' | 'Infinitive', string>>> };
}
interface World {
  model: { one: { lexicon: Record<string, string | string[] | undefined>; tagSet: Record<string, { parents?: string[]; also?: string[] } | undefined> } };
}
type Nlp = ((text: string) => Doc) & { tokenize(text: string): Doc; world(): World };

/** A word of a sentence; `text` is '' for a word a contraction implies ("am" in "I'm"). */
interface Tok {
  text: string;
  pre: string;
  post: string;
  /** Lower case, the implied word for a contraction's parts ("i", "am"). */
  word: string;
  implied: boolean;
}

const NAME = String.raw`\p{Lu}[\p{L}\p{M}'’-]*`;
const LABEL_RE = new RegExp(String.raw`^(${NAME}(?: ${NAME})?):\s+(?!:)`, 'u');

/** Interjections stripped wherever they open (or close) a sentence. */
const STRONG = new Set(
  'hey hi hello heya hiya howdy yo wow whoa woah oh ooh ohh ah ahh aw aww awww yeah yea yeh yep yup haha hahaha hah hehe lol lmao omg gosh geez jeez um umm uh hmm hmmm phew ugh yay woohoo wowza yum yummy'.split(' '),
);
/** Words stripped at the start only when punctuation follows them ("Well, …", "Thanks, Mel!"). */
const WEAK = new Set(
  'yes no nope ok okay well so sure right true cool great awesome nice sweet totally absolutely definitely exactly indeed anyway anyways alright congrats congratulations thanks thx ty cheers anytime agreed sorry honestly seriously btw actually aha ahh hooray bravo perfect'.split(' '),
);
/** Words by which a person is addressed. */
const VOCATIVE_WORDS = new Set('man dude girl buddy bro friend guys everyone all mate pal babe hun dear sis fam folks'.split(' '));

/** Whole sentences that say nothing durable. */
const WHOLE_CHATTER = new RegExp(
  `^(?:${[
    'later',
    'same',
    'me too',
    'me neither',
    'you too',
    'likewise',
    'of course',
    'for sure',
    'exactly',
    'totally',
    'absolutely',
    'definitely',
    'indeed',
    'true',
    'right',
    'agreed',
    'i know',
    'i see',
    'i bet',
    'i hear you',
    'i feel you',
    'i understand',
    'i know right',
    '(?:i )?(?:\\w+ )?agree(?:d)?(?: with you)?(?: more)?',
    "i couldn'?t agree more",
    "i (?:have|gotta|got|need) to (?:go|run|head out|get going|sign off)(?: now)?",
    'i love it',
    'i love that',
    'love it',
    'love that',
    'loved it',
    'loving it',
    'not bad',
    'gotcha',
    'take a look(?: at (?:this|that|these|it))?',
    'check (?:it|this|that|these) out',
    'look at (?:this|that|these)',
    'go get (?:em|them)',
    "i (?:totally |completely |really )?(?:get|understand) (?:it|that|you)",
    'not (?:really|recently|yet|much|lately|sure|at all)',
    '(?:yes |yeah |yep |oh |it )?(?:it|that|they|you|this) (?:really |sure |totally |definitely |truly |certainly )?(?:is|was|are|were|does|did|do|can|will|has|have)(?: indeed)?',
    '(?:it|that|this) (?:sure |really )?(?:is|was)(?: so| really| very)? true',
    'no worries',
    'will do',
    'sure thing',
    'good idea',
    'great idea',
    'why not',
    'fair enough',
    'all good',
    'good to know',
    'nice',
    'cool',
    'awesome',
    'great',
  ].join('|')})$`,
);
/** Sentences that open a formula of greeting, thanks, farewell or reaction: chatter unless "I"/"we" says more. */
const PREFIX_CHATTER = new RegExp(
  `^(?:${[
    'thanks?(?: you| u| so much| a lot| again)?',
    'many thanks',
    'thx',
    'appreciate (?:it|that|you|your|the)',
    'i appreciate (?:it|that|you|your|the)',
    'bye',
    'goodbye',
    'good ?night',
    'see (?:you|ya|u)',
    'catch (?:you|ya|u)',
    '(?:talk|chat|speak) (?:soon|later|to you|to ya|again)',
    'you too',
    'ttyl',
    'take care',
    'take it easy',
    'stay (?:safe|strong|positive|tuned)',
    'have (?:a|an) (?:good|great|nice|fun|lovely|wonderful|amazing|awesome|fantastic|blast|safe)',
    'have fun',
    'enjoy',
    'good luck',
    'best of luck',
    'congrats',
    'congratulations',
    'welcome',
    "you're welcome",
    'no (?:problem|worries|prob)',
    'anytime',
    'cheers',
    '(?:i am |im |i\'m )?(?:so |really |super )?(?:glad|happy|thrilled|stoked) (?:to hear|you|that|it|for you)',
    '(?:it\'s |its )?(?:so |really )?(?:great|nice|good|lovely|awesome) (?:to|2) (?:hear|see|meet|talk|chat|catch)',
    '(?:i am |im |i\'m )?(?:so )?sorry (?:to hear|about|for your)',
    'long time no',
    "(?:it was |it's |its |was )?(?:so |really )?(?:great|nice|good|lovely|fun|awesome) (?:talking|chatting|catching up|seeing|hearing|speaking)",
    'miss you',
    'love you',
    'same (?:here|to you|for me|with me)',
    'well done',
    'way to go',
    'good for you',
    '(?:good|great|nice|awesome|amazing) (?:job|work|one)',
    'keep (?:it up|up the|me posted|me updated|us posted|going|at it|rocking|shining|pushing|doing)',
    "(?:you've|you|youve) got this",
    'we got this',
    'you can do (?:it|this)',
    'let me know',
    "(?:i )?can't wait to (?:hear|see)",
    '(?:i )?(?:really )?hope (?:so|you|it|that helps|everything|all)',
    'wishing you',
    'oh no',
    'no way',
    'you deserve',
    'love (?:it|that|this|those|these|the)',
    '(?:it )?(?:sounds|looks|seems) (?:like|good|great|fun|awesome|amazing|lovely|wonderful|interesting|cool|nice|perfect|exciting|fantastic|incredible|intense|tough|hard|rough|beautiful|delicious|so|really|super|pretty)',
  ].join('|')})\\b`,
);
/** At most this many words: a longer exclamation about "that" usually says something ("That's why I quit my job!"). */
const EXCLAIMED_REACTION_WORDS = 6;
/** The words a reaction names what it is about with. */
const DEICTIC_OPENERS = new Set(['that', 'this', 'it', 'they', 'those', 'these', 'thats', 'its']);
/** Words a bare reaction is made of, beside adjectives and adverbs ("That's so cool!", "What a great idea!"). */
const REACTION_WORDS = new Set(
  "that this it it's that's thats its is was be what how so such a an the really very pretty super totally just too and sounds sound looks look seems seem like you your for of to hear see idea news thing things stuff one time day job work pic photo picture pics photos shot view plan experience moment achievement story place spot way fun love lovely wow oh yeah definitely".split(' '),
);
const FIRST_PERSON = new Set(['i', 'me', 'my', 'mine', 'myself', 'we', 'us', 'our', 'ours', 'ourselves']);
/** What follows a clause boundary when the rest of a sentence is a question: "— have you tried it?". */
const QUESTION_STARTS = new Set(
  'what how have has did do does are were is was would could can will any anything who where when why which wanna want right you'.split(' '),
);
/** "you" is generic, not the listener, in a sentence like these. */
const GENERIC_YOU_RE = /\b(?:if|when|whenever|unless|once|until|till) you\b|\byou (?:know|never know|can|could|should|must|might|may|need|have to|gotta|get|just|always|never|see)\b|\bthank you\b|\byou guys\b|\byou all\b/;
/** Adverbs between a subject and its verb that compromise's lexicon does not tag as such. */
const BETWEEN = new Set(['still', 'never', 'just', 'even', 'only', 'already', 'ever', 'kinda', 'sorta', 'truly', 'finally', 'also', 'really', 'actually']);
const MODALS = new Set(['will', 'would', 'can', 'could', 'should', 'shall', 'may', 'might', 'must', 'had', 'did', 'was', 'used', "'ll", "'d"]);
/** Present tense of the verbs "I" and "you" share, and their negations. */
const AGREE: Readonly<Record<string, string>> = { am: 'is', are: 'is', were: 'was', have: 'has', do: 'does', gotta: 'has to', wanna: 'wants to' };
const AGREE_NEGATED: Readonly<Record<string, string>> = { "don't": "doesn't", "haven't": "hasn't", "aren't": "isn't", "weren't": "wasn't", "dont": "doesnt", "havent": "hasnt" };
/** Verbs a subject-less turn starts with that take its speaker as subject ("Gonna continue my edu"). */
const IMPLIED_SUBJECT: Readonly<Record<string, string>> = { gonna: 'is going to', wanna: 'wants to', gotta: 'has to' };
/** Words that open a clause of their own: "Can't wait till Toby and I bond" asks only about "Toby". */
const CLAUSE_OPENERS = new Set('that when while because since until till if after before as so but where who which though although once cause'.split(' '));
/** Feelings a turn states without its subject: "Excited to try this." */
const FEELINGS = new Set('excited glad happy thrilled stoked proud lucky grateful thankful ready busy tired nervous keen pumped psyched blessed curious eager hopeful worried scared relieved'.split(' '));
/** Verbs a turn opens with, subject left out, that are seldom commands: "Love experimenting with spices." */
const STATIVE = new Set('love hope think need wish want reckon'.split(' '));
/** Progressive verbs a turn opens with about its speaker: "Planning a trip there next month." */
const SELF_PROGRESSIVE = new Set('planning thinking hoping trying working heading going looking getting starting learning'.split(' '));
/** "Haven't seen you since": the negated auxiliary as the speaker says it of themselves. */
const NEGATED_START: Readonly<Record<string, string>> = { have: "hasn't", do: "doesn't", am: "isn't" };

type Gender = 'female' | 'male' | null;
type Role = 'subject' | 'object' | 'possessive' | 'owned' | 'reflexive';
const PRONOUNS: Record<'female' | 'male', Record<Role, string>> = {
  female: { subject: 'she', object: 'her', possessive: 'her', owned: 'hers', reflexive: 'herself' },
  male: { subject: 'he', object: 'him', possessive: 'his', owned: 'his', reflexive: 'himself' },
};
const ROLE_OF: Readonly<Record<string, Role>> = { i: 'subject', me: 'object', my: 'possessive', mine: 'owned', myself: 'reflexive' };

const capitalize = (s: string): string => s.replace(/^(["'“‘([]*)(\p{Ll})/u, (_, lead: string, first: string) => lead + first.toUpperCase());
const endsWithPunctuation = (s: string): boolean => /[.!?…]["'’”)\]]*$|[:;]-?[)(DPp]$|<3$|\p{Extended_Pictographic}$/u.test(s);
const hasPunctuation = (post: string): boolean => /[,.!?;:…—–]|\s-\s?|^-\s/u.test(post);
const render = (toks: readonly Tok[]): string => toks.map((t) => t.pre + t.text + t.post).join('').trim();
const plainOf = (toks: readonly Tok[]): string =>
  toks
    .filter((t) => !t.implied)
    .map((t) => t.text.toLowerCase().replace(/’/gu, "'").replace(/[^\p{L}\p{N}' ]/gu, ''))
    .filter((w) => w !== '')
    .join(' ');
const isQuestion = (toks: readonly Tok[]): boolean => /\?/u.test(toks.at(-1)?.post ?? '') || /\?\s*$/u.test(toks.at(-1)?.text ?? '');

/** compromise's tags for one word, in the context they are asked about, cached: its tagger is the cost. */
class Tagger {
  private readonly alone = new Map<string, Set<string>>();
  private readonly afterI = new Map<string, Set<string>>();
  private readonly present = new Map<string, string | null>();
  private readonly genders = new Map<string, Gender>();
  private readonly world: World;
  constructor(private readonly nlp: Nlp) {
    this.world = nlp.world();
  }

  /** The tags of a word on its own: from compromise's lexicon when it holds the word, else its tagger's guess. */
  tags(word: string): Set<string> {
    let tags = this.alone.get(word);
    if (tags === undefined) {
      const known = this.lexicon(word);
      if (known === undefined) {
        tags = this.nlp(word).docs[0]?.[0]?.tags ?? new Set();
      } else {
        tags = new Set<string>();
        for (const tag of Array.isArray(known) ? known : known.split(',')) {
          const entry = this.world.model.one.tagSet[tag];
          for (const t of [tag, ...(entry?.parents ?? []), ...(entry?.also ?? [])]) tags.add(t);
        }
      }
      this.alone.set(word, tags);
    }
    return tags;
  }

  lexicon(word: string): string | string[] | undefined {
    return Object.hasOwn(this.world.model.one.lexicon, word) ? this.world.model.one.lexicon[word] : undefined;
  }

  /** How the word reads right after "I": the verb it is, or not. */
  verbTags(word: string): Set<string> {
    let tags = this.afterI.get(word);
    if (tags === undefined) {
      tags = this.nlp(`I ${word}`).docs[0]?.[1]?.tags ?? new Set();
      this.afterI.set(word, tags);
    }
    return tags;
  }

  /** The third-person present of a verb said after "I" ("love" → "loves"), or null to leave it. */
  thirdPerson(word: string): string | null {
    let out = this.present.get(word);
    if (out === undefined) {
      const tags = this.verbTags(word);
      out = null;
      if (tags.has('Verb') && !tags.has('PastTense') && !tags.has('Gerund') && !tags.has('Modal') && !tags.has('Auxiliary')) {
        const forms = this.nlp(`I ${word}`).verbs().conjugate()[0];
        // "read", "put", "cut": the past is spelled as the present, and the past is the likelier reading.
        if (forms?.PresentTense !== undefined && forms.PastTense !== word && forms.Infinitive === word) out = forms.PresentTense;
      }
      this.present.set(word, out);
    }
    return out;
  }

  /** Whether compromise reads a verb in the clause, tagged in context. */
  hasVerb(clause: string): boolean {
    return this.nlp(clause).docs.some((terms) => terms.some((t) => t.tags?.has('Verb') === true && t.tags.has('Gerund') === false));
  }

  gender(name: string): Gender {
    let gender = this.genders.get(name);
    if (gender === undefined) {
      const tags = this.tags(name.split(' ')[0]!.toLowerCase());
      gender = tags.has('FemaleName') === tags.has('MaleName') ? null : tags.has('FemaleName') ? 'female' : 'male';
      this.genders.set(name, gender);
    }
    return gender;
  }
}

/** The statement writer, with compromise and chrono-node imported on first use. */
export async function loadStatementWriter(): Promise<StatementWriter> {
  const chrono = await import('chrono-node');
  return createStatementWriter(compromise<Nlp>(), createRelativeDateResolver(chrono as unknown as Chrono));
}

function createStatementWriter(nlp: Nlp, resolveDates: RelativeDateResolver): StatementWriter {
  const tagger = new Tagger(nlp);
  const normals = new Map<string, string>();
  const normalOf = (word: string): string => {
    let out = normals.get(word);
    if (out === undefined) {
      out = normal(nlp, word);
      normals.set(word, out);
    }
    return out;
  };
  return (text, ctx) => {
    if (keyedSubject(text) !== null) return { text, speaker: null, about: null, chatter: false, question: false, dates: [] };
    const label = speakerLabel(text);
    const speaker = label?.[1] ?? null;
    const body = label === null ? text : text.slice(label[0].length);
    const about = speaker ?? ctx.owner;
    const listener = ctx.listener !== null && ctx.listener !== about ? ctx.listener : null;
    const names = new Set([speaker, ctx.owner, ctx.listener].flatMap((n) => (n === null ? [] : n.split(' ').map(normalOf))));
    const turn = new Turn(tagger, about, listener, speaker !== null);

    // A dash glued to its words ("happening--I'm") would hide the word after it from the tokenizer.
    const spaced = body.replace(/(\p{L})(--|—|–)(?=\p{L})/gu, '$1 $2 ');
    const sentences = nlp.tokenize(spaced).docs.map(toToks);
    const kept: string[] = [];
    const said: string[] = [];
    let asked = false;
    for (const sentence of sentences) {
      const toks = strip(sentence, tagger, names);
      if (toks.length === 0) continue;
      said.push(render(toks));
      // "Thanks, Caroline, for letting me join": the formula is read before its interjection is stripped.
      const kind = formulaic(sentence) ? 'chatter' : classify(toks, tagger);
      // A judgement after the turn's own news is about that news ("We hiked and swam. It was a really
      // peaceful experience."): kept. Before any, it reacts to what the other said: dropped.
      if (kind === 'chatter' || (kind === 'reaction' && kept.length === 0)) continue;
      let content = toks;
      if (kind === 'question') {
        const statement = statementBeforeQuestion(toks, tagger);
        if (statement === null) {
          asked = true;
          continue;
        }
        content = statement;
      }
      kept.push(render(turn.rewrite(content)));
    }
    if (kept.length === 0) {
      const as = said.length > 0 ? said.join(' ') : body.trim();
      return { text: as, speaker, about, chatter: true, question: asked, dates: [] };
    }
    const dates: ResolvedTime[] = [];
    const written = kept.map((sentence) => {
      const resolved = resolveDates(sentence, ctx.date);
      dates.push(...resolved.dates);
      return capitalize(withSpan(resolved.text, resolved.dates));
    });
    let out = written.join(' ');
    if (label === null && out === text.trim()) return { text, speaker, about, chatter: false, question: false, dates };
    if (!endsWithPunctuation(out)) out = `${out.replace(/[,;:\s—–-]+$/u, '')}.`;
    // The tokenizer reads a curly apostrophe as a straight one; a text written with curly ones keeps them.
    if (body.includes('’') && !body.includes("'")) out = out.replace(/'/gu, '’');
    return { text: out, speaker, about, chatter: false, question: false, dates };
  };
}

/** "ten years ago" with a count: the span itself is news ("how long ago?"), kept beside the date it names. */
const COUNTED_AGO_RE = /^(?:about |around |almost |nearly |over |just )?(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty) (?:years?|months?|weeks?|days?) ago$/iu;

/** "in 2013" → "ten years ago (2013)" for a counted span said with "ago"; every other date as resolved. */
function withSpan(text: string, dates: readonly ResolvedTime[]): string {
  let out = text;
  for (const { said, resolved } of dates) {
    if (!COUNTED_AGO_RE.test(said) || !out.includes(resolved)) continue;
    out = out.replace(resolved, `${said} (${resolved.replace(/^(?:on|in) /iu, '')})`);
  }
  return out;
}

/** A leading `Name: ` label, when it is a speaker's (entities.ts `speakerOf`, the one rule for every module). */
function speakerLabel(text: string): RegExpExecArray | null {
  const label = LABEL_RE.exec(text);
  return label === null || speakerOf(text) !== label[1] ? null : label;
}

function normal(nlp: Nlp, word: string): string {
  return nlp.tokenize(word).docs[0]?.[0]?.normal ?? word.toLowerCase();
}

/** compromise's terms as words, with "I'd" (which its tokenizer leaves whole) split like "I'm". */
function toToks(terms: readonly Term[]): Tok[] {
  const toks: Tok[] = [];
  for (const term of terms) {
    const implied = term.text === '' && term.implicit !== undefined;
    const word = (term.implicit ?? term.normal).toLowerCase();
    if ((word === "i'd" || word === "you'd") && term.implicit === undefined) {
      toks.push({ text: term.text, pre: term.pre, post: '', word: word.slice(0, -2), implied: false });
      toks.push({ text: '', pre: '', post: term.post, word: "'d", implied: true });
      continue;
    }
    toks.push({ text: term.text, pre: term.pre, post: term.post, word, implied });
  }
  return toks;
}

function isName(tok: Tok, tagger: Tagger, names: ReadonlySet<string>): boolean {
  if (!/^\p{Lu}/u.test(tok.text) || FIRST_PERSON.has(tok.word) || tok.word === 'you') return false;
  if (names.has(tok.word)) return true;
  const tags = tagger.tags(tok.word);
  return tags.has('FirstName') || tags.has('MaleName') || tags.has('FemaleName') || tags.has('Honorific');
}

function isVocative(tok: Tok, tagger: Tagger, names: ReadonlySet<string>): boolean {
  return isName(tok, tagger, names) || VOCATIVE_WORDS.has(tok.word);
}

/** "Thanks, Mell!": a capitalized word the lexicon does not know, alone between a greeting and punctuation. */
function isUnknownName(tok: Tok, tagger: Tagger): boolean {
  return /^\p{Lu}/u.test(tok.text) && !tok.implied && tagger.lexicon(tok.word) === undefined && /^[,.!;:…]/u.test(tok.post);
}

/** How many words of an interjection start at `i`: "oh my gosh", "thank you", "by the way", "good morning". */
function interjectionAt(toks: readonly Tok[], i: number, tagger: Tagger): { length: number; strong: boolean } | null {
  const w = (k: number): string => toks[i + k]?.word ?? '';
  if (w(0) === 'oh' && w(1) === 'my') return { length: ['god', 'gosh', 'goodness'].includes(w(2)) ? 3 : 2, strong: true };
  if (w(0) === 'thank' && w(1) === 'you') return { length: 2, strong: false };
  if (w(0) === 'by' && w(1) === 'the' && w(2) === 'way') return { length: 3, strong: false };
  if (w(0) === 'good' && ['morning', 'afternoon', 'evening', 'night'].includes(w(1))) return { length: 2, strong: false };
  if (w(0) === 'oh' && w(1) === 'well') return { length: 2, strong: true };
  if (STRONG.has(w(0))) return { length: 1, strong: true };
  if (WEAK.has(w(0))) return { length: 1, strong: false };
  const tok = toks[i];
  if (tok !== undefined && !tok.implied && tagger.tags(tok.word).has('Expression') && !FIRST_PERSON.has(tok.word)) return { length: 1, strong: false };
  return null;
}

/**
 * The sentence without the greetings, interjections and vocatives around it: "Hey Mel!" → nothing,
 * "Wow, that's cool, Caroline!" → "that's cool!", "Yeah Mel, let's go" → "let's go".
 */
function strip(sentence: readonly Tok[], tagger: Tagger, names: ReadonlySet<string>): Tok[] {
  const toks = sentence.map((t) => ({ ...t }));
  let start = 0;
  let i = 0;
  let greeted = false;
  while (i < toks.length) {
    const tok = toks[i]!;
    const interjection = interjectionAt(toks, i, tagger);
    if (interjection !== null) {
      const last = toks[i + interjection.length - 1]!;
      i += interjection.length;
      greeted = true;
      if (hasPunctuation(last.post) || i === toks.length) start = i;
      else if (interjection.strong) start = i;
      else break;
      continue;
    }
    if (greeted && isUnknownName(tok, tagger)) {
      i += 1;
      start = i;
      continue;
    }
    if (isVocative(tok, tagger, names) && (greeted || hasPunctuation(tok.post) || isVocative(toks[i + 1] ?? tok, tagger, names))) {
      const two = toks[i + 1] !== undefined && !hasPunctuation(tok.post) && isName(toks[i + 1]!, tagger, names) ? 2 : 1;
      const last = toks[i + two - 1]!;
      if (!hasPunctuation(last.post) && i + two < toks.length) break;
      i += two;
      start = i;
      continue;
    }
    break;
  }
  let end = toks.length;
  for (;;) {
    const last = toks[end - 1];
    if (last === undefined || end <= start) break;
    const two = end - 2 > start && isName(toks[end - 2]!, tagger, names) && isName(last, tagger, names) && !hasPunctuation(toks[end - 2]!.post);
    const size = two ? 2 : 1;
    const before = toks[end - size - 1];
    const vocative = isVocative(last, tagger, names) || STRONG.has(last.word);
    if (!vocative || before === undefined || end - size <= start || !/,/u.test(before.post)) break;
    before.post = last.post.replace(/^[^.!?…]*/u, '') || ' ';
    end -= size;
  }
  const out = toks.slice(start, end);
  if (out.length === 0) return out;
  out[0]!.pre = out[0]!.pre.replace(/^[\s,;:—–-]+/u, '');
  out[0]!.text = capitalize(out[0]!.text);
  if (/^[\s,;:—–-]*$/u.test(out.at(-1)!.post)) out.at(-1)!.post = '';
  return out;
}

/** 'reaction': a short judgement of "that" or "it" (chatter unless it follows the turn's own news). */
type Kind = 'content' | 'chatter' | 'question' | 'reaction';

/** A sentence that opens with a formula of greeting, thanks or farewell, and no "I" or "we" says more. */
function formulaic(toks: readonly Tok[]): boolean {
  const plain = plainOf(toks);
  const prefix = PREFIX_CHATTER.exec(plain);
  return prefix !== null && !plain.slice(prefix[0].length).split(' ').some((w) => /^(?:i|i'm|i've|i'll|i'd|im|ive|we|we're|we've|we'll)$/u.test(w));
}

function classify(toks: readonly Tok[], tagger: Tagger): Kind {
  const plain = plainOf(toks);
  if (plain === '') return 'chatter';
  if (isQuestion(toks)) return 'question';
  if (WHOLE_CHATTER.test(plain)) return 'chatter';
  if (formulaic(toks)) return 'chatter';
  const words = toks.filter((t) => !t.implied).map((t) => t.word);
  if (words.some((w) => FIRST_PERSON.has(w))) return 'content';
  const exclaimed = /!/u.test(toks.at(-1)?.post ?? '');
  if (exclaimed && /^(?:what an?|how|such an?)\b/u.test(plain)) return 'reaction';
  if (exclaimed && words.length <= EXCLAIMED_REACTION_WORDS && isDeicticReaction(toks)) return 'reaction';
  if (words.length <= 9 && isReaction(toks, tagger)) return 'reaction';
  if (words.length <= 7 && isJudgement(words, tagger)) return 'reaction';
  return 'content';
}

/** "That's so cool!", "Wow, this looks amazing.": adjectives about "that", and nothing else. */
function isReaction(toks: readonly Tok[], tagger: Tagger): boolean {
  let judged = false;
  for (const [i, tok] of toks.entries()) {
    if (tok.implied) continue;
    if (i > 0 && /^\p{Lu}/u.test(tok.text) && tok.word !== 'i') return false;
    if (/\d/u.test(tok.word)) return false;
    if (REACTION_WORDS.has(tok.word)) continue;
    const tags = tagger.tags(tok.word);
    if (tags.has('Adjective') || tags.has('Comparable') || tags.has('Superlative')) {
      judged = true;
      continue;
    }
    if (tags.has('Adverb') || tags.has('Expression') || tags.has('Copula')) continue;
    return false;
  }
  return judged;
}

/**
 * "That view is stunning!", "That's a really big decision!", "They're adorable!": a short exclamation about
 * something shown or said, named only by "that", "it" or "they", with no name or number of its own.
 */
function isDeicticReaction(toks: readonly Tok[]): boolean {
  const said = toks.filter((t) => !t.implied);
  if (!DEICTIC_OPENERS.has(said[0]?.word.replace(/['’].*$/u, '') ?? '')) return false;
  return said.every((t, i) => !/\d/u.test(t.word) && (i === 0 || !/^\p{Lu}/u.test(t.text)));
}

/** "That castle looks amazing!", "Your garden is gorgeous.": a thing seen, judged with one adjective. */
function isJudgement(words: readonly string[], tagger: Tagger): boolean {
  if (!['that', 'this', 'these', 'those', 'the', 'your', 'it', 'they'].includes(words[0] ?? '')) return false;
  const verb = words.findIndex((w, i) => i > 0 && ['look', 'looks', 'sound', 'sounds', 'seem', 'seems', 'is', 'are', 'was', 'were'].includes(w));
  if (verb < 1) return false;
  const rest = words.slice(verb + 1);
  const last = rest.at(-1);
  if (last === undefined || !tagger.tags(last).has('Adjective')) return false;
  return rest.slice(0, -1).every((w) => tagger.tags(w).has('Adverb') || ['so', 'really', 'very', 'super', 'pretty', 'just'].includes(w));
}

/**
 * The statement a question carries before it asks: "I started pottery last week — have you tried it?"
 * → "I started pottery last week.", when it says something of the speaker's own or of a third party;
 * else null.
 */
function statementBeforeQuestion(toks: readonly Tok[], tagger: Tagger): Tok[] | null {
  for (let b = toks.length - 2; b > 0; b--) {
    const post = toks[b]!.post;
    const next = toks[b + 1]!;
    const boundary = /[—–;]|\s-\s/u.test(post) || (/,/u.test(post) && QUESTION_STARTS.has(next.word));
    if (!boundary) continue;
    const head = toks.slice(0, b + 1).map((t) => ({ ...t }));
    head.at(-1)!.post = '.';
    // The speaker's own ("I started pottery"), or a statement about neither party ("his name is Ned").
    if (head.some((t) => t.word === 'i' || t.word === 'we' || t.word === 'my')) return head;
    if (head.filter((t) => !t.implied).length < 4 || head.some((t) => t.word === 'you' || t.word === 'your') || classify(head, tagger) !== 'content') return null;
    return head;
  }
  return null;
}

/** Rewrites the sentences of one turn: first person to its speaker, "you" to its listener. */
class Turn {
  constructor(
    private readonly tagger: Tagger,
    private readonly about: string | null,
    private readonly listener: string | null,
    private readonly labelled: boolean,
  ) {}

  rewrite(sentence: readonly Tok[]): Tok[] {
    const toks = sentence.map((t) => ({ ...t }));
    let aboutSaid = false;
    let listenerSaid = false;
    const gender = this.about === null ? null : this.tagger.gender(this.about);
    const listenerGender = this.listener === null ? null : this.tagger.gender(this.listener);
    // A pronoun only where it can mean no one else: "she" after "Melanie" is Melanie, after "Andrew" it can be Caroline.
    const clear = (): boolean => !listenerSaid || (listenerGender !== null && listenerGender !== gender);
    const mention = (role: Role, at: number, named = false): string => {
      const about = this.about!;
      let out: string;
      if (aboutSaid && gender !== null && clear() && !named) out = PRONOUNS[gender][role];
      else if (role === 'possessive' || role === 'owned') out = `${about}'s`;
      else out = about;
      aboutSaid = true;
      return at === 0 ? capitalize(out) : out;
    };
    const plain = plainOf(toks);
    const addressed = this.listener !== null && !GENERIC_YOU_RE.test(plain);

    if (this.about !== null && this.labelled) this.impliedSubject(toks, () => mention('subject', 0));
    for (let i = 0; i < toks.length; i++) {
      const tok = toks[i]!;
      if (tok.implied || /^-/u.test(tok.post) || /-$/u.test(tok.pre)) continue;
      const role = ROLE_OF[tok.word];
      if (role !== undefined && this.about !== null) {
        const compound = role === 'subject' && this.compound(toks, i);
        // "my friends and I went": "Audrey's friends and Audrey went", never "… and she went".
        tok.text = mention(role, i, compound);
        if (role === 'subject') this.agree(toks, i, compound);
        continue;
      }
      if (!addressed) continue;
      const listener = this.listener!;
      if (tok.word === 'you' && this.addressedYou(toks, i)) {
        tok.text = listener;
        listenerSaid = true;
        continue;
      }
      if (tok.word === 'your' || tok.word === 'yours') {
        tok.text = `${listener}'s`;
        listenerSaid = true;
        continue;
      }
      if (tok.word === 'yourself' && listenerSaid) {
        const g = this.tagger.gender(listener);
        tok.text = g === null ? listener : PRONOUNS[g].reflexive;
      }
    }
    return toks;
  }

  /** "Gonna continue my edu" → "Caroline is going to continue her edu"; "Went hiking" → "Caroline went hiking". */
  private impliedSubject(toks: Tok[], subject: () => string): void {
    const first = toks[0];
    if (first === undefined || first.implied) return;
    const word = first.word;
    const next = toks[1];
    const lower = first.text.toLowerCase();
    // compromise reads "gonna" as "going" and an implied "to"; the fixed phrase says both.
    const fixed = IMPLIED_SUBJECT[lower.replace(/[’']/gu, '')];
    if (fixed !== undefined) {
      first.text = `${subject()} ${fixed}`;
      return;
    }
    if (next?.implied === true && next.word === 'not') {
      const negated = NEGATED_START[word];
      first.text = `${subject()} ${negated === undefined ? lower : negated.replace(/'/gu, first.text.includes('’') ? '’' : "'")}`;
      return;
    }
    const follows = next === undefined || hasPunctuation(first.post) || ['to', 'about', 'for', 'with', 'that', 'of', 'by', 'at', 'on'].includes(next.word);
    if (FEELINGS.has(word) && follows) {
      first.text = `${subject()} is ${lower}`;
      return;
    }
    if (STATIVE.has(word) && next !== undefined && !hasPunctuation(first.post)) {
      first.text = `${subject()} ${this.tagger.thirdPerson(word) ?? lower}`;
      return;
    }
    if (SELF_PROGRESSIVE.has(word) && next !== undefined && !hasPunctuation(first.post)) {
      const clause: Tok[] = [];
      for (const tok of toks.slice(1)) {
        clause.push(tok);
        if (hasPunctuation(tok.post)) break;
      }
      // "Thinking about it pumps me up": the gerund is the subject of a verb of its own.
      if (!this.tagger.hasVerb(render(clause))) first.text = `${subject()} is ${lower}`;
      return;
    }
    const verb = word === 'just' || word === 'recently' || word === 'finally' ? (next?.word ?? '') : word;
    // Asked in context only for a word that may be a past tense: the lexicon says so, or it is not in it.
    if (!this.tagger.tags(verb).has('PastTense') && (this.tagger.lexicon(verb) !== undefined || !verb.endsWith('ed'))) return;
    const tags = this.tagger.verbTags(verb);
    if (!tags.has('PastTense') || tags.has('Participle') || verb === 'used' || verb === '') return;
    // "Impressed by your commitment": a participle that describes, not a past the speaker did.
    if (verb === word && ['by', 'with'].includes(next?.word ?? '')) return;
    first.text = `${subject()} ${lower}`;
  }


  /** "my friends and I", "Jon and I": a subject of several people, whose verb stays plural. */
  private compound(toks: readonly Tok[], i: number): boolean {
    if (toks[i + 1]?.word === 'and' || toks[i + 1]?.word === '&') return true;
    if (!['and', 'or', '&'].includes(toks[i - 1]?.word ?? '') || i < 2 || hasPunctuation(toks[i - 2]!.post)) return false;
    // "…, and I went", "I went to the store and I bought": the "and" joins a clause when a verb stands
    // before it in the same clause. Rare enough to ask compromise's tagger for the clause in context.
    let from = i - 2;
    while (from > 0 && !hasPunctuation(toks[from - 1]!.post) && !CLAUSE_OPENERS.has(toks[from - 1]!.word)) from--;
    return !this.tagger.hasVerb(render(toks.slice(from, i - 1)));
  }

  /** Makes the verb of a first-person subject at `i` agree with a third person: "I love" → "Caroline loves". */
  private agree(toks: Tok[], i: number, plural: boolean): void {
    const subject = toks[i]!;
    const next = toks[i + 1];
    if (next?.implied === true) {
      // "I'm" → "Caroline is", "I'd" → "Caroline would" / "had".
      subject.post = subject.post === '' ? ' ' : subject.post;
      next.text = next.word === "'d" ? this.wouldOrHad(toks, i + 2) : plural ? next.word : (AGREE[next.word] ?? next.word);
      return;
    }
    if (plural) return;
    let j = i + 1;
    while (j < toks.length && (BETWEEN.has(toks[j]!.word) || this.tagger.tags(toks[j]!.word).has('Adverb')) && !hasPunctuation(toks[j - 1]!.post)) j++;
    const verb = toks[j];
    if (verb === undefined || verb.implied || hasPunctuation(toks[j - 1]!.post)) return;
    const negated = AGREE_NEGATED[verb.text.toLowerCase().replace(/’/gu, "'")];
    if (negated !== undefined) {
      verb.text = matchCase(verb.text, negated.replace(/'/gu, verb.text.includes('’') ? '’' : "'"));
      return;
    }
    if (verb.text.includes("'") || verb.text.includes('’')) return;
    const agreed = AGREE[verb.text.toLowerCase()] ?? AGREE[verb.word] ?? (MODALS.has(verb.word) ? null : this.tagger.thirdPerson(verb.word));
    if (agreed === null || agreed === undefined) return;
    verb.text = matchCase(verb.text, agreed);
    // "wanna" is "want" and an implied "to": the agreed verb is written with it ("wants to").
    const tail = toks[j + 1];
    if (tail?.implied === true && !agreed.includes(' ')) {
      verb.post = verb.post === '' ? ' ' : verb.post;
      tail.text = tail.word;
    }
    this.agreeJoined(toks, j + 1);
  }

  /** "I get lost in thought and think about my life": the second verb of the subject agrees too. */
  private agreeJoined(toks: Tok[], from: number): void {
    for (let j = from; j < toks.length - 1; j++) {
      const tok = toks[j]!;
      if (tok.implied || ['to', 'i', 'we', 'they', 'he', 'she', 'you', 'it', 'that', 'which', 'who'].includes(tok.word)) return;
      if (tok.word === 'and' && !hasPunctuation(tok.post) && !hasPunctuation(toks[j - 1]!.post)) {
        const verb = toks[j + 1]!;
        const agreed = verb.implied ? null : this.tagger.thirdPerson(verb.word);
        if (agreed !== null && this.tagger.tags(verb.word).has('Verb')) verb.text = matchCase(verb.text, agreed);
        return;
      }
      if (hasPunctuation(tok.post)) return;
    }
  }

  private wouldOrHad(toks: readonly Tok[], from: number): string {
    for (let j = from; j < toks.length; j++) {
      const word = toks[j]!.word;
      if (BETWEEN.has(word)) continue;
      const tags = this.tagger.verbTags(word);
      return ['been', 'gone', 'done', 'had', 'got', 'gotten'].includes(word) || tags.has('Participle') ? 'had' : 'would';
    }
    return 'would';
  }

  /** "you" the listener: the subject of a statement ("you're", "you did") or the object of a verb or preposition. */
  private addressedYou(toks: Tok[], i: number): boolean {
    const before = toks[i - 1];
    const next = toks[i + 1];
    if (next?.implied === true) {
      if (!['are', 'have', 'will', "'d", 'would', 'had'].includes(next.word)) return false;
      toks[i]!.post = toks[i]!.post === '' ? ' ' : toks[i]!.post;
      next.text = next.word === "'d" ? this.wouldOrHad(toks, i + 2) : (AGREE[next.word] ?? next.word);
      return true;
    }
    if (next !== undefined && !hasPunctuation(toks[i]!.post)) {
      const negated = AGREE_NEGATED[next.text.toLowerCase().replace(/’/gu, "'")];
      const contracted = next.text.includes("'") || next.text.includes('’');
      const agreed = negated ?? (contracted ? null : (AGREE[next.word] ?? (['did', 'will', 'would', 'had', 'was'].includes(next.word) ? next.word : null)));
      if (agreed !== null) {
        next.text = matchCase(next.text, negated === undefined ? agreed : agreed.replace(/'/gu, next.text.includes('’') ? '’' : "'"));
        return true;
      }
      const tags = this.tagger.verbTags(next.word);
      if (tags.has('Verb') && !tags.has('Gerund')) return tags.has('PastTense') && !tags.has('Participle');
    }
    if (before === undefined) return false;
    const prev = this.tagger.tags(before.word);
    if (prev.has('Preposition') || ['to', 'for', 'with', 'about'].includes(before.word)) return true;
    // Not a causative or a formula: "makes you think", "thank you", "see you".
    if (['thank', 'see', 'miss', 'love', 'let', 'make', 'made', 'makes', 'help', 'helps'].includes(before.word)) return false;
    return prev.has('Verb') || this.tagger.verbTags(before.word).has('Verb');
  }
}

function matchCase(original: string, replacement: string): string {
  return /^\p{Lu}/u.test(original) ? capitalize(replacement) : replacement;
}
