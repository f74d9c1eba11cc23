/**
 * The update-stream benchmark (part of `npm run eval`): a generated stream of keyed subjects changing
 * value over weeks (with same-day contradictions and corrections, repeats, duplicates and filler; the
 * generator the dream tests use), plus plain-English updates ("Ana lives in Lisbon", later "Ana moved to
 * Oslo"). For each subject, "<subject>" and "what is the <subject>" are searched before and after the
 * offline dream; the current value comes first when the first result naming the subject holds it. After the
 * dream, a subject has a wrong current value when a `## Current` line about it (on a page or in MEMORY.md)
 * shows a value that is not its newest.
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

export interface Probe {
  subject: string;
  current: string;
  queries: string[];
  /** Every value the subject took, oldest first (the last is `current`); absent: only `current` is known. */
  values?: string[];
  /** A plain-English subject's entity: its page's `## Current`, or a key naming it, is where its value stands. */
  entity?: string;
  /** How the report groups a plain-English probe (its first query's form); absent: "plain English". */
  label?: string;
}

/** Subjects whose value a `## Current` line shows, and those shown with a value that is not the newest. */
export interface WrongCurrent {
  subjects: number;
  shown: number;
  wrong: number;
  /** A few wrong lines, for the report. */
  examples: string[];
}

export interface UpdateResults {
  facts: number;
  keyed: number;
  plain: number;
  /** phase → query form → share of subjects whose current value comes first */
  keyedFirst: Record<'before' | 'after', Record<string, number>>;
  plainFirst: Record<'before' | 'after', number>;
  /** phase → plain-English probe label → share of its subjects whose current value comes first */
  plainByLabel?: Record<'before' | 'after', Record<string, number>>;
  /** After the dream. */
  wrongCurrent?: { keyed: WrongCurrent; plain: WrongCurrent };
  dream: { runs: number; statuses: string[] };
}

const words = (text: string): string => ` ${normalizeText(text)} `;

/**
 * The subject's `## Current` lines and whether one shows a value that is not the newest. A keyed subject's lines
 * are those of its key; a plain-English subject's are those on its entity's page or with a key naming the entity
 * that show one of its values (a line of another subject of that entity shows none of them).
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
  const vault = await openVault({ vault: root, env });
  try {
    const results = await vault.search(query, { k: 10, refresh: false, recordRecall: false, now: NOW });
    const first = results.find((r) => holds(r.text, mention));
    return first !== undefined && holds(first.text, probe.current);
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
  const plain: Array<Probe & { person: string }> = [];
  const extra = new Map<string, Array<{ text: string; category: 'fact' }>>();
  for (const [i, person] of PEOPLE.entries()) {
    const from = TOWNS[i % TOWNS.length]!;
    const to = TOWNS[(i + 3) % TOWNS.length]!;
    const d1 = stream.days[Math.floor(rand() * 20)]!;
    const d2 = stream.days[30 + Math.floor(rand() * 25)]!;
    extra.set(d1, [...(extra.get(d1) ?? []), { text: `${person} lives in ${from}`, category: 'fact' }]);
    extra.set(d2, [...(extra.get(d2) ?? []), { text: `${person} moved to ${to}`, category: 'fact' }]);
    plain.push({ person, subject: person, current: to, queries: [`where does ${person} live`], values: [from, to], entity: person, label: 'where does <person> live' });
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
    .map((a) => ({ subject: a.subject, current: a.events.at(-1)!.value, queries: [a.subject, `what is the ${a.subject}`], values: a.events.map((e) => e.value) }));

  const measure = async (): Promise<{ keyed: Record<string, number>; plain: number; byLabel: Record<string, number> }> => {
    const indexer = await openVault({ vault: root, env });
    await indexer.reindex();
    await indexer.close();
    const byForm: Record<string, number> = { '<subject>': 0, 'what is the <subject>': 0 };
    for (const probe of keyed) {
      if (await firstHolds(root, env, probe, probe.queries[0]!, probe.subject)) byForm['<subject>']!++;
      if (await firstHolds(root, env, probe, probe.queries[1]!, probe.subject)) byForm['what is the <subject>']!++;
    }
    let plainOk = 0;
    const byLabel = new Map<string, { ok: number; n: number }>();
    for (const probe of plain) {
      const ok = await firstHolds(root, env, probe, probe.queries[0]!, probe.subject);
      if (ok) plainOk++;
      const label = byLabel.get(probe.label ?? 'plain English') ?? { ok: 0, n: 0 };
      byLabel.set(probe.label ?? 'plain English', { ok: label.ok + (ok ? 1 : 0), n: label.n + 1 });
    }
    return {
      keyed: Object.fromEntries(Object.entries(byForm).map(([k, v]) => [k, v / keyed.length])),
      plain: plainOk / plain.length,
      byLabel: Object.fromEntries([...byLabel].map(([label, { ok, n }]) => [label, ok / n])),
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
  return {
    facts,
    keyed: keyed.length,
    plain: plain.length,
    keyedFirst: { before: before.keyed, after: after.keyed },
    plainFirst: { before: before.plain, after: after.plain },
    plainByLabel: { before: before.byLabel, after: after.byLabel },
    wrongCurrent: { keyed: wrongCurrent(keyed, lines), plain: wrongCurrent(plain, lines) },
    dream: { runs: statuses.filter((s) => s === 'ok').length, statuses },
  };
}

const pct = (x: number | undefined): string => (x === undefined ? 'n/a' : `${(x * 100).toFixed(1)}%`);

export function renderUpdates(r: UpdateResults): string {
  const out: string[] = ['### Current values first: the update-stream benchmark', ''];
  out.push(
    `A generated stream (the dream tests' generator, 60 days, seed 20260101): ${r.facts} facts, ${r.keyed} keyed subjects (\`subject:: value\`) changing ` +
      'value over the weeks, with same-day contradictions and corrections, repeats, normalized duplicates and filler; plus ' +
      `${r.plain} plain-English updates ("Ana lives in Lisbon", weeks later "Ana moved to Kyoto"). A subject counts when the first of the top 10 ` +
      'results that names it holds its current value (for a same-day pair, the later-written). The dream is the offline consolidator, run until ' +
      `nothing is pending (${r.dream.runs} runs).`,
    '',
  );
  out.push(
    markdownTable([
      ['query', 'before the dream', 'after the dream'],
      ['"<subject>" (keyed)', pct(r.keyedFirst.before['<subject>']), pct(r.keyedFirst.after['<subject>'])],
      ['"what is the <subject>" (keyed)', pct(r.keyedFirst.before['what is the <subject>']), pct(r.keyedFirst.after['what is the <subject>'])],
      ...plainRows(r),
    ]),
  );
  if (r.wrongCurrent !== undefined) {
    const w = r.wrongCurrent;
    out.push(
      '',
      'Wrong current values after the dream: a subject counts when a `## Current` line about it, on a page or in MEMORY.md, shows a value that is not ' +
        "its newest (a keyed subject's lines are those of its key; a plain-English subject's are those on its person's page or with a key naming " +
        'the person that show one of its values). Share of all subjects, with the subjects whose value a Current line shows at all:',
      '',
      markdownTable([
        ['subjects', 'shown under Current', 'wrong current value', 'e.g.'],
        ['keyed', `${w.keyed.shown}/${w.keyed.subjects}`, `${pct(w.keyed.subjects === 0 ? undefined : w.keyed.wrong / w.keyed.subjects)} (${w.keyed.wrong})`, w.keyed.examples[0] ?? ''],
        ['plain English', `${w.plain.shown}/${w.plain.subjects}`, `${pct(w.plain.subjects === 0 ? undefined : w.plain.wrong / w.plain.subjects)} (${w.plain.wrong})`, w.plain.examples[0] ?? ''],
      ]),
    );
  }
  return out.join('\n').trim();
}

/** The plain-English rows: one a probe label, then all of them when there are several labels. */
function plainRows(r: UpdateResults): string[][] {
  const labels = Object.keys(r.plainByLabel?.after ?? {});
  if (labels.length === 0) return [['"where does <person> live" (plain English)', pct(r.plainFirst.before), pct(r.plainFirst.after)]];
  const rows = labels.map((label) => [`"${label}" (plain English)`, pct(r.plainByLabel?.before[label]), pct(r.plainByLabel?.after[label])]);
  if (labels.length > 1) rows.push(['all plain-English subjects', pct(r.plainFirst.before), pct(r.plainFirst.after)]);
  return rows;
}
