/**
 * Durable statements said in plain English, for MEMORY.md (issue 25): a conversation's facts carry no category
 * that marks them durable (a turn is a `moment`), yet its speakers talk at length about their health, family,
 * work and plans. A page statement whose words name one of those subjects (topics.ts, the vocabulary that
 * sections pages) is core memory of its kind; one that states a preference ("loves", "favorite") is a
 * preference. Never a question, a greeting or a statement too short or too long to stand as one line.
 */
import { topicOf } from './topics.js';

export type TopicalKind = 'wellbeing' | 'family' | 'work' | 'plan' | 'preference';

/** The kinds in rank order, each with its MEMORY.md section (a preference joins `## Preferences`). */
export const TOPICAL_SECTIONS: ReadonlyArray<readonly [Exclude<TopicalKind, 'preference'>, string]> = [
  ['wellbeing', 'Wellbeing'],
  ['family', 'Family and friends'],
  ['work', 'Work and study'],
  ['plan', 'Plans'],
];

const KIND_OF_TOPIC: Record<string, TopicalKind> = {
  Health: 'wellbeing',
  Family: 'family',
  Relationships: 'family',
  Pets: 'family',
  Work: 'work',
  Education: 'work',
  Plans: 'plan',
};

/** A statement shorter than this says too little alone; longer, it is a page's, not a line of core memory. */
const MIN_CHARS = 20;
const MAX_CHARS = 220;
const PREFERENCE_RE = /\b(?:loves?|loved|favou?rites?|prefers?|preferred|enjoys?|hates?|can't stand|is (?:a )?(?:big )?fan of)\b/i;
/** Small talk that reached a page: a greeting, thanks, a goodbye or an interjection opening the statement. */
const CHATTER_RE = /^(?:\p{Lu}[\p{L}'’-]*:\s*)?(?:hi|hey|hello|thanks|thank you|bye|goodbye|see you|wow|oh|ooh|aw+|haha|lol|omg|yay|congrats|congratulations|cool|nice|great|sure|okay|ok)\b/iu;

/** The kind of core memory a page statement (without its citations) is, or null. */
export function topicalKind(text: string): TopicalKind | null {
  const body = text.trim();
  if (body.length < MIN_CHARS || body.length > MAX_CHARS || /\?[\s"'”’)*_]*$/u.test(body) || CHATTER_RE.test(body) || body.includes('→')) return null;
  // The subject first ("her daughter loves her teacher" is family); a liking about anything else is a preference.
  const topic = topicOf(body);
  const kind = topic === null ? undefined : KIND_OF_TOPIC[topic];
  return kind ?? (PREFERENCE_RE.test(body) ? 'preference' : null);
}
