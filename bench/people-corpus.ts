/**
 * A generated corpus for the dream benchmark (issue 10): a few hundred facts over months about people,
 * projects, places and preferences, with keyed updates, repeated statements, commitments with dates
 * (absolute and relative) and same-day conflicts. It also says which names are named in ≥ 3 facts,
 * the pages a reader expects. Seeded: the same seed gives the same facts.
 */
import { createRandom } from './random.js';

export interface CorpusFact {
  date: string;
  text: string;
  category: string;
  tags: string[];
}

export interface Corpus {
  facts: CorpusFact[];
  /** People, projects and places named in at least 3 facts. */
  expectedPages: string[];
}

export const PEOPLE = ['Alice Chen', 'Bob Smith', 'Carol Diaz', 'Daniel Okafor', 'Elena Petrova', 'Farid Haddad', 'Grace Kim', 'Hugo Martin'];
export const PROJECTS = ['Atlas', 'Beacon', 'Cedar'];
export const PLACES = ['Lisbon', 'Porto', 'Berlin', 'Kyoto', 'Toronto'];
const ROLES = ['tech lead', 'designer', 'product manager', 'data engineer', 'reviewer'];
const LIKES = ['jazz', 'hiking', 'chess', 'sourdough baking', 'cycling', 'board games'];
const TASKS = ['review the draft', 'send the photos', 'share the budget sheet', 'book the table', 'call back'];
const RELATIVE = ['tomorrow', 'next Friday', 'in two weeks', 'by the end of the month', 'next Monday'];

const iso = (start: number, day: number): string => new Date(start + day * 86_400_000).toISOString().slice(0, 10);

export function generatePeopleCorpus(options: { seed: number; days: number; start?: string }): Corpus {
  const rng = createRandom(options.seed);
  const start = Date.parse(`${options.start ?? '2026-01-05'}T00:00:00Z`);
  const facts: CorpusFact[] = [];
  const add = (day: number, text: string, category: string, tags: string[] = []): void => {
    facts.push({ date: iso(start, day), text, category, tags });
  };
  const first = (name: string): string => name.split(' ')[0]!;
  for (let day = 0; day < options.days; day++) {
    const n = 1 + rng.int(4);
    for (let k = 0; k < n; k++) {
      const person = rng.pick(PEOPLE);
      const other = rng.pick(PEOPLE.filter((p) => p !== person));
      const project = `Project ${rng.pick(PROJECTS)}`;
      const place = rng.pick(PLACES);
      switch (rng.int(12)) {
        case 0:
          add(day, `${person} is the ${rng.pick(ROLES)} on ${project}`, 'fact', ['work']);
          break;
        case 1:
          add(day, `${first(person)} likes ${rng.pick(LIKES)}`, 'preference');
          break;
        case 2:
          add(day, `${person}'s home city:: ${place}`, 'fact');
          break;
        case 3:
          add(day, `Lunch with ${first(person)} and ${other} in ${place}`, 'moment');
          break;
        case 4:
          add(day, `Decided to ${rng.pick(['cut scope', 'add a load test', 'rename the API', 'hire a contractor'])} for ${project} (day ${day})`, 'decision', ['work']);
          break;
        case 5:
          add(day, `Promised ${first(person)} to ${rng.pick(TASKS)} by ${iso(start, day + 3 + rng.int(20))}`, 'commitment');
          break;
        case 6:
          add(day, `Will ${rng.pick(TASKS)} for ${person} ${rng.pick(RELATIVE)}`, 'commitment');
          break;
        case 7:
          add(day, `Prefers ${rng.pick(['dark roast', 'oat milk', 'pour-over', 'a Kenyan roast'])} coffee in the ${rng.pick(['morning', 'afternoon'])}`, 'preference', ['coffee']);
          break;
        case 8:
          add(day, `Prefers ${rng.pick(['green', 'jasmine', 'oolong'])} tea after dinner`, 'preference', rng.int(2) === 0 ? ['tea'] : ['tea', 'coffee']);
          break;
        case 9:
          add(day, `Flew to ${place} for the ${project} workshop`, 'moment', ['travel']);
          break;
        case 10:
          add(day, `${project} status:: ${rng.pick(['planning', 'on track', 'at risk', 'shipped'])}`, 'fact', ['work']);
          break;
        default:
          add(day, `${person} is allergic to ${rng.pick(['peanuts', 'shellfish', 'pollen'])}`, 'fact', ['health']);
      }
    }
    // A duplicate now and then, and a same-day conflict every few weeks.
    if (day % 9 === 4 && facts.length > 3) facts.push({ ...facts[facts.length - 3]!, date: iso(start, day) });
    if (day % 23 === 11) {
      const person = rng.pick(PEOPLE);
      add(day, `${person}'s home city:: ${PLACES[0]!}`, 'fact');
      add(day, `${person}'s home city:: ${PLACES[1]!}`, 'fact');
    }
  }
  const expectedPages = [...PEOPLE, ...PROJECTS.map((p) => `Project ${p}`), ...PLACES].filter((name) => facts.filter((f) => f.text.includes(name)).length >= 3);
  return { facts, expectedPages };
}
