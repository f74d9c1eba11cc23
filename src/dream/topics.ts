/**
 * What a statement is about, for the sections of an entity's page (issue 25: "long pages are sectioned by
 * subject"): Health, Family, Work, Home, … A statement's words are stemmed with Porter2 (the stemmer the
 * index uses) and looked up in a small vocabulary per subject; the subject with most hits wins, ties in the
 * order below, which puts what an agent must never miss (health) first. No offline library classifies
 * everyday topics, and a vocabulary on stems is deterministic, fast (50,000 statements in well under a
 * second) and easy to read and extend. A statement with no hit has no subject (null).
 */
import { stem } from 'porter2';

/** Subjects in rank order: a tie goes to the earlier one. */
export const TOPICS = ['Health', 'Family', 'Relationships', 'Work', 'Education', 'Home', 'Money', 'Travel', 'Hobbies', 'Food', 'Pets', 'Plans', 'Feelings'] as const;
export type Topic = (typeof TOPICS)[number];

const WORDS: Record<Topic, string> = {
  Health:
    'allergy allergic asthma diabetes diabetic epilepsy celiac gluten lactose medication medicine prescription insulin epipen doctor dentist hospital surgery injury injured sick illness ill disease therapy therapist diagnosis diagnosed symptom pain migraine health healthy fitness workout gym vaccine pregnant pregnancy anxiety depression mental clinic nurse recovering recovery',
  Family:
    'family mom mother dad father parent parents son daughter kid kids child children baby brother sister sibling grandma grandmother grandpa grandfather grandchild aunt uncle cousin niece nephew husband wife adopt adoption adopted',
  Relationships: 'friend friends friendship partner girlfriend boyfriend fiance fiancee married marriage wedding dating date divorce breakup neighbor neighbour mentor relationship community',
  Work: 'work job career office boss manager colleague coworker team promotion promoted salary hired hiring interview client company startup business employer employee project deadline meeting shift role position engineer designer counselor counseling resume',
  Education: 'school college university class course degree study studying student teacher exam lesson learn learning graduate graduated graduation homework thesis education',
  Home: 'home house apartment flat rent moved move moving neighborhood room garden kitchen renovation city town live lives living',
  Money: 'money bank budget savings loan mortgage debt invest investment pay paid price cost expensive bills insurance tax',
  Travel: 'trip travel travelled traveled traveling vacation holiday flight fly flew abroad visit visited tour beach camping camp hike hiking road hotel passport country',
  Hobbies:
    'hobby painting paint painted art artist drawing music song songs guitar piano violin sing singing band concert dance dancing book books reading read novel writing poem poetry photography photo photos pottery game games gaming sport sports soccer football basketball tennis running run race marathon yoga swimming cooking baking garden gardening craft knitting film movie movies show festival museum',
  Food: 'food eat eating ate meal dinner lunch breakfast restaurant recipe vegetarian vegan pescatarian coffee tea wine beer dessert cake pizza',
  Pets: 'pet pets dog dogs puppy pup cat cats kitten horse bird fish turtle hamster rabbit',
  Plans: 'plan plans planning goal goals dream hope hoping want intend going gonna future next soon someday',
  Feelings: 'feel feeling felt happy sad proud grateful thankful excited scared afraid lonely love loved stressed overwhelmed hopeful inspired motivated',
};

/** stem → the subjects it belongs to, in rank order. */
const STEMS: ReadonlyMap<string, readonly Topic[]> = (() => {
  const map = new Map<string, Topic[]>();
  for (const topic of TOPICS) {
    for (const word of WORDS[topic].split(' ')) {
      const key = stem(word);
      const list = map.get(key) ?? [];
      if (!list.includes(topic)) list.push(topic);
      map.set(key, list);
    }
  }
  return map;
})();

const WORD_RE = /[\p{L}\p{N}]+/gu;

/** The subject a statement is most about, or null when no word of it names one. */
export function topicOf(text: string): Topic | null {
  const hits = new Map<Topic, number>();
  for (const match of text.toLowerCase().matchAll(WORD_RE)) {
    for (const topic of STEMS.get(stem(match[0])) ?? []) hits.set(topic, (hits.get(topic) ?? 0) + 1);
  }
  let best: Topic | null = null;
  for (const topic of TOPICS) if ((hits.get(topic) ?? 0) > (best === null ? 0 : hits.get(best)!)) best = topic;
  return best;
}
