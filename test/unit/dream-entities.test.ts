/**
 * Entity recognition for the offline consolidator's pages (src/dream/entities.ts, issue 25): speaker labels,
 * greetings before names, non-ASCII names, organizations by suffix, places by context, category labels,
 * first names joining full names, one type per name over a batch, and the same entities in the same order.
 */
import { describe, expect, it } from 'vitest';
import { canonical, recognizeEntities, speakerOf, type Entity, type Mention } from '../../src/dream/entities.js';
import type { Fact } from '../../src/logs/factlog.js';

const facts = (texts: readonly string[], tags: (i: number) => string[] = () => []): Fact[] =>
  texts.map((text, i) => ({ id: `f-${String(i).padStart(10, '0')}`, date: '2026-03-01', time: '10:00', batch: 0, source: 'test', category: 'fact', text, tags: tags(i), line: i + 1, explicitId: true }));

/** What offline.ts counts: per fact, the canonical entities named, and over the batch how many facts name each. */
async function recognize(texts: readonly string[], options: { tags?: (i: number) => string[]; speakers?: string[]; known?: Entity[] } = {}) {
  const batch = facts(texts, options.tags);
  const known = options.known ?? [];
  const raw = await recognizeEntities(
    batch,
    known.map((entity) => ({ name: entity.name, entity })),
    options.speakers === undefined ? {} : { speakers: options.speakers },
  );
  const canon = canonical(raw, new Map(known.map((e) => [e.key, e])), options.speakers ?? []);
  const perFact = batch.map((f) => [...new Map((raw.get(f.id) ?? []).map((m) => [canon.of(m.entity.key)!.key, canon.of(m.entity.key)!])).values()]);
  const counts = new Map<string, { entity: Entity; facts: number }>();
  for (const list of perFact) for (const e of list) counts.set(e.key, { entity: e, facts: (counts.get(e.key)?.facts ?? 0) + 1 });
  const names = (i: number): string[] => perFact[i]!.map((e) => e.name);
  const all = [...new Set([...raw.values()].flatMap((list: Mention[]) => list.map((m) => m.entity.name)))];
  return { raw, canon, perFact, counts, names, all, entity: (name: string) => [...counts.values()].find((c) => c.entity.name === name) };
}

describe('recognizeEntities: speakers', () => {
  const turns = [
    'Deborah: Jolene! Congrats on the new job',
    'Jolene: Thanks Deborah! I start on Monday',
    'Deborah: Jolene, how was the first week?',
    'Jolene: Great, Deborah. The team is lovely',
    'Deborah: Wow Jolene, that is wonderful',
    'Jolene: Deborah Jolene fan club meets on Friday, haha',
  ];

  it('reads a `Name: ` label as its speaker and never as part of a name: two speakers addressing each other are two people', async () => {
    const r = await recognize(turns);
    expect(r.entity('Deborah')).toMatchObject({ entity: { name: 'Deborah', type: 'person' }, facts: 6 });
    expect(r.entity('Jolene')).toMatchObject({ entity: { name: 'Jolene', type: 'person' }, facts: 6 });
    expect(r.all.filter((n) => n.includes(':') || n.includes(' '))).toEqual([]);
    expect(r.canon.of('deborah')!.key).not.toBe(r.canon.of('jolene')!.key);
    expect([...r.canon.aliases.values()].flat()).toEqual([]);
    // The speaker is the fact's first mention (its main entity), the person addressed the second.
    expect(r.names(0)).toEqual(['Deborah', 'Jolene']);
    expect(r.names(1)).toEqual(['Jolene', 'Deborah']);
  });

  it('never joins a speaker to a longer name another speaker or a name beside it makes', async () => {
    const r = await recognize(['John: I met John Legend yesterday', 'Maria: Wow, John Legend? Cool', 'John: Maria Lopez came too', 'Maria: John, Maria Lopez is my cousin']);
    expect(r.canon.of('john')!.name).toBe('John');
    expect(r.canon.of('maria')!.name).toBe('Maria');
    expect(r.entity('John')).toMatchObject({ entity: { type: 'person' }, facts: 4 });
    expect(r.all.filter((n) => n.startsWith('John ') || n.startsWith('Maria '))).toEqual([]);
  });

  it('says who speaks, and that a heading is no speaker', () => {
    expect(speakerOf('Deborah: Jolene! Congrats on the new job')).toBe('Deborah');
    expect(speakerOf('Mary Ann: hello')).toBe('Mary Ann');
    for (const heading of ['Relationships', 'Entities', 'Facts', 'Notes', 'Preferences', 'Project Lantern', 'Today', 'Monday']) expect(speakerOf(`${heading}: Diego is allergic to shellfish`), heading).toBeNull();
    expect(speakerOf('Rose: I love it', ['Rose'])).toBe('Rose');
    expect(speakerOf('Caroline: hi', ['Rose'])).toBeNull();
    expect(speakerOf('home city:: Lisbon')).toBeNull();
  });

  it("takes the caller's speakers as people even when the tagger reads the word otherwise", async () => {
    const texts = ['Rose: I planted tulips', 'Rose: They are up already', 'Rose: Sunny day here'];
    expect((await recognize(texts)).entity('Rose')).toBeUndefined();
    expect((await recognize(texts, { speakers: ['Rose'] })).entity('Rose')).toMatchObject({ entity: { type: 'person' }, facts: 3 });
  });
});

describe('recognizeEntities: greetings and sentence-initial words', () => {
  it('drops an interjection or greeting before a name, by what the tagger says about the word alone', async () => {
    const r = await recognize([
      "Anytime Nate! I'm here for you",
      'Congrats Caroline on the adoption',
      'Thanks Mel, that means a lot',
      'Wow Jolene, that is huge',
      'Absolutely Melanie, count me in',
      'Awesome John! See you there',
      'Sure John, sounds good',
      'Woohoo Melanie, you did it',
      'Hey, how are you?',
      'Yes. Sure. Definitely.',
      'Great news: the flat is ours',
    ]);
    expect(r.all.sort()).toEqual(['Caroline', 'John', 'Jolene', 'Mel', 'Melanie', 'Nate']);
    for (const name of r.all) expect(r.entity(name)!.entity.type).toBe('person');
  });

  it('drops them after a speaker label too, so the person addressed keeps one name', async () => {
    const r = await recognize([
      "Joanna: Anytime Nate! I'm here for you",
      'Nate: Woah Joanna, that is a lot of pages',
      'Joanna: Absolutely Nate, see you Friday',
      'Melanie: Woohoo Caroline! Congrats!',
      'Caroline: Thanks Melanie. Happy Birthday Melanie!',
      'Melanie: Sure Caroline, anytime',
    ]);
    expect(r.all.sort()).toEqual(['Caroline', 'Joanna', 'Melanie', 'Nate']);
    expect(r.entity('Nate')).toMatchObject({ entity: { type: 'person' }, facts: 3 });
    expect(r.entity('Melanie')).toMatchObject({ entity: { type: 'person' }, facts: 3 });
  });

  it('keeps a name whose first word reads as a common word when the dictionary knows the phrase', async () => {
    const r = await recognize(['We flew to New York in May', 'New York was loud', 'I miss New York']);
    expect(r.entity('New York')).toMatchObject({ entity: { type: 'place' }, facts: 3 });
    expect(r.all).toEqual(['New York']);
  });
});

describe('recognizeEntities: one name, one entity', () => {
  const amara = [
    'Amara Nwosu joined Northwind Labs as a data engineer',
    'Amara is allergic to shellfish',
    'Lunch with Amara in Tromsø',
    'Thanks Amara! The slides were great',
    "Amara's team moved to the Tromsø office",
  ];

  it('joins a first name alone to the one full name that starts with it, and records the alias', async () => {
    const r = await recognize(amara);
    expect(r.entity('Amara Nwosu')).toMatchObject({ entity: { type: 'person' }, facts: 5 });
    expect(r.canon.aliases.get('amara nwosu')).toEqual(['Amara']);
  });

  it('leaves a first name alone when two full names start with it', async () => {
    const r = await recognize(['Alice Chen leads Project Atlas', 'Alice Wong joined in March', 'Alice said hi']);
    expect(r.names(2)).toEqual(['Alice']);
    expect(r.canon.of('alice')!.name).toBe('Alice');
  });

  it('recognizes a company by its suffix, a place with a non-ASCII name, and "the Tromsø office" as the place Tromsø', async () => {
    const r = await recognize(amara);
    expect(r.entity('Northwind Labs')?.entity.type).toBe('organization');
    expect(r.entity('Tromsø')).toMatchObject({ entity: { type: 'place' }, facts: 2 });
    expect(r.all.filter((n) => /office/u.test(n))).toEqual([]);
  });

  it('gives a name the one type the batch favours, in every fact', async () => {
    const r = await recognize(['Moved to Tromsø in June', 'Tromsø is cold in winter', 'Tromsø has long nights', 'Visited Kraków with Zoë']);
    expect(r.entity('Tromsø')).toMatchObject({ entity: { type: 'place' }, facts: 3 });
    expect(new Set([...r.raw.values()].flat().filter((m) => m.entity.key === 'tromsø').map((m) => m.entity.type))).toEqual(new Set(['place']));
  });
});

describe('recognizeEntities: kinds of names', () => {
  it('reads organizations by suffix and shape', async () => {
    const r = await recognize([
      'Signed with Acme Corp today',
      'Globex Inc. sent the contract',
      'She studies at Kessler University',
      'Opened an account at Harbor Bank',
      'Dr. Okafor works at St. Olaf Hospital',
      'He teaches at the University of Oslo',
      'Northwind Labs is hiring',
    ]);
    for (const name of ['Acme Corp', 'Globex Inc', 'Kessler University', 'Harbor Bank', 'St. Olaf Hospital', 'University of Oslo', 'Northwind Labs']) {
      expect(r.entity(name)?.entity.type, name).toBe('organization');
    }
  });

  it('reads places, including non-ASCII ones, and people with non-ASCII names', async () => {
    const r = await recognize(['Zoë Brandt moved to Zürich', 'Björn Ek lives in São Paulo', 'Flew to Kraków for the workshop', 'Zoë and Björn met in Tromsø', 'Łucja Wójcik called from Kraków']);
    for (const name of ['Zürich', 'São Paulo', 'Kraków', 'Tromsø']) expect(r.entity(name)?.entity.type, name).toBe('place');
    for (const name of ['Zoë Brandt', 'Björn Ek', 'Łucja Wójcik']) expect(r.entity(name)?.entity.type, name).toBe('person');
    expect(r.canon.aliases.get('zoë brandt')).toEqual(['Zoë']);
    expect(r.canon.aliases.get('björn ek')).toEqual(['Björn']);
  });

  it('reads projects by name and by tag, and a keyed fact\'s possessive subject as a person', async () => {
    const r = await recognize(['Project Lantern: Amara owns the ingestion step', 'Decided to cut scope for Project Lantern', "Farid's home city:: Kyoto", 'Shipped the beta'], { tags: (i) => (i === 3 ? ['project-lantern'] : []) });
    expect(r.entity('Project Lantern')).toMatchObject({ entity: { type: 'project' }, facts: 3 });
    expect(r.all).not.toContain('Lantern');
    expect(r.names(2)).toEqual(['Farid', 'Kyoto']);
    expect(r.entity('Kyoto')?.entity.type).toBe('place');
  });

  it('never makes an entity of a category label or a common word', async () => {
    const r = await recognize([
      'Relationships: Diego is allergic to shellfish',
      'Entities: Diego, Valencia',
      'Facts: the flat has two rooms',
      'Notes: call the plumber',
      'Preferences: oat milk',
      'Today I thanked God and Mom for everything',
      'On Monday in March we met at Christmas',
      'Great. Entities and Relationships are sorted',
      'LGBTQ support group meets on Friday',
    ]);
    expect(r.all.sort()).toEqual(['Diego', 'Valencia']);
    expect(r.names(0)).toEqual(['Diego']);
  });

  it('reads a first name that is also a common word ("Frank", "Bill") as a name where a capital says so, never a month or the word itself', async () => {
    const r = await recognize([
      'Frank helped me fix the fence.',
      'I had lunch with Frank at the diner.',
      "Frank's daughter is starting college in the fall.",
      'Bill lent me his ladder.',
      'I met Bill at the hardware store.',
      'I paid the phone bill and gave a frank answer.',
      'Rose planted roses; we meet in June.',
    ]);
    expect(r.entity('Frank')?.facts).toBe(3);
    expect(r.entity('Frank')?.entity.type).toBe('person');
    expect(r.entity('Bill')?.facts).toBe(2);
    expect(r.names(5)).toEqual([]);
    // "Rose" only ever opens a sentence here and "June" is a month: neither is a name.
    expect(r.names(6)).toEqual([]);
  });

  it('finds a known page\'s name and aliases wherever they stand', async () => {
    const farid: Entity = { name: 'Farid Haddad', key: 'farid haddad', type: 'person' };
    const r = await recognize(['met farid haddad', 'Farid Haddad likes chess', 'so Farid Haddad called'], { known: [farid] });
    expect(r.entity('Farid Haddad')).toMatchObject({ facts: 2 });
  });
});

describe('recognizeEntities: acronyms and initials', () => {
  it('reads an acronym the dictionary knows as the place or organization it is', async () => {
    const r = await recognize(['Tim: I went to a castle in the UK last Friday', 'Tim: NASA hired my cousin', 'John: Was the UK rainy?', 'Tim: The UK was lovely, NASA was closed']);
    expect(r.entity('UK')).toMatchObject({ entity: { type: 'place' }, facts: 3 });
    expect(r.entity('NASA')).toMatchObject({ entity: { type: 'organization' }, facts: 2 });
  });

  it('reads an unknown acronym as a name when compromise reads the phrase it opens as one, and joins it alone to that name', async () => {
    const r = await recognize([
      'Caroline: I went to an LGBTQ support group yesterday',
      'Melanie: The LGBTQ community needs more platforms like this',
      'Caroline: I talked to students about the LGBTQ community',
      'Caroline: LGBTQ rights have come a long way',
    ]);
    expect(r.entity('LGBTQ community')).toMatchObject({ entity: { type: 'organization' }, facts: 4 });
    expect(r.canon.aliases.get('lgbtq community')).toEqual(['LGBTQ']);
  });

  it('makes no name of an acronym only ever used as a word', async () => {
    const r = await recognize(['Anna: I love DIY projects', 'Anna: She is the CTO now', 'Anna: My DIY shelf fell', 'Anna: The CTO called, DIY again']);
    expect(r.all).toEqual(['Anna']);
  });

  it('keeps dotted initials in the name they open, however they are spaced', async () => {
    const r = await recognize([
      'Tim: J.K. Rowling is such an inspiring writer',
      'John: Do you have a favorite J.K. Rowling quote?',
      'Tim: I just finished a book by J. R. R. Tolkien',
      'Tim: J.R.R. Tolkien drew the best maps',
      'John: Tolkien again?',
    ]);
    expect(r.entity('J.K. Rowling')).toMatchObject({ entity: { type: 'person' }, facts: 2 });
    const tolkien = [...r.counts.values()].filter((c) => c.entity.name.endsWith('Tolkien'));
    expect(tolkien).toHaveLength(1);
    expect(tolkien[0]).toMatchObject({ entity: { type: 'person' }, facts: 3 });
    expect(r.all.filter((n) => /^(?:J|R|JK|J\.K)$/u.test(n))).toEqual([]);
  });
});

describe('recognizeEntities: determinism', () => {
  it('gives the same entities in the same order for the same texts', async () => {
    const texts = ['Deborah: Jolene! Congrats on the new job', 'Jolene: Thanks Deborah!', 'Amara Nwosu joined Northwind Labs in Tromsø', 'Amara moved to the Tromsø office', 'Lunch with Zoë Brandt and Björn Ek in Zürich'];
    const once = JSON.stringify([...(await recognizeEntities(facts(texts))).entries()]);
    const twice = JSON.stringify([...(await recognizeEntities(facts(texts))).entries()]);
    expect(twice).toBe(once);
    expect(once).toContain('Northwind Labs');
  });
});

describe('canonical: nicknames', () => {
  it("folds a speaker's short name into the speaker ('Mel' is Melanie), never one speaker into another", async () => {
    const { canon } = await recognize(
      ['Melanie: I painted a lake today', 'Caroline: Mel, that sounds lovely', 'Caroline: Thanks Mel!', 'Jo: Joanna and I went hiking', 'Joanna: Jo is my cousin'],
      { speakers: ['Melanie', 'Caroline', 'Jo', 'Joanna'] },
    );
    expect(canon.of('mel')?.name).toBe('Melanie');
    expect(canon.aliases.get('melanie')).toEqual(['Mel']);
    // Jo speaks: Jo and Joanna are two people.
    expect(canon.of('jo')?.name).toBe('Jo');
    expect(canon.of('joanna')?.name).toBe('Joanna');
  });
});
