/**
 * The update-stream benchmark (part of `npm run eval`): a generated stream of keyed subjects changing
 * value over weeks (with same-day contradictions and corrections, repeats, duplicates and filler; the
 * generator the dream tests use), plus plain-English updates ("Ana lives in Lisbon", later "Ana moved to
 * Oslo"; and of employer, diet, partner and role: "Amara works at Initrode", later "Amara started at Oscorp").
 * For each subject, "<subject>" and "what is the <subject>" are searched before and after the offline dream;
 * the current value comes first when the first result naming the subject holds it, and a wrong current value
 * is a first result that holds an older value instead.
 */
import { initVault } from '#src/vault/init.js';
import { openVault } from '#src/vault/vault.js';
import { normalizeText } from '#src/text/normalize.js';
import { generateUpdateStream, prng } from '../test/helpers/update-stream.js';
import { progress } from './report.js';
import { markdownTable } from './stats.js';
import { currentLines, type CurrentLine } from './wiki-metrics.js';

const NOW = new Date('2026-04-15T12:00:00Z');
const PEOPLE = ['Ana', 'Bruno', 'Chloe', 'Dmitri', 'Esme', 'Farid', 'Gil', 'Hugo', 'Iris', 'Jonas', 'Kai', 'Lena', 'Mira', 'Nadia', 'Oren', 'Pia', 'Quinn', 'Rosa', 'Sami', 'Teo'];
const TOWNS = ['Lisbon', 'Oslo', 'Kyoto', 'Dublin', 'Montreal', 'Valencia', 'Bergen', 'Tallinn', 'Ghent', 'Lyon'];
/** People whose other states change (none named in the keyed stream). */
const OTHERS = ['Amara', 'Benedikt', 'Carmen', 'Dario', 'Elif', 'Fatima', 'Goran', 'Hana', 'Idris', 'Jasper', 'Kofi', 'Liang', 'Marisol', 'Nikhil', 'Olga', 'Priya', 'Rania', 'Stellan', 'Tamsin', 'Umberto'];
/** Kinds of change said in plain English: the first statement, the later one, and the question asked. */
const CHANGES: ReadonlyArray<{ kind: string; values: ReadonlyArray<[string, string]>; first: (p: string, v: string) => string; later: (p: string, v: string) => string; query: (p: string) => string }> = [
  {
    kind: 'employer',
    values: [['Initrode', 'Oscorp'], ['Pied Piper', 'Dunder Mifflin'], ['Vehement', 'Gringotts'], ['Massive Dynamic', 'Prestige Worldwide'], ['Aperture', 'Sirius Cybernetics']],
    first: (p, v) => `${p} works at ${v}`,
    later: (p, v) => `${p} started at ${v} this week`,
    query: (p) => `where does ${p} work`,
  },
  {
    kind: 'diet',
    values: [['vegetarian', 'pescatarian'], ['vegan', 'vegetarian'], ['pescatarian', 'vegan'], ['vegetarian', 'vegan'], ['vegan', 'pescatarian']],
    first: (p, v) => `${p} is ${v}`,
    later: (p, v) => `${p} is ${v} now`,
    query: (p) => `what diet does ${p} follow`,
  },
  {
    kind: 'partner',
    values: [['Tobias', 'Mateo'], ['Selma', 'Wren'], ['Dorian', 'Ezra'], ['Yasmin', 'Celeste'], ['Rafael', 'Anouk']],
    first: (p, v) => `${p}'s partner is ${v}`,
    later: (p, v) => `${p} married ${v}`,
    query: (p) => `who is ${p}'s partner`,
  },
  {
    kind: 'role',
    values: [['junior designer', 'art director'], ['nurse', 'pharmacist'], ['backend engineer', 'engineering manager'], ['data analyst', 'data scientist'], ['teacher', 'principal']],
    first: (p, v) => `${p} is a ${v}`,
    later: (p, v) => `${p} got promoted to ${v}`,
    query: (p) => `what is ${p}'s job`,
  },
];

interface Probe {
  subject: string;
  current: string;
  /** Every value the subject took, oldest first (a `## Current` line naming one of them is about the subject). */
  values?: string[];
  /** The person a plain-English subject is about. */
  entity?: string;
  /** The value the current one replaced (plain-English probes). */
  older?: string;
  queries: string[];
}

interface PlainProbe extends Probe {
  person: string;
  kind: string;
}

export interface UpdateResults {
  facts: number;
  keyed: number;
  plain: number;
  /** phase → query form → share of subjects whose current value comes first */
  keyedFirst: Record<'before' | 'after', Record<string, number>>;
  plainFirst: Record<'before' | 'after', number>;
  /** Employer, diet, partner and role said in plain English: share whose current value comes first. */
  otherFirst: Record<'before' | 'after', number>;
  /** Plain-English subjects (all kinds) whose first result holds an older value instead of the current one. */
  plainWrong: Record<'before' | 'after', number>;
  otherPlain: number;
  /** After the dream: subjects whose `## Current` lines (pages or MEMORY.md) show a value that is not the newest. */
  wrongCurrent?: { keyed: WrongCurrent; plain: WrongCurrent };
  dream: { runs: number; statuses: string[] };
}

export interface WrongCurrent {
  subjects: number;
  shown: number;
  wrong: number;
  /** A few wrong lines, for the report. */
  examples: string[];
}

const words = (text: string): string => ` ${normalizeText(text)} `;

/**
 * The subject's `## Current` lines and whether one shows a value that is not the newest. A keyed subject's lines
 * are those of its key; a plain-English subject's, those naming its person (page or key) with one of its values.
 */
export function wrongCurrent(probes: readonly Probe[], lines: readonly CurrentLine[]): WrongCurrent {
  const out: WrongCurrent = { subjects: probes.length, shown: 0, wrong: 0, examples: [] };
  for (const probe of probes) {
    const values = probe.values ?? [probe.current];
    const entity = probe.entity;
    const about = lines.filter((line) =>
      entity === undefined
        ? normalizeText(line.key) === normalizeText(probe.subject)
        : (line.names.some((n) => normalizeText(n) === normalizeText(entity)) || words(line.key).includes(words(entity))) && values.some((v) => holds(line.value, v)),
    );
    if (about.length === 0) continue;
    out.shown++;
    const stale = about.filter((line) => !holds(line.value, probe.current));
    if (stale.length > 0) {
      out.wrong++;
      if (out.examples.length < 3) out.examples.push(`${stale[0]!.key}:: ${stale[0]!.value} (${stale[0]!.from === 'memory' ? 'MEMORY.md' : stale[0]!.page}; newest: ${probe.current})`);
    }
  }
  return out;
}

function holds(text: string, phrase: string): boolean {
  return ` ${normalizeText(text)} `.includes(` ${normalizeText(phrase)} `);
}

async function firstHolds(root: string, env: NodeJS.ProcessEnv, probe: Probe, query: string, mention: string): Promise<boolean> {
  return (await firstResult(root, env, probe, query, mention)) === 'current';
}

/** What the first of the top 10 results naming `mention` holds: the current value, an older one, or neither. */
async function firstResult(root: string, env: NodeJS.ProcessEnv, probe: Probe, query: string, mention: string): Promise<'current' | 'older' | 'neither'> {
  const vault = await openVault({ vault: root, env });
  try {
    const results = await vault.search(query, { k: 10, refresh: false, recordRecall: false, now: NOW });
    const first = results.find((r) => holds(r.text, mention));
    if (first !== undefined && holds(first.text, probe.current)) return 'current';
    return first !== undefined && probe.older !== undefined && holds(first.text, probe.older) ? 'older' : 'neither';
  } finally {
    await vault.close();
  }
}

export async function runUpdates(root: string, env: NodeJS.ProcessEnv): Promise<UpdateResults> {
  const stream = generateUpdateStream({ first: '2026-01-01', days: 60 });
  await initVault(root);
  const vault = await openVault({ vault: root, env });
  // Plain-English updates: a first statement, and a move weeks later; the words alone do not say which is current.
  const rand = prng(7);
  const plain: PlainProbe[] = [];
  const extra = new Map<string, Array<{ text: string; category: 'fact' }>>();
  const say = (first: string, later: string): void => {
    const d1 = stream.days[Math.floor(rand() * 20)]!;
    const d2 = stream.days[30 + Math.floor(rand() * 25)]!;
    extra.set(d1, [...(extra.get(d1) ?? []), { text: first, category: 'fact' }]);
    extra.set(d2, [...(extra.get(d2) ?? []), { text: later, category: 'fact' }]);
  };
  for (const [i, person] of PEOPLE.entries()) {
    const from = TOWNS[i % TOWNS.length]!;
    const to = TOWNS[(i + 3) % TOWNS.length]!;
    say(`${person} lives in ${from}`, `${person} moved to ${to}`);
    plain.push({ person, kind: 'home city', subject: person, current: to, older: from, queries: [`where does ${person} live`] });
  }
  for (const [i, person] of OTHERS.entries()) {
    const change = CHANGES[i % CHANGES.length]!;
    const [from, to] = change.values[Math.floor(i / CHANGES.length) % change.values.length]!;
    say(change.first(person, from), change.later(person, to));
    plain.push({ person, kind: change.kind, subject: person, current: to, older: from, queries: [change.query(person)] });
  }
  let facts = 0;
  try {
    for (const batch of stream.batches) {
      const inputs = [...batch.facts.map((f) => f.input), ...(batch.time === '09:00' ? (extra.get(batch.date) ?? []).map((f) => ({ ...f, date: batch.date })) : [])];
      await vault.remember(inputs, { source: `stream/${batch.time}`, now: new Date(`${batch.date}T${batch.time}:00Z`) });
      facts += inputs.length;
    }
  } finally {
    await vault.close();
  }
  const keyed: Probe[] = stream.attributes
    .filter((a) => !a.forgotten)
    .map((a) => ({ subject: a.subject, current: a.events.at(-1)!.value, queries: [a.subject, `what is the ${a.subject}`] }));

  const homes = plain.filter((p) => p.kind === 'home city');
  const others = plain.filter((p) => p.kind !== 'home city');
  const measure = async (): Promise<{ keyed: Record<string, number>; plain: number; other: number; wrong: number }> => {
    const indexer = await openVault({ vault: root, env });
    await indexer.reindex();
    await indexer.close();
    const byForm: Record<string, number> = { '<subject>': 0, 'what is the <subject>': 0 };
    for (const probe of keyed) {
      if (await firstHolds(root, env, probe, probe.queries[0]!, probe.subject)) byForm['<subject>']!++;
      if (await firstHolds(root, env, probe, probe.queries[1]!, probe.subject)) byForm['what is the <subject>']!++;
    }
    const found = new Map<PlainProbe, string>();
    for (const probe of plain) found.set(probe, await firstResult(root, env, probe, probe.queries[0]!, probe.subject));
    const share = (probes: readonly PlainProbe[], what: string): number => probes.filter((p) => found.get(p) === what).length / probes.length;
    return {
      keyed: Object.fromEntries(Object.entries(byForm).map(([k, v]) => [k, v / keyed.length])),
      plain: share(homes, 'current'),
      other: share(others, 'current'),
      wrong: share(plain, 'older'),
    };
  };

  const before = await measure();
  progress(`eval updates: before the dream ${JSON.stringify(before)}`);
  const dreamer = await openVault({ vault: root, env });
  const statuses: string[] = [];
  try {
    for (let run = 0; run < 20; run++) {
      const result = await dreamer.dream({ force: true, offline: true });
      statuses.push(result.status);
      if (result.status !== 'ok') break;
    }
  } finally {
    await dreamer.close();
  }
  const after = await measure();
  progress(`eval updates: after the dream ${JSON.stringify(after)}`);
  const lines = await currentLines(root);
  const plainProbes = plain.map((p) => ({ ...p, values: p.older === undefined ? [p.current] : [p.older, p.current], entity: p.person }));
  return {
    facts,
    keyed: keyed.length,
    plain: homes.length,
    otherPlain: others.length,
    keyedFirst: { before: before.keyed, after: after.keyed },
    plainFirst: { before: before.plain, after: after.plain },
    otherFirst: { before: before.other, after: after.other },
    plainWrong: { before: before.wrong, after: after.wrong },
    wrongCurrent: { keyed: wrongCurrent(keyed, lines), plain: wrongCurrent(plainProbes, lines) },
    dream: { runs: statuses.filter((s) => s === 'ok').length, statuses },
  };
}

const pct = (x: number | undefined): string => (x === undefined ? 'n/a' : `${(x * 100).toFixed(1)}%`);

export function renderUpdates(r: UpdateResults): string {
  const out: string[] = ['### Current values first: the update-stream benchmark', ''];
  out.push(
    `A generated stream (the dream tests' generator, 60 days, seed 20260101): ${r.facts} facts, ${r.keyed} keyed subjects (\`subject:: value\`) changing ` +
      'value over the weeks, with same-day contradictions and corrections, repeats, normalized duplicates and filler; plus ' +
      `${r.plain} plain-English moves ("Ana lives in Lisbon", weeks later "Ana moved to Kyoto") and ${r.otherPlain} other plain-English changes ` +
      '(employer, diet, partner, role: "Amara works at Initrode", weeks later "Amara started at Oscorp this week"). A subject counts when the first of the top 10 ' +
      'results that names it holds its current value (for a same-day pair, the later-written); a wrong current value is a first result holding the older value. ' +
      `The dream is the offline consolidator, run until nothing is pending (${r.dream.runs} runs).`,
    '',
  );
  out.push(
    markdownTable([
      ['query', 'before the dream', 'after the dream'],
      ['"<subject>" (keyed)', pct(r.keyedFirst.before['<subject>']), pct(r.keyedFirst.after['<subject>'])],
      ['"what is the <subject>" (keyed)', pct(r.keyedFirst.before['what is the <subject>']), pct(r.keyedFirst.after['what is the <subject>'])],
      ['"where does <person> live" (plain English)', pct(r.plainFirst.before), pct(r.plainFirst.after)],
      ['"where does <person> work", "…diet…", "…partner", "…job" (plain English)', pct(r.otherFirst.before), pct(r.otherFirst.after)],
      ['plain-English subjects whose first result holds an older value (wrong current value)', pct(r.plainWrong.before), pct(r.plainWrong.after)],
    ]),
  );
  if (r.wrongCurrent !== undefined) {
    const w = r.wrongCurrent;
    const line = (name: string, x: WrongCurrent): string =>
      `${name}: ${x.wrong} of ${x.subjects} subjects (${x.shown} with a value under Current)${x.examples.length > 0 ? `; e.g. ${x.examples.join('; ')}` : ''}`;
    out.push(
      '',
      "Wrong current values after the dream: a subject's `## Current` lines (on pages and in MEMORY.md) showing a value that is not its newest " +
        "(a keyed subject's lines are those of its key; a plain-English subject's are those on its person's page or with a key naming " +
        `the person, holding one of its values). ${line('Keyed', w.keyed)}. ${line('Plain English', w.plain)}.`,
    );
  }
  return out.join('\n').trim();
}
