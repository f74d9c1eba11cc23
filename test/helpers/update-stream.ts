/**
 * A deterministic update stream for tests of the dream: entities whose keyed attributes
 * (`subject:: value`) change over the days, with repeated statements, corrections, same-day
 * contradictions, facts that are later forgotten, and plain tagged facts. Same seed, same stream.
 */
import type { FactInput } from '../../src/logs/factlog.js';

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface StreamFact {
  /** A name for the fact that the test maps to the id `remember` gives it. */
  ref: string;
  input: FactInput & { date: string };
}

/** One `remember` call: the facts of one date, written at `time` (HH:MM, UTC). */
export interface StreamBatch {
  date: string;
  time: string;
  facts: StreamFact[];
}

export type ChangeKind = 'set' | 'change' | 'correction' | 'contradiction';

export interface AttributeEvent {
  ref: string;
  date: string;
  value: string;
  /** How this value replaced the one before it. */
  kind: ChangeKind;
  /** Refs of later statements of the same value while it stood (duplicates of this event). */
  repeats: Array<{ ref: string; date: string }>;
}

export interface Attribute {
  subject: string;
  /** The tag that routes the entity's facts to its page (the page is named after it). */
  tag: string;
  events: AttributeEvent[];
  /** Forgotten as a whole (by match on its subject) once consolidated. */
  forgotten: boolean;
}

export interface Duplicate {
  /** The statement as first written; the others differ only in case and punctuation. */
  text: string;
  refs: Array<{ ref: string; date: string }>;
  forgotten: boolean;
}

export interface Forget {
  /** `before`: right after the stream is written, before any dream; `after`: once the watermark has reached `date`. */
  when: 'before' | 'after';
  date: string;
  target: { ref: string } | { match: string };
  /** Every fact this forget removes (for the assertions). */
  refs: string[];
  /** Words that must appear nowhere afterwards (the forgotten text or values). */
  texts: string[];
}

export interface UpdateStream {
  days: string[];
  batches: StreamBatch[];
  attributes: Attribute[];
  duplicates: Duplicate[];
  forgets: Forget[];
  facts: number;
}

const DAY_MS = 86_400_000;

export function dayList(first: string, count: number): string[] {
  const start = Date.parse(`${first}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => new Date(start + i * DAY_MS).toISOString().slice(0, 10));
}

interface EntitySpec {
  name: string;
  tag: string;
  category: 'fact' | 'entity' | 'decision';
  attributes: Array<{ subject: string; pool: readonly string[] }>;
}

const EMPLOYERS = ['Globex', 'Initech', 'Umbrella', 'Hooli', 'Vandelay Industries', 'Wayne Enterprises', 'Stark Industries', 'Acme', 'Soylent', 'Tyrell', 'Cyberdyne', 'Wonka'];
const CITIES = ['Lisbon', 'Porto', 'Braga', 'Coimbra', 'Madrid', 'Seville', 'Berlin', 'Oslo', 'Kyoto', 'Montreal', 'Dublin', 'Valencia'];
const ROLES = ['backend engineer', 'designer', 'product manager', 'data scientist', 'team lead', 'consultant', 'researcher', 'site reliability engineer'];
const NAMES = ['Helena Costa', 'Marco Silva', 'Ines Duarte', 'Tomas Reis', 'Rita Nunes', 'Paulo Gomes', 'Sofia Matos', 'Joao Pires', 'Lucia Ramos', 'Nuno Faria'];
const WIFI = ['lx-staff', 'lx-guest-5g', 'office-mesh', 'lisbon-corp', 'lx-secure'];
const BOATS = ['green canoe', 'red kayak', 'sailboat Marta', 'rowing boat', 'paddle board'];
const MEMBERSHIP = ['monthly plan', 'annual plan', 'paused', 'student plan', 'family plan'];
const STATUS = ['planning', 'in progress', 'blocked on legal', 'in review', 'shipped', 'on hold', 'beta'];
const DEADLINES = ['end of March', 'mid April', 'end of April', 'early May', 'end of June', 'September'];
const ADDRESSES = ['12 Elm Street', '9 Rua Augusta', '41 Harbour Road'];

const ENTITIES: readonly EntitySpec[] = [
  ...['Ana', 'Bruno', 'Chloe', 'Dmitri', 'Esme', 'Farid'].map((name) => ({
    name,
    tag: name.toLowerCase(),
    category: 'fact' as const,
    attributes: [
      { subject: `${name}'s employer`, pool: EMPLOYERS },
      { subject: `${name}'s city`, pool: CITIES },
      { subject: `${name}'s role`, pool: ROLES },
    ],
  })),
  { name: 'Lisbon office', tag: 'lisbon-office', category: 'entity', attributes: [{ subject: 'Lisbon office manager', pool: NAMES }, { subject: 'Lisbon office wifi network', pool: WIFI }] },
  { name: 'Lake cabin', tag: 'lake-cabin', category: 'entity', attributes: [{ subject: 'Lake cabin caretaker', pool: NAMES }, { subject: 'Lake cabin boat', pool: BOATS }] },
  { name: 'Riverside gym', tag: 'riverside-gym', category: 'entity', attributes: [{ subject: 'Riverside gym trainer', pool: NAMES }, { subject: 'Riverside gym membership', pool: MEMBERSHIP }] },
  { name: 'Harbor clinic', tag: 'harbor-clinic', category: 'entity', attributes: [{ subject: 'Harbor clinic doctor', pool: NAMES.map((n) => `Dr. ${n.split(' ')[1]}`) }] },
  ...['Atlas', 'Borealis', 'Cygnus', 'Dorado', 'Eridani'].map((name) => ({
    name: `Project ${name}`,
    tag: `project-${name.toLowerCase()}`,
    category: 'decision' as const,
    attributes: [
      { subject: `Project ${name} status`, pool: STATUS },
      { subject: `Project ${name} lead`, pool: NAMES },
      { subject: `Project ${name} deadline`, pool: DEADLINES },
    ],
  })),
];

const BOOKS = ['Piranesi', 'Middlemarch', 'The Dispossessed', 'Stoner', 'Kindred', 'Pachinko', 'Dune', 'Beloved', 'Solaris', 'Ficciones'];
const PLACES = ['Cervejaria Ramiro', 'Time Out Market', 'the riverside kiosk', 'Tasca do Chico', 'the rooftop bar', 'Cafe Nicola'];
const SKILLS = ['bouldering', 'Portuguese', 'woodworking', 'the cello', 'sourdough baking', 'Rust', 'sailing', 'chess openings'];
const TOPICS = ['coffee', 'running', 'reading', 'health', 'travel', 'cooking'];

/**
 * Generates the stream: `days` consecutive dates from `first`, a morning batch (09:00) every day and
 * an evening one (18:00) on some days.
 */
export function generateUpdateStream(options: { seed?: number; first?: string; days?: number } = {}): UpdateStream {
  const rand = prng(options.seed ?? 20260101);
  const int = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const days = dayList(options.first ?? '2026-01-01', options.days ?? 60);
  const last = days.length - 1;
  /** Fixed days of the stream, pulled in when the stream is shorter. */
  const clamp = (day: number): number => Math.min(day, last);

  type Slot = 'am' | 'pm';
  const slots = new Map<string, StreamFact[]>();
  let counter = 0;
  const used = new Set<string>();
  const add = (day: number, slot: Slot, fact: Omit<FactInput, 'date'>, prefix: string): StreamFact => {
    const date = days[day]!;
    const entry: StreamFact = { ref: `${prefix}-${++counter}`, input: { ...fact, date } };
    const key = `${date}|${slot}`;
    slots.set(key, [...(slots.get(key) ?? []), entry]);
    return entry;
  };

  // Keyed attributes: a first value, then one to three changes; some changes are corrections (the same
  // day or later), some are same-day contradictions (two values, neither a correction), and a standing
  // value is sometimes stated again on a later day.
  const attributes: Attribute[] = [];
  let index = 0;
  for (const entity of ENTITIES) {
    for (const spec of entity.attributes) {
      const style = index++ % 6;
      const pool = [...spec.pool];
      const draw = (): string => pool.splice(Math.floor(rand() * pool.length), 1)[0]!;
      // Change days spread over the stream, at least three days apart, so a repeat fits between them.
      const start = int(0, Math.min(10, last));
      const changes = Math.min(style === 0 || style === 3 ? int(2, 3) : int(1, 3), Math.floor((last - start) / 3));
      const eventDays = [start];
      const span = (last - start) / changes;
      for (let c = 1; c <= changes; c++) eventDays.push(Math.min(last, Math.max(eventDays.at(-1)! + 3, start + Math.round(span * (c - 0.5) + rand() * span * 0.5))));
      if (eventDays.some((day, n) => n > 0 && day <= eventDays[n - 1]!)) throw new Error(`update stream: event days of ${spec.subject} collide`);
      const events: AttributeEvent[] = [];
      const line = (value: string, category: string, day: number, slot: Slot, kind: ChangeKind): AttributeEvent => {
        const fact = add(day, slot, { text: `${spec.subject}:: ${value}`, category, tags: [entity.tag] }, 'k');
        const event: AttributeEvent = { ref: fact.ref, date: days[day]!, value, kind, repeats: [] };
        events.push(event);
        return event;
      };
      eventDays.forEach((day, n) => {
        if (n === 0) {
          line(draw(), entity.category, day, 'am', 'set');
          return;
        }
        const isLast = n === eventDays.length - 1;
        const kind: ChangeKind =
          (style === 0 && isLast) || (style === 3 && n === 1) ? 'contradiction' : (style === 1 && n === 1) || (style === 4 && isLast) ? 'correction' : rand() < 0.2 ? 'correction' : 'change';
        if (kind === 'change') line(draw(), entity.category, day, 'am', 'change');
        else if (kind === 'contradiction') {
          // Two different values on one day, neither of them a correction: a conflict to flag.
          line(draw(), entity.category, day, 'am', 'change');
          line(draw(), entity.category, day, 'pm', 'contradiction');
        } else if (rand() < 0.6) {
          // Stated in the morning, corrected in the evening of the same day.
          line(draw(), entity.category, day, 'am', 'change');
          line(draw(), 'correction', day, 'pm', 'correction');
        } else line(draw(), 'correction', day, 'am', 'correction');
      });
      // Repeats of a standing value, on a day with no other event of this attribute.
      for (let n = 0; n < eventDays.length; n++) {
        const from = eventDays[n]! + 1;
        const to = (eventDays[n + 1] ?? last + 1) - 1;
        if (to < from || rand() < 0.5) continue;
        const event = events.filter((e) => e.date === days[eventDays[n]!]!).at(-1)!;
        for (const day of [...new Set([int(from, to), int(from, to)])].sort((a, b) => a - b)) {
          const fact = add(day, 'am', { text: `${spec.subject}:: ${event.value}`, category: entity.category, tags: [entity.tag] }, 'r');
          event.repeats.push({ ref: fact.ref, date: days[day]! });
        }
      }
      attributes.push({ subject: spec.subject, tag: entity.tag, events, forgotten: false });
    }
  }

  // A sensitive attribute, later forgotten as a whole (its current line and its history).
  const address: Attribute = { subject: "Farid's home address", tag: 'farid', events: [], forgotten: true };
  for (const [day, value, kind] of [[clamp(3), ADDRESSES[0]!, 'set'], [clamp(17), ADDRESSES[1]!, 'change']] as const) {
    const fact = add(day, day === clamp(3) && kind === 'change' ? 'pm' : 'am', { text: `Farid's home address:: ${value}`, category: 'fact', tags: ['farid'] }, 'k');
    address.events.push({ ref: fact.ref, date: days[day]!, value, kind, repeats: [] });
  }
  attributes.push(address);

  // Statements repeated on several days, in varying case and punctuation (normalized duplicates).
  const duplicates: Duplicate[] = [];
  // The last element: tags of the later occurrences when they differ from the first one's (the same
  // statement filed under another topic is still one statement).
  const repeated: Array<[string, string, string, boolean, string[]?]> = [
    ['Bruno prefers window seats on long flights', 'preference', 'bruno', false],
    ['The team retro happens every other Friday', 'fact', 'project-atlas', false],
    ['Ana takes her coffee black, no sugar', 'preference', 'coffee', false],
    ['Never deploy on a Friday afternoon', 'principle', '', false, ['ops']],
    ['Chloe is allergic to peanuts', 'fact', 'chloe', false, ['health', 'chloe']],
    ['Esme prefers oat milk in her flat white', 'preference', 'esme', false, ['coffee']],
    ['Dmitri keeps a spare key to the lake cabin under the blue pot', 'fact', 'lake-cabin', true],
  ];
  repeated.forEach(([text, category, tag, forgotten, laterTags], n) => {
    const dupDays = forgotten ? [...new Set([4, 11, 41].map(clamp))] : [...new Set([int(0, 20), int(15, 40), int(30, last), ...(n % 2 === 0 ? [int(0, last)] : [])])].sort((a, b) => a - b);
    const refs = dupDays.map((day, k) => {
      const variant = k % 3 === 0 ? text : k % 3 === 1 ? `${text.toLowerCase()}.` : `${text.toUpperCase()}!`;
      const tags = k > 0 && laterTags !== undefined ? laterTags : tag === '' ? [] : [tag];
      const fact = add(day, k % 2 === 0 ? 'am' : 'pm', { text: variant, category, tags }, 'd');
      return { ref: fact.ref, date: days[day]! };
    });
    duplicates.push({ text, refs, forgotten });
  });

  // Plain facts with tags: several a day, every text distinct.
  const people = ['Ana', 'Bruno', 'Chloe', 'Dmitri', 'Esme', 'Farid'];
  const plain = (day: number): Omit<FactInput, 'date'> => {
    const person = pick(people);
    const tag = person.toLowerCase();
    const project = pick(['Atlas', 'Borealis', 'Cygnus', 'Dorado', 'Eridani']);
    const n = day + 1;
    switch (int(0, 9)) {
      case 0:
        return { text: `${person} recommended the book ${pick(BOOKS)} on day ${n}`, category: 'fact', tags: [tag, 'reading'] };
      case 1:
        return { text: `Lunch with ${person} at ${pick(PLACES)} on day ${n}`, category: 'moment', tags: [tag] };
      case 2:
        return { text: `${person} has started learning ${pick(SKILLS)} (noted on day ${n})`, category: 'skill', tags: [tag] };
      case 3:
        return { text: `Ran ${int(3, 21)} km along the river on day ${n}`, category: 'moment', tags: ['running'] };
      case 4:
        return { text: `Decided to ${pick(['cut scope', 'add a load test', 'rename the API', 'drop the beta flag', 'hire a contractor'])} for Project ${project} on day ${n}`, category: 'decision', tags: [`project-${project.toLowerCase()}`] };
      case 5:
        return { text: `Promised ${person} to ${pick(['review the draft', 'send the photos', 'call back', 'book the table'])} by day ${n + 3}`, category: 'commitment', tags: [] };
      case 6:
        return { text: `${person}: the ${pick(['new office', 'trip', 'workshop', 'concert'])} on day ${n} was great`, category: 'moment', tags: [] };
      case 7:
        return { text: `Tried ${pick(['a flat white', 'cold brew', 'an Aeropress recipe', 'a Kenyan roast'])} on day ${n}`, category: 'preference', tags: ['coffee'] };
      case 8:
        return { text: `Read about ${pick(TOPICS)} habits on day ${n}`, category: 'fact', tags: [pick(TOPICS)] };
      default:
        return { text: `Keep meeting notes short and searchable (thought on day ${n})`, category: 'principle', tags: [] };
    }
  };
  for (let day = 0; day <= last; day++) {
    const count = int(2, 4);
    for (let k = 0; k < count; k++) {
      const fact = plain(day);
      if (used.has(fact.text)) continue;
      used.add(fact.text);
      add(day, k === count - 1 && rand() < 0.3 ? 'pm' : 'am', fact, 'p');
    }
  }

  // Facts that are forgotten: some before any dream, some once a dream has put them on a page.
  const forgets: Forget[] = [];
  const secret = (day: number, text: string, tags: string[], when: 'before' | 'after'): void => {
    const fact = add(day, 'am', { text, category: 'fact', tags }, 't');
    forgets.push({ when, date: days[day]!, target: { ref: fact.ref }, refs: [fact.ref], texts: [text] });
  };
  // A confidence, not a credential: a PIN said here would be redacted before it reached the log (src/secrets/).
  secret(clamp(2), 'Ana mentioned her bank overdraft by mistake', ['ana'], 'before');
  secret(clamp(33), 'Esme mentioned a confidential layoff plan at Zephyrcorp', ['esme'], 'before');
  secret(clamp(6), 'Bruno is secretly interviewing at Quuxlabs', ['bruno'], 'after');
  secret(clamp(20), 'The Cygnus budget overrun is 38 percent', ['project-cygnus'], 'after');
  const spare = duplicates.find((d) => d.forgotten)!;
  forgets.push({ when: 'after', date: spare.refs[Math.min(1, spare.refs.length - 1)]!.date, target: { match: 'spare key to the lake cabin' }, refs: spare.refs.map((r) => r.ref), texts: [spare.text] });
  forgets.push({
    when: 'after',
    date: address.events.at(-1)!.date,
    target: { match: "Farid's home address" },
    refs: address.events.map((e) => e.ref),
    texts: ["Farid's home address", ...address.events.map((e) => e.value)],
  });

  const batches: StreamBatch[] = [];
  for (const date of days) {
    for (const [slot, time] of [['am', '09:00'], ['pm', '18:00']] as const) {
      const facts = slots.get(`${date}|${slot}`);
      if (facts !== undefined) batches.push({ date, time, facts });
    }
  }
  return { days, batches, attributes, duplicates, forgets, facts: batches.reduce((n, b) => n + b.facts.length, 0) };
}
