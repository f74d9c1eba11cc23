/**
 * `node dist-bench/bench/entity-sample.js`: what the offline consolidator's entity recognition
 * (src/dream/entities.ts) makes of real and generated facts (issue 25, "entities right"). For each LoCoMo
 * conversation 0–6 (one fact per turn, "Speaker: text", as bench/eval.ts builds them; 7–9 are held out),
 * the generated people corpus (bench/people-corpus.ts) and a seeded corpus of non-ASCII names, companies
 * and offices written here, it prints the entities named in ≥ 3 facts (name, type, facts, aliases), every
 * entity whose name holds a speaker label or an interjection, any two speakers merged into one entity, the
 * expected names that got no such entity, and the time per fact. Flags:
 *   --data PATH            locomo10.json (default ../shared/data/locomo/locomo10.json from the repository)
 *   --conversations LIST   comma-separated indices (default 0,1,2,3,4,5,6)
 *   --all                  list every entity in ≥ 3 facts (default: the first 25 by count)
 *   --scale N              also time one batch of N facts (default 50000: a backlog), from all samples repeated
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { canonical, recognizeEntities, type Entity, type EntityType } from '#src/dream/entities.js';
import type { Fact } from '#src/logs/factlog.js';
import { normalizeText } from '#src/text/normalize.js';
import { readLocomo, turnText } from './locomo.js';
import { generatePeopleCorpus } from './people-corpus.js';
import { createRandom } from './random.js';
import { REPO_ROOT, print } from './report.js';

/** Words that open a greeting or a reply: a name holding one as a word was read wrongly. Kept apart from entities.ts's own list on purpose. */
const INTERJECTIONS = new Set(
  'anytime congrats congratulations thanks thank thx hey hi hello wow absolutely yes yeah yep sure oh omg aww awww ok okay great awesome nice cool lol haha hahaha welcome bye goodbye sorry well wait hmm ooh yay whoa totally definitely really right exactly indeed cheers'.split(' '),
);

interface Sample {
  name: string;
  facts: Fact[];
  speakers: string[];
  /** Names a reader expects a page for, with their type. */
  expected: Array<{ name: string; type: EntityType }>;
}

interface Counted {
  entity: Entity;
  facts: number;
  aliases: string[];
}

function fact(id: string, date: string, text: string, line: number, tags: string[] = []): Fact {
  return { id, date, time: '10:00', batch: 0, source: 'bench', category: 'fact', text, tags, line, explicitId: true };
}

async function measure(sample: Sample): Promise<{ counted: Counted[]; ms: number; all: Map<string, Entity> }> {
  const started = performance.now();
  const raw = await recognizeEntities(sample.facts);
  const canon = canonical(raw, new Map());
  const ms = performance.now() - started;
  const counts = new Map<string, Counted>();
  const all = new Map<string, Entity>();
  for (const list of raw.values()) {
    const seen = new Set<string>();
    for (const m of list) {
      all.set(m.entity.key, m.entity);
      const entity = canon.of(m.entity.key) ?? m.entity;
      if (seen.has(entity.key)) continue;
      seen.add(entity.key);
      const c = counts.get(entity.key) ?? { entity, facts: 0, aliases: canon.aliases.get(entity.key) ?? [] };
      c.facts++;
      counts.set(entity.key, c);
    }
  }
  const counted = [...counts.values()].sort((a, b) => b.facts - a.facts || a.entity.key.localeCompare(b.entity.key));
  return { counted, ms, all };
}

function report(sample: Sample, counted: Counted[], all: Map<string, Entity>, ms: number, listAll: boolean): { badNames: number; merged: number; missing: number } {
  const frequent = counted.filter((c) => c.facts >= 3);
  print(`\n## ${sample.name}: ${sample.facts.length} facts, ${(ms / sample.facts.length).toFixed(3)} ms per fact, ${frequent.length} entities in ≥ 3 facts`);
  for (const c of listAll ? frequent : frequent.slice(0, 25)) {
    print(`  ${c.entity.name} (${c.entity.type}) ×${c.facts}${c.aliases.length > 0 ? `  aliases: ${c.aliases.join(', ')}` : ''}`);
  }
  if (!listAll && frequent.length > 25) print(`  … ${frequent.length - 25} more`);
  const speakerWords = new Set(sample.speakers.map((s) => s.toLowerCase()));
  const bad = [...all.values()].filter((e) => {
    const words = e.name.toLowerCase().split(/\s+/u);
    const label = /:/u.test(e.name) || (words.length > 1 && words.some((w) => speakerWords.has(w)) && !sample.speakers.some((s) => e.name.startsWith(`${s} `) && !speakerWords.has(words.at(-1)!)));
    return label || words.some((w) => INTERJECTIONS.has(w));
  });
  print(`  names with a speaker label or an interjection: ${bad.length === 0 ? 'none' : bad.map((e) => `"${e.name}" (${e.type})`).join(', ')}`);
  const byKey = new Map(counted.map((c) => [c.entity.key, c]));
  let merged = 0;
  const keys = sample.speakers.map((s) => normalizeText(s));
  for (let i = 0; i < keys.length; i++) {
    for (let j = i + 1; j < keys.length; j++) {
      const one = [...byKey.values()].find((c) => c.entity.key === keys[i] || c.aliases.some((a) => normalizeText(a) === keys[i]));
      const two = [...byKey.values()].find((c) => c.entity.key === keys[j] || c.aliases.some((a) => normalizeText(a) === keys[j]));
      if (one !== undefined && one === two) {
        merged++;
        print(`  MERGED speakers ${sample.speakers[i]} and ${sample.speakers[j]} into "${one.entity.name}"`);
      }
    }
  }
  if (merged === 0 && keys.length > 1) print('  speakers merged: none');
  let missing = 0;
  for (const want of sample.expected) {
    const got = byKey.get(normalizeText(want.name));
    if (got === undefined || got.facts < 3 || got.entity.type !== want.type) {
      missing++;
      print(`  MISSING ${want.name} (${want.type}): ${got === undefined ? 'no entity' : `${got.entity.type} ×${got.facts}`}`);
    }
  }
  if (sample.expected.length > 0) print(`  expected names found with their type in ≥ 3 facts: ${sample.expected.length - missing}/${sample.expected.length}`);
  return { badNames: bad.length, merged, missing };
}

/** A seeded corpus of the shapes the issue names: non-ASCII people and places, companies by suffix, an office in a city, greetings before names, category labels. */
function namedCorpus(seed: number, count: number): Sample {
  const rng = createRandom(seed);
  const people = [
    { full: 'Amara Nwosu', first: 'Amara' },
    { full: 'Zoë Brandt', first: 'Zoë' },
    { full: 'Björn Ek', first: 'Björn' },
    { full: 'Diego Ramírez', first: 'Diego' },
    { full: 'Łucja Wójcik', first: 'Łucja' },
  ];
  const orgs = ['Northwind Labs', 'Acme Corp', 'Globex Inc.', 'Harbor Bank', 'Kessler University', 'St. Olaf Hospital'];
  const places = ['Tromsø', 'Zürich', 'São Paulo', 'Kraków', 'Valencia'];
  const templates: Array<(p: (typeof people)[number], o: string, pl: string) => string> = [
    (p, o) => `${p.full} joined ${o} as a data engineer`,
    (p) => `${p.first} is allergic to shellfish`,
    (p, _o, pl) => `${p.full} moved to ${pl} last spring`,
    (p, o, pl) => `Met ${p.first} at the ${pl} office of ${o}`,
    (p, _o, pl) => `Thanks ${p.first}! The trip to ${pl} was lovely`,
    (p) => `Congrats ${p.first} on the promotion`,
    (p, o) => `Relationships: ${p.full} reports to the CTO of ${o}`,
    (p) => `Project Lantern: ${p.first} owns the ingestion step`,
    (_p, o, pl) => `${o} opened an office in ${pl}`,
    (p, o) => `Notes: ${p.first} thinks ${o} will ship in March`,
    (p, _o, pl) => `Hey ${p.first}, are you still in ${pl} on Monday?`,
  ];
  const facts: Fact[] = [];
  for (let i = 0; i < count; i++) {
    const text = rng.pick(templates)(rng.pick(people), rng.pick(orgs), rng.pick(places));
    facts.push(fact(`n${i}`, `2026-02-${String(1 + (i % 28)).padStart(2, '0')}`, text, i + 1, i % 5 === 0 ? ['project-lantern'] : []));
  }
  const named = (name: string): number => facts.filter((f) => f.text.includes(name)).length;
  const expected = [
    ...people.filter((p) => named(p.first) >= 3).map((p) => ({ name: p.full, type: 'person' as const })),
    ...orgs.filter((o) => named(o) >= 3).map((o) => ({ name: o.replace(/\.$/u, ''), type: 'organization' as const })),
    ...places.filter((p) => named(p) >= 3).map((p) => ({ name: p, type: 'place' as const })),
    { name: 'Project Lantern', type: 'project' as const },
  ];
  return { name: 'named corpus (seed 7, non-ASCII names, companies, offices)', facts, speakers: [], expected };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', default: path.join(REPO_ROOT, '..', 'shared', 'data', 'locomo', 'locomo10.json') },
      conversations: { type: 'string', default: '0,1,2,3,4,5,6' },
      all: { type: 'boolean', default: false },
      scale: { type: 'string', default: '50000' },
    },
  });
  const wanted = values.conversations.split(',').map(Number);
  if (wanted.some((n) => n >= 7)) throw new Error('conversations 7–9 are held out: tune on 0–6 only');
  const samples: Sample[] = [];
  for (const conv of (await readLocomo(values.data)).filter((c) => wanted.includes(c.index))) {
    const facts: Fact[] = [];
    for (const session of conv.sessions) for (const turn of session.turns) facts.push(fact(`${conv.index}-${turn.dia_id}`, session.date, turnText(turn, false), facts.length + 1));
    const speakers = [...new Set(conv.sessions.flatMap((s) => s.turns.map((t) => t.speaker)))].sort();
    samples.push({ name: `LoCoMo ${conv.index} (${conv.sampleId}, ${speakers.join(' & ')})`, facts, speakers, expected: speakers.map((s) => ({ name: s, type: 'person' })) });
  }
  const corpus = generatePeopleCorpus({ seed: 20260105, days: 150 });
  const types: Record<string, EntityType> = { Lisbon: 'place', Porto: 'place', Berlin: 'place', Kyoto: 'place', Toronto: 'place' };
  samples.push({
    name: 'generated people corpus (seed 20260105, 150 days)',
    facts: corpus.facts.map((f, i) => fact(`g${i}`, f.date, f.text, i + 1, f.tags)),
    speakers: [],
    expected: corpus.expectedPages.map((name) => ({ name, type: types[name] ?? (name.startsWith('Project ') ? 'project' : 'person') })),
  });
  samples.push(namedCorpus(7, 400));

  // compromise loads on first use: that is paid once per process, not per fact.
  await recognizeEntities([fact('warm', '2026-01-01', 'Warm up with Alice in Lisbon', 1)]);
  const totals = { facts: 0, ms: 0, badNames: 0, merged: 0, missing: 0, expected: 0 };
  for (const sample of samples) {
    const { counted, ms, all } = await measure(sample);
    const r = report(sample, counted, all, ms, values.all);
    totals.facts += sample.facts.length;
    totals.ms += ms;
    totals.badNames += r.badNames;
    totals.merged += r.merged;
    totals.missing += r.missing;
    totals.expected += sample.expected.length;
  }
  print(
    `\nTotal: ${totals.facts} facts, ${(totals.ms / totals.facts).toFixed(3)} ms per fact; names with a label or interjection ${totals.badNames}; speakers merged ${totals.merged}; expected names missing ${totals.missing}/${totals.expected}`,
  );
  const scale = Number(values.scale);
  if (scale > 0) {
    const pool = samples.flatMap((sample) => sample.facts);
    // Every copy differs in a number, as a backlog's days do, so the batch is not one text repeated.
    const backlog = Array.from({ length: scale }, (_, i) => {
      const f = pool[i % pool.length]!;
      return { ...f, id: `s${i}`, text: `${f.text} (${Math.floor(i / pool.length)})` };
    });
    for (const n of [scale / 10, scale]) {
      const started = performance.now();
      await recognizeEntities(backlog.slice(0, n));
      const ms = performance.now() - started;
      print(`One batch of ${n} facts: ${(ms / 1000).toFixed(1)} s, ${(ms / n).toFixed(3)} ms per fact`);
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
