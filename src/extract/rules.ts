/**
 * Offline extraction: explicit statements only ("remember that …", "I prefer …", "my X is Y", "I live
 * in …", "call me …", "I decided to …"). Precision over recall: a sentence that is a question, a
 * conditional, or about the code at hand yields nothing; the LLM extractor is there for the rest.
 */
import type { Category } from '../logs/factlog.js';
import { singleLine } from '../logs/factlog.js';
import { resolveRelativeDates } from './dates.js';
import type { DatedCandidate, ExtractedFact } from './extracted.js';
import { proseOf, WORK_NOUNS } from './signals.js';

const RULE_CONFIDENCE = 0.9;

interface RuleFact {
  category: Category;
  text: string;
  tags?: string[];
}

/** The facts the rules find in one candidate turn. */
export function extractByRules(candidate: DatedCandidate, timeZone: string): ExtractedFact[] {
  const out: ExtractedFact[] = [];
  const seen = new Set<string>();
  for (const sentence of sentences(proseOf(candidate.turn.text))) {
    if (sentence.question || CONDITIONAL_RE.test(sentence.text)) continue;
    for (const clause of clauses(sentence.text)) {
      const fact = matchClause(clause);
      if (fact === null) continue;
      const text = singleLine(resolveRelativeDates(fact.text, candidate.at, timeZone));
      const key = text.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ category: fact.category, text, tags: fact.tags ?? [], confidence: RULE_CONFIDENCE, turn: candidate.turn.index });
    }
  }
  return out;
}

/** One statement read by the rules, or null when no rule is sure of it. Exported for tests. */
export function matchClause(raw: string): RuleFact | null {
  const clause = trimEnd(stripLead(raw));
  if (clause === '' || CONDITIONAL_RE.test(clause)) return null;
  return remember(clause) ?? matchStatement(clause);
}

function matchStatement(clause: string): RuleFact | null {
  return preference(clause) ?? myXisY(clause) ?? liveIn(clause) ?? callMe(clause) ?? iAm(clause) ?? decided(clause) ?? fromNowOn(clause);
}

// ---------------------------------------------------------------------------------------------
// The rules

const REMEMBER_RE = /^(?:please\s+)?(?:remember|don'?t forget|do not forget)(\s+that\b|\s*:)?[,\s]\s*(.+)$/i;
const PLAIN_STATEMENT_RE = /^(?:the|my|our|we|I)\b.*\b(?:is|are|was|were|has|have|lives?|works?|uses?)\b/i;

function remember(clause: string): RuleFact | null {
  const m = REMEMBER_RE.exec(clause);
  if (m === null) return null;
  const rest = trimEnd(m[2]!);
  const inner = matchStatement(stripLead(rest));
  if (inner !== null) return inner;
  const explicit = m[1] !== undefined;
  if (/^(?:to|how|what|when|where|why|who|which|if|whether|this|that|it|these|those|me|us)\b/i.test(rest)) return null;
  if (!explicit && !PLAIN_STATEMENT_RE.test(rest)) return null;
  const words = wordCount(rest);
  if (words < 3 || words > 40) return null;
  return { category: 'fact', text: capitalize(firstPersonToThird(rest)) };
}

const PREFERENCE_RE =
  /^I\s+(?:(?:really|generally|usually|much|definitely|strongly|always|honestly|absolutely|truly)\s+)?(prefer|like|love|enjoy|hate|dislike|detest|despise|can'?t stand|cannot stand|don'?t like|do not like|don'?t enjoy|do not enjoy)\s+(.+)$/i;
const PREFERENCE_VERB: Readonly<Record<string, string>> = {
  prefer: 'Prefers',
  like: 'Likes',
  love: 'Loves',
  enjoy: 'Enjoys',
  hate: 'Hates',
  dislike: 'Dislikes',
  detest: 'Detests',
  despise: 'Despises',
  "can't stand": 'Cannot stand',
  'cant stand': 'Cannot stand',
  'cannot stand': 'Cannot stand',
  "don't like": 'Dislikes',
  'dont like': 'Dislikes',
  'do not like': 'Dislikes',
  "don't enjoy": 'Does not enjoy',
  'dont enjoy': 'Does not enjoy',
  'do not enjoy': 'Does not enjoy',
};
/** Objects that point at the conversation ("I like that idea", "I love how you did it"), not at a taste. */
const DEICTIC_OBJECT_RE =
  /^(?:it|its|it's|this|that|these|those|them|what|how|when|where|why|which|who|your|yours|you|the way|the idea|the approach|the change|the changes|the fix|the suggestion|the plan|the solution|the code|the new|the previous|the current|the first|the second|the last|the other|the above|the result|the output|both|either|neither|not|to (?:see|know|think|hear|ask|check|keep|make sure)|when you|if you)\b/i;

function preference(clause: string): RuleFact | null {
  const m = PREFERENCE_RE.exec(clause);
  if (m === null) return null;
  const verb = PREFERENCE_VERB[m[1]!.toLowerCase().replace(/’/g, "'")];
  const object = trimEnd(m[2]!);
  if (verb === undefined || DEICTIC_OBJECT_RE.test(object) || hasWorkNounHead(object)) return null;
  const words = wordCount(object);
  if (words < 1 || words > 14) return null;
  return { category: 'preference', text: `${verb} ${thirdPerson(object)}` };
}

const MY_X_RE = /^my\s+([\p{L}][\p{L}'’-]*(?:\s+[\p{L}][\p{L}'’-]*){0,3}?)(?:\s+(?:is|are)|'s|’s)\s+(?:now\s+|actually\s+)?(.+)$/iu;
const SUBJECT_STOP = new Set(['the', 'a', 'an', 'this', 'that', 'it', 'only', 'main', 'biggest', 'first', 'best', 'last', 'next', 'other', 'own', 'whole', 'current', 'new', 'old', 'real', 'big', 'one', 'step', 'task', 'todo', 'priority', 'bet', 'take', 'advice', 'recommendation', 'bad', 'honest', 'gut', 'point', 'aim', 'intention', 'experience']);
const VALUE_REJECT_RE =
  /^(?:not|so|too|very|really|still|just|also|kind|sort|pretty|quite|getting|being|going|broken|failing|failed|wrong|fine|ok|okay|good|bad|great|slow|fast|down|up|weird|strange|empty|missing|null|undefined|correct|right|done|here|there|this|that|it|to|the same|same|similar|different|like|probably|maybe|perhaps|a bit|a little|currently|showing|returning|throwing|running|working|using|set|gone|dead|busy|sick|tired|back|off|over|out|almost|nearly|about|unclear|confusing|complicated|hard|easy|simple|better|worse|huge|small|big)\b/i;
const CLAUSE_WORD_RE = /\b(?:because|but|although|though|unless|whereas|if|when|which|so that)\b/i;
const RELATION_RE = /^(?:wife|husband|partner|girlfriend|boyfriend|spouse|fianc[ée]e?|son|daughter|kids?|children|baby|mother|mom|mum|father|dad|parents?|brother|sister|siblings?|grand\w+|aunt|uncle|cousin|niece|nephew|friend|best friend|colleague|coworkers?|co-workers?|roommate|neighbou?r|boss|manager|mentor)$/i;

function myXisY(clause: string): RuleFact | null {
  const m = MY_X_RE.exec(clause);
  if (m === null) return null;
  const subject = m[1]!.toLowerCase().replace(/’/g, "'");
  const words = subject.split(/\s+/);
  if (words.some((w) => WORK_NOUNS.has(w) || SUBJECT_STOP.has(w))) return null;
  let value = trimEnd(m[2]!).replace(/^on\s+(?=\p{Lu}|\d)/u, '');
  if (value === '' || VALUE_REJECT_RE.test(value) || CLAUSE_WORD_RE.test(value)) return null;
  if (wordCount(value) > 8 || value.length > 80) return null;
  value = thirdPerson(value);
  if (subject === 'preference') return { category: 'preference', text: `Prefers ${value}` };
  if (subject === 'name') return { category: 'fact', text: `name:: ${value}` };
  const category: Category = RELATION_RE.test(subject) ? 'relationship' : /\bfavou?rite\b/.test(subject) ? 'preference' : 'fact';
  return { category, text: `${subject}:: ${value}` };
}

const PLACE = "\\p{Lu}[\\p{L}'.-]*(?:\\s+(?:(?:de|da|do|dos|das|di|del|della|la|le|of|upon|am|on|the|am)\\s+)?\\p{Lu}[\\p{L}'.-]*)*";
const LIVE_RE = new RegExp(`^I(?:'m|\\s+am)?\\s+(?:now\\s+|currently\\s+|still\\s+|just\\s+|recently\\s+)?(?:live|living|based|located|moved|relocated)\\s+(?:in|to)\\s+(${PLACE}(?:,\\s+${PLACE})?)(?:\\s|,|$)`, 'u');
const LIVE_VERB_RE = /^I(?:'m|\s+am)?\s+(?:now\s+|currently\s+|still\s+|just\s+|recently\s+)?(live|living|based|located|moved|relocated)\s+(in|to)\b/;

function liveIn(clause: string): RuleFact | null {
  const verb = LIVE_VERB_RE.exec(clause);
  if (verb === null) return null;
  const [, how, prep] = verb;
  // "I live in …", "I'm based in …", "I moved to …"; not "I'm moving in", not "I live to …".
  const fits = ((how === 'live' || how === 'living' || how === 'based' || how === 'located') && prep === 'in') || ((how === 'moved' || how === 'relocated') && prep === 'to');
  if (!fits) return null;
  const m = LIVE_RE.exec(clause);
  if (m === null) return null;
  const place = m[1]!.replace(/[.,]+$/, '');
  if (wordCount(place) > 6) return null;
  return { category: 'fact', text: `home city:: ${place}`, tags: ['location'] };
}

const CALL_ME_RE = /^(?:[Pp]lease\s+)?(?:[Cc]all me|I go by|[Yy]ou can call me)\s+(\p{Lu}[\p{L}'’.-]*(?:\s+\p{Lu}[\p{L}'’.-]*){0,2})\s*$/u;
const NOT_A_NAME = new Set(['ASAP', 'Later', 'Tomorrow', 'Today', 'Tonight', 'Back', 'Maybe', 'Crazy', 'Old-fashioned', 'Lazy', 'Picky']);

function callMe(clause: string): RuleFact | null {
  const m = CALL_ME_RE.exec(clause);
  if (m === null) return null;
  const name = m[1]!.replace(/[.]+$/, '');
  if (NOT_A_NAME.has(name) || /^\p{Lu}{2,}$/u.test(name)) return null;
  return { category: 'preference', text: `preferred name:: ${name}` };
}

const I_AM_A_RE = /^I(?:'m|’m|\s+am)\s+(?:also\s+|now\s+|actually\s+)?(an?)\s+(.+)$/i;
const I_AM_STATE_RE =
  /^I(?:'m|’m|\s+am)\s+(?:also\s+|now\s+|actually\s+)?(allergic to .+|vegetarian|vegan|pescatarian|married to .+|engaged to .+|married|engaged|divorced|widowed|left-handed|right-handed|colou?r-?blind|diabetic|lactose intolerant|gluten intolerant|retired|self-employed|(?:originally\s+)?from\s+\p{Lu}.*|\d{1,3} years old)$/iu;
const NOT_A_ROLE_RE = /^(?:bit|little|few|lot|tad|huge fan of (?:it|this|that)|fan of (?:it|this|that)|big fan of (?:it|this|that)|moment|second|minute|sec|quick|total|complete|bit of)\b/i;

function iAm(clause: string): RuleFact | null {
  const age = /^I(?:'m|’m|\s+am)\s+(\d{1,3}) years old$/i.exec(trimEnd(clause));
  if (age !== null) return { category: 'fact', text: `age:: ${age[1]}` };
  const state = I_AM_STATE_RE.exec(trimEnd(clause));
  if (state !== null) {
    const what = state[1]!;
    if (/^(?:married|engaged) to/i.test(what)) return { category: 'relationship', text: `Is ${thirdPerson(what)}` };
    if (wordCount(what) > 10) return null;
    return { category: 'fact', text: `Is ${thirdPerson(what.replace(/^originally\s+/i, 'originally '))}` };
  }
  const m = I_AM_A_RE.exec(clause);
  if (m === null) return null;
  const what = trimEnd(m[2]!);
  if (NOT_A_ROLE_RE.test(what) || CLAUSE_WORD_RE.test(what) || hasWorkNounHead(what)) return null;
  if (wordCount(what) > 10) return null;
  return { category: /\bfan of\b/i.test(what) ? 'preference' : 'fact', text: `Is ${m[1]!.toLowerCase()} ${thirdPerson(what)}` };
}

const DECIDED_RE = /^(I|we)(?:'ve|’ve|\s+have)?\s+(?:finally\s+|just\s+|now\s+)?decided\s+(to|on|that|against)\s+(.+)$/i;

function decided(clause: string): RuleFact | null {
  const m = DECIDED_RE.exec(clause);
  if (m === null) return null;
  const rest = trimEnd(m[3]!);
  const words = wordCount(rest);
  if (words < 1 || words > 30 || /^(?:it|this|that)\s*$/i.test(rest)) return null;
  const who = m[1]!.toLowerCase() === 'we' ? ' (with others)' : '';
  return { category: 'decision', text: `Decided${who} ${m[2]!.toLowerCase()} ${thirdPerson(rest)}` };
}

const FROM_NOW_ON_RE = /^(?:from now on|going forward|henceforth),?\s+(?:please\s+)?((?:always|never|don'?t|do not|use|write|prefer|keep|avoid|reply|answer|respond|format|call|put)\b.+)$/i;

function fromNowOn(clause: string): RuleFact | null {
  const m = FROM_NOW_ON_RE.exec(clause);
  if (m === null) return null;
  const rest = trimEnd(m[1]!);
  const words = wordCount(rest);
  if (words < 2 || words > 30) return null;
  return { category: 'principle', text: capitalize(rest) };
}

// ---------------------------------------------------------------------------------------------
// Sentences and clauses

const CONDITIONAL_RE =
  /^\W*(?:if|unless|suppose|supposing|assuming|assume|imagine|pretend|what if|when|whenever|in case|say|let's say|hypothetically|would|could|should|(?:do|does|did)(?!\s+(?:not\s+forget|remember)\b)|can|is|are|was|were|will)\b/i;
const LEAD_RE = /^(?:(?:also|and|oh|ok|okay|so|well|btw|by the way|fyi|just so you know|for the record|for context|note|please|actually|honestly|anyway|plus|again|yes|yeah|yep|no|nope|hey|hi|hello|thanks|cool|great|sure|alright|right|correction|one more thing|oh and)\b[,:!.-]*\s*)+/i;
const ABBREVIATION_RE = /\b(?:Dr|Mr|Mrs|Ms|St|Jr|Sr|Prof|vs|etc|approx|Mt)\./g;

interface Sentence {
  text: string;
  question: boolean;
}

/** Splits prose into sentences, keeping "Dr. Lee", "3.5" and "ana@example.com" whole. */
export function sentences(prose: string): Sentence[] {
  const shielded = prose
    .replace(ABBREVIATION_RE, (m) => m.replace('.', '\uE000'))
    .replace(/\b(?:e\.g|i\.e|a\.m|p\.m)\./gi, (m) => m.replace(/\./g, '\uE000'))
    .replace(/\.(?=\S)/g, '\uE000');
  const out: Sentence[] = [];
  for (const m of shielded.matchAll(/[^.!?;\n]+([.!?]+|;|\n|$)/g)) {
    const text = m[0].replace(/\uE000/g, '.').trim();
    if (text === '') continue;
    out.push({ text, question: (m[1] ?? '').includes('?') });
  }
  return out;
}

/** "I live in Lisbon and my wife is Ana" → two clauses. */
function clauses(sentence: string): string[] {
  return sentence
    .split(/,?\s+(?:and|but|also|plus)\s+(?=(?:I\b|I['’]|[Mm]y\b|[Ww]e\b))|,\s+(?=(?:I\b|I['’]|[Mm]y\b))/)
    .map((c) => c.trim())
    .filter((c) => c !== '');
}

function stripLead(clause: string): string {
  return clause.replace(LEAD_RE, '').trim();
}

const TAIL_RE = /,?\s+(?:by the way|btw|too|as well|though|actually|really|honestly|please|fyi|for what it'?s worth|if that matters|just so you know)$/i;

/** Without end punctuation, quotes, or an afterthought like ", by the way". */
function trimEnd(text: string): string {
  let out = text.replace(/[\s.!,;:]+$/u, '').replace(/^["'“‘]+|["'”’]+$/gu, '').trim();
  for (let before = ''; before !== out; ) {
    before = out;
    out = out.replace(TAIL_RE, '').replace(/[\s.!,;:]+$/u, '');
  }
  return out;
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter((w) => w !== '').length;
}

function capitalize(text: string): string {
  return text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1);
}

const MODALS = new Set(['can', 'will', 'must', 'should', 'might', 'may', 'could', 'would', 'shall']);
const IRREGULAR_PAST = new Set(
  'was were had did went got made said saw met took came bought left ran found gave told became began wrote spoke drove flew ate drank sold built kept lost paid read sent spent thought felt knew grew won broke chose fell forgot held slept taught'.split(' '),
);

/** "I have a dentist appointment" → "Has a dentist appointment": the subject dropped, the verb agreeing. */
function firstPersonToThird(text: string): string {
  const contracted = /^I['’](m|ve|ll|d)\s+(.*)$/.exec(text);
  if (contracted !== null) {
    const verb = { m: 'is', ve: 'has', ll: 'will', d: 'would' }[contracted[1] as 'm' | 've' | 'll' | 'd'];
    return thirdPerson(`${verb} ${contracted[2]}`);
  }
  const m = /^I\s+(do not|don['’]t|am|have|do|go|\p{L}+)\b(.*)$/u.exec(text);
  if (m === null) return thirdPerson(text);
  const verb = m[1]!.toLowerCase().replace('’', "'");
  let third: string;
  if (verb === 'am') third = 'is';
  else if (verb === 'have') third = 'has';
  else if (verb === "don't" || verb === 'do not') third = 'does not';
  else if (verb === 'do' || verb === 'go') third = `${verb}es`;
  else if (MODALS.has(verb) || IRREGULAR_PAST.has(verb) || verb.endsWith('ed')) third = verb;
  else if (/[^aeiou]y$/.test(verb)) third = `${verb.slice(0, -1)}ies`;
  else if (/(?:s|sh|ch|x|z|o)$/.test(verb)) third = `${verb}es`;
  else third = `${verb}s`;
  return thirdPerson(`${third}${m[2]}`);
}

/** First person to third, so a fact reads the same whoever looks at it later. */
function thirdPerson(text: string): string {
  return text
    .replace(/\bmy\b/g, 'their')
    .replace(/\bMy\b/g, 'Their')
    .replace(/\bmine\b/gi, 'theirs')
    .replace(/\bmyself\b/gi, 'themselves')
    .replace(/\bme\b/g, 'them')
    .replace(/\bI['’]m\b/g, "they're")
    .replace(/\bI['’]ve\b/g, "they've")
    .replace(/\bI['’]ll\b/g, "they'll")
    .replace(/\bI\b/g, 'they');
}

/** True when the head noun of a short object is about the work at hand ("I like the test", "I'm a fan of the api"). */
function hasWorkNounHead(text: string): boolean {
  const words = text.toLowerCase().split(/\s+/);
  if (words.length > 3) return false;
  return words.some((w) => WORK_NOUNS.has(w.replace(/[^a-z]/g, '')));
}
