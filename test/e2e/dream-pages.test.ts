/**
 * The pages the offline dream writes (issue 10): entity pages with links, commitments with due dates,
 * conflicts a person resolves on the page, pages split by period under a hub, and the same bytes for
 * the same input; and the LLM path held to the same shapes by the runner's page checks (a scripted model
 * on 127.0.0.1, the built CLI). Real vaults in temp dirs, real git, the real runner.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../src/vault/vault.js';
import { listWikiPages } from '../../src/pages/discover.js';
import { runCli } from '../helpers/cli.js';
import { call, toolResults, tools, useFakeLlm, type ChatRequest, type Reply } from '../helpers/fake-llm.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { git, gitStatus, initVault } from '../helpers/vault.js';

const CONFIG = 'timezone: UTC\nindex:\n  embedder: none\ndream:\n  max_days: 60\n';
let temp = '';
beforeAll(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'vk-dream-pages-'));
});
afterAll(async () => {
  if (temp !== '') await rm(temp, { recursive: true, force: true });
});

type Input = { text: string; date: string; category?: string; tags?: string[] };

async function vaultWith(facts: readonly Input[]): Promise<Vault> {
  const vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
  for (const f of facts) {
    await vault.remember([{ text: f.text, category: (f.category ?? 'fact') as never, tags: f.tags ?? [] }], { source: 'test', now: new Date(`${f.date}T10:00:00Z`) });
  }
  return vault;
}

const read = (vault: Vault, rel: string): Promise<string> => readFile(path.join(vault.root, rel), 'utf8');
/** A page without its `## Mentions` section (repeats of statements that stand on other pages). */
const withoutMentions = (text: string): string => text.replace(/## Mentions\n[\s\S]*?(?=\n## |$)/, '');
/** A page without its lead (the paragraph under its title quoting its statements, with their citations). */
const withoutLead = (text: string): string => text.replace(/^\*\*[^*]+\*\* is .*$/m, '');

const PEOPLE: Input[] = [
  { text: 'Alice Chen is the tech lead on Project Atlas', date: '2026-06-01', tags: ['work'] },
  { text: 'Alice prefers async standups', date: '2026-06-01', category: 'preference' },
  { text: 'Alice Chen has two cats', date: '2026-06-02' },
  { text: 'Bob Smith moved to Porto', date: '2026-06-02' },
  { text: 'Bob likes jazz', date: '2026-06-03', category: 'preference' },
  { text: 'Lunch with Bob Smith and Alice Chen', date: '2026-06-03', category: 'moment' },
  { text: 'Promised to send Alice the schema draft by 2026-06-20', date: '2026-06-03', category: 'commitment' },
  { text: 'Will call Bob tomorrow', date: '2026-06-10', category: 'commitment' },
];

describe('entity pages', { timeout: 240_000 }, () => {
  let vault: Vault;
  beforeAll(async () => {
    vault = await vaultWith(PEOPLE);
    const result = await vault.dream({ force: true, offline: true, now: new Date('2026-06-12T06:00:00Z') });
    expect(result.status, result.reason).toBe('ok');
  }, 60_000);

  it('keeps one page per person, typed and zoned, with the first name as an alias', async () => {
    const alice = await read(vault, '3_Personal/Alice Chen.md');
    expect(alice).toMatch(/^type: person$/m);
    expect(alice).toMatch(/^aliases: \["Alice"\]$/m);
    expect(alice).toMatch(/^created: 2026-06-01$/m);
    expect(alice).toContain('Alice prefers async standups');
    expect(alice).toContain('Alice Chen has two cats');
    expect(await read(vault, '3_Personal/Bob Smith.md')).toMatch(/^type: person$/m);
  });

  it('states a fact about two people on one page and links the other', async () => {
    const pages = await Promise.all(['3_Personal/Alice Chen.md', '3_Personal/Bob Smith.md'].map((rel) => read(vault, rel)));
    const holding = pages.filter((p) => /Lunch with .*Bob Smith.* and .*Alice Chen/.test(withoutMentions(p)));
    expect(holding).toHaveLength(1);
    expect(holding[0]).toContain('Lunch with Bob Smith and [[Alice Chen]]');
    const bob = pages[1]!;
    expect(bob).toMatch(/## Related\n\n- \[\[Alice Chen\]\]/);
    expect(pages[0]).toMatch(/## Related\n\n(- \[\[[^\]]+\]\]\n)*- \[\[Bob Smith\]\]/);
    // Alice's page repeats it under Mentions, with its citation and a link to the page that states it.
    expect(pages[0]).toMatch(/## Mentions\n\n- Lunch with Bob Smith and Alice Chen \(see \[\[Bob Smith\]\]\) \[\[2026-06-03#\^f-[0-9a-z]{10}\]\]\n/);
  });

  it('resolves due dates against the fact date and moves passed commitments to Past', async () => {
    const alice = await read(vault, '3_Personal/Alice Chen.md');
    expect(alice).toMatch(/## Open commitments\n\n- Promised to send Alice the schema draft by 2026-06-20 \(due 2026-06-20\) \[\[2026-06-03#/);
    const bob = await read(vault, '3_Personal/Bob Smith.md');
    // "tomorrow" said on 2026-06-10 is 2026-06-11, before the run's day (2026-06-12).
    // The statement says the day: "tomorrow" resolved against the day it was said.
    expect(bob).toMatch(/## Past commitments\n\n- Will call Bob on 11 June 2026\. \(due 2026-06-11\)/);
    // The next dream, after the 20th, moves Alice's promise to Past as well.
    await vault.remember([{ text: 'Alice Chen joined the chess club', category: 'fact', tags: [] }], { source: 'test', now: new Date('2026-06-21T10:00:00Z') });
    const next = await vault.dream({ force: true, offline: true, now: new Date('2026-06-22T06:00:00Z') });
    expect(next.status, next.reason).toBe('ok');
    const after = await read(vault, '3_Personal/Alice Chen.md');
    expect(after).not.toContain('## Open commitments');
    expect(after).toMatch(/## Past commitments\n\n- Promised to send Alice the schema draft/);
    expect(after).toMatch(/^updated: 2026-06-21$/m);
  });
});

describe('mentions: a page tells what other pages state about its entity', { timeout: 240_000 }, () => {
  const FACTS: Input[] = [
    { text: "Alice Chen's home city:: Berlin", date: '2026-06-01' },
    { text: 'Lunch with Bob Smith in Berlin', date: '2026-06-02', category: 'moment' },
    { text: 'Flew to Berlin for the conference', date: '2026-06-03' },
    { text: 'Bob Smith likes jazz', date: '2026-06-04', category: 'preference' },
    { text: 'Bob Smith has a dog', date: '2026-06-05' },
    { text: 'Alice Chen plays chess', date: '2026-06-06' },
    { text: 'Lunch with Bob Smith in Berlin', date: '2026-06-08', category: 'moment' },
    { text: "Alice Chen's home city:: Lisbon", date: '2026-06-20' },
  ];
  let vault: Vault;
  beforeAll(async () => {
    vault = await vaultWith(FACTS);
    const result = await vault.dream({ force: true, offline: true, now: new Date('2026-06-25T06:00:00Z') });
    expect(result.status, result.reason).toBe('ok');
  }, 60_000);

  it("repeats on the place's page each statement naming it, citing its facts and linking the page that states it", async () => {
    const berlin = await read(vault, '2_Areas/Berlin.md');
    const bob = await read(vault, '3_Personal/Bob Smith.md');
    const lunch = /- Lunch with Bob Smith in \[\[Berlin\]\] (\[\[2026-06-02#\^f-[0-9a-z]{10}\]\]) (\[\[2026-06-08#\^f-[0-9a-z]{10}\]\])\n/.exec(bob);
    expect(lunch).not.toBeNull(); // stated once, on Bob's page, both occurrences cited
    const mentions = /## Mentions\n\n([\s\S]*?)\n\n## /.exec(berlin)?.[1]?.split('\n') ?? [];
    // The superseded home city reads as history (one colon, until the date it changed), never as a current value.
    expect(mentions).toEqual([
      expect.stringMatching(/^- Alice Chen's home city: Berlin \(see \[\[Alice Chen\]\]\) \[\[2026-06-01#\^f-[0-9a-z]{10}\]\] \(until 2026-06-20\)$/),
      `- Lunch with Bob Smith in Berlin (see [[Bob Smith]]) ${lunch![1]} ${lunch![2]}`,
    ]);
    expect(berlin).not.toContain('::');
    expect(berlin).toMatch(/## Notes\n\n- Flew to Berlin for the conference /);
    // Every fact stands once outside Mentions: a mention is a repeat, not a second statement.
    const all = await Promise.all((await listWikiPages(vault.root)).filter((r) => !r.startsWith('0_Inbox/')).map((r) => read(vault, r)));
    const outside = all.map(withoutMentions).map(withoutLead).join('\n');
    const ids = [...all.join('\n').matchAll(/\[\[2026-\d\d-\d\d#\^(f-[0-9a-z]{10})\]\]/g)].map((m) => m[1]!);
    for (const id of new Set(ids)) expect(outside.split(`#^${id}]]`).length - 1, id).toBe(1);
    expect(await read(vault, 'MEMORY.md')).not.toContain('(see [[');
  });

  it('adds a later repeat to the mention instead of a new line, and forgetting the fact removes the mention', async () => {
    await vault.remember([{ text: 'Lunch with Bob Smith in Berlin', category: 'moment' as never, tags: [] }], { source: 'test', now: new Date('2026-06-26T10:00:00Z') });
    const next = await vault.dream({ force: true, offline: true, now: new Date('2026-06-28T06:00:00Z') });
    expect(next.status, next.reason).toBe('ok');
    const berlin = await read(vault, '2_Areas/Berlin.md');
    expect(berlin.match(/^- Lunch with Bob Smith in Berlin .*$/gm)).toEqual([expect.stringMatching(/\[\[2026-06-02#.*\[\[2026-06-08#.*\[\[2026-06-26#/)]);

    const forgotten = await vault.forget({ match: 'Lunch with Bob Smith in Berlin' });
    expect(forgotten.tombstoned.length).toBeGreaterThanOrEqual(1);
    // A later batch to dream (a run with nothing pending is a noop and rewrites nothing).
    await vault.remember([{ text: 'Bob Smith has a cat', category: 'fact' as never, tags: [] }], { source: 'test', now: new Date('2026-06-28T10:00:00Z') });
    const after = await vault.dream({ force: true, offline: true, now: new Date('2026-06-30T06:00:00Z') });
    expect(after.status, after.reason).toBe('ok');
    expect(await read(vault, '3_Personal/Bob Smith.md')).not.toContain('Lunch with Bob');
    const berlinAfter = await read(vault, '2_Areas/Berlin.md');
    expect(berlinAfter).not.toContain('Lunch with Bob');
    expect(berlinAfter).toContain("Alice Chen's home city: Berlin (see [[Alice Chen]])");
  });
});

describe('mentions of a value later disputed', { timeout: 240_000 }, () => {
  it('reads (disputed) while the conflict is open, and as history once a person ticks it', async () => {
    const vault = await vaultWith([
      { text: 'Lunch with Bob Smith in Berlin', date: '2026-06-01', category: 'moment' },
      { text: 'Flew to Berlin for the conference', date: '2026-06-02' },
      { text: 'Alice Chen plays chess', date: '2026-06-03' },
      { text: 'Alice Chen has two cats', date: '2026-06-03' },
      { text: "Alice Chen's home city:: Berlin", date: '2026-06-04' },
    ]);
    expect((await vault.dream({ force: true, offline: true, now: new Date('2026-06-05T06:00:00Z') })).status).toBe('ok');
    const mention = /^- Alice Chen's home city: Berlin \(see \[\[Alice Chen\]\]\) \[\[2026-06-04#\^f-[0-9a-z]{10}\]\]/m;
    expect(await read(vault, '2_Areas/Berlin.md')).toMatch(new RegExp(`${mention.source}$`, 'm'));

    // A second value written later on the same day: the dream flags the pair and promotes neither.
    await vault.remember([{ text: "Alice Chen's home city:: Lisbon", category: 'fact' as never, tags: [] }], { source: 'test', now: new Date('2026-06-04T18:00:00Z') });
    const flagged = await vault.dream({ force: true, offline: true, now: new Date('2026-06-06T06:00:00Z') });
    expect(flagged.conflicts).toBe(1);
    const alice = await read(vault, '3_Personal/Alice Chen.md');
    expect(alice).toMatch(/- \[ \] \*\*Alice Chen's home city\*\*: "Berlin" .* or "Lisbon" /);
    expect(alice).not.toMatch(/home city:: /);
    expect(await read(vault, '2_Areas/Berlin.md')).toMatch(new RegExp(`${mention.source} \\(disputed\\)$`, 'm'));

    // The person keeps the later value: Berlin's mention becomes history, no longer disputed.
    await writeFile(path.join(vault.root, '3_Personal/Alice Chen.md'), alice.replace("- [ ] **Alice Chen's home city**", "- [x] **Alice Chen's home city**"));
    await vault.remember([{ text: 'Alice Chen likes tea', category: 'preference' as never, tags: [] }], { source: 'test', now: new Date('2026-06-07T10:00:00Z') });
    expect((await vault.dream({ force: true, offline: true, now: new Date('2026-06-08T06:00:00Z') })).status).toBe('ok');
    const berlin = await read(vault, '2_Areas/Berlin.md');
    expect(berlin).toMatch(new RegExp(`${mention.source} \\(until 2026-06-04\\)$`, 'm'));
    expect(berlin).not.toContain('(disputed)');
    expect(await read(vault, '3_Personal/Alice Chen.md')).toMatch(/## Current\n\n- Alice Chen's home city:: Lisbon /);
  }, 120_000);
});

describe('mentions in a conversation', { timeout: 240_000 }, () => {
  it("a turn addressing the other speaker is stated without the greeting and repeats nothing on her page; a place it names is mentioned", async () => {
    const vault = await vaultWith([
      { text: 'Caroline: I painted a lake at sunrise', date: '2026-03-01', category: 'moment' },
      { text: 'Caroline: I went hiking with my dog', date: '2026-03-01', category: 'moment' },
      { text: 'Caroline: My sister moved to Lisbon', date: '2026-03-02', category: 'moment' },
      { text: 'Melanie: I ran a marathon', date: '2026-03-01', category: 'moment' },
      { text: 'Melanie: My kids love the beach', date: '2026-03-02', category: 'moment' },
      { text: 'Melanie: I took a pottery class', date: '2026-03-02', category: 'moment' },
      { text: 'Lisbon has the best tiles', date: '2026-03-02' },
      { text: 'Flew to Lisbon for a week', date: '2026-03-02' },
    ]);
    const first = await vault.dream({ force: true, offline: true, now: new Date('2026-03-04T06:00:00Z') });
    expect(first.status, first.reason).toBe('ok');
    await vault.remember([{ text: 'Melanie: Thanks, Caroline! That lake painting is lovely, it reminds me of Lisbon', category: 'moment' as never, tags: [] }], { source: 'test', now: new Date('2026-03-05T10:00:00Z') });
    const next = await vault.dream({ force: true, offline: true, now: new Date('2026-03-07T06:00:00Z') });
    expect(next.status, next.reason).toBe('ok');
    const melanie = await read(vault, '3_Personal/Melanie.md');
    // A statement, not the turn: the thanks that addressed Caroline is gone, "me" is Melanie.
    expect(melanie).toMatch(/^- That lake painting is lovely, it reminds Melanie of \[\[Lisbon\]\]\. \[\[2026-03-05#\^f-/m);
    const caroline = await read(vault, '3_Personal/Caroline.md');
    expect(caroline).not.toContain('## Mentions');
    expect(caroline).not.toContain('lake painting is lovely');
    const lisbon = await read(vault, '2_Areas/Lisbon.md');
    expect(lisbon).toMatch(/## Mentions\n\n(- .+\n)*- That lake painting is lovely, it reminds Melanie of Lisbon\. \(see \[\[Melanie\]\]\) \[\[2026-03-05#\^f-[0-9a-z]{10}\]\]\n/);
  });
});

describe('conflicts', { timeout: 240_000 }, () => {
  it('shows both values as written, promotes neither, and follows the tick a person makes', async () => {
    const vault = await vaultWith([
      { text: 'standup time:: 09:30', date: '2026-06-04', tags: ['work'] },
      { text: 'standup time:: 10:00', date: '2026-06-04', tags: ['work'] },
      { text: 'Work from the office on Tuesdays', date: '2026-06-04', tags: ['work'] },
    ]);
    const result = await vault.dream({ force: true, offline: true, now: new Date('2026-06-05T06:00:00Z') });
    expect(result.conflicts).toBe(1);
    const rel = (await listWikiPages(vault.root)).find((r) => r.endsWith('Work.md'))!;
    const page = await read(vault, rel);
    expect(page).toMatch(/- \[ \] \*\*standup time\*\*: "09:30" \[\[2026-06-04#\^f-[0-9a-z]+\]\] or "10:00" \[\[2026-06-04#\^f-[0-9a-z]+\]\], both on 2026-06-04/);
    expect(page).not.toContain('## Current');
    const memory = await read(vault, 'MEMORY.md');
    expect(memory).not.toMatch(/standup time/);

    // A person ticks the item; the next dream keeps the later value and files the other under History.
    await writeFile(path.join(vault.root, rel), page.replace('- [ ] **standup time**', '- [x] **standup time**'));
    await vault.remember([{ text: 'Lunch at noon on Fridays', category: 'fact', tags: ['work'] }], { source: 'test', now: new Date('2026-06-06T10:00:00Z') });
    const next = await vault.dream({ force: true, offline: true, now: new Date('2026-06-07T06:00:00Z') });
    expect(next.status, next.reason).toBe('ok');
    const resolved = await read(vault, rel);
    expect(resolved).toMatch(/## Current\n\n- standup time:: 10:00 \[\[2026-06-04#/);
    expect(resolved).toMatch(/## History\n\n- standup time: 09:30 \[\[2026-06-04#\^f-[0-9a-z]+\]\] \(until 2026-06-04\)/);
    expect(resolved).toContain('- [x] **standup time**'); // the person's tick is kept, under History
    expect(resolved).not.toContain('## Conflicts');
  }, 60_000);
});

describe('bounded pages', { timeout: 240_000 }, () => {
  it('splits a long page by month under a hub, and the same input gives the same bytes', async () => {
    const facts: Input[] = [];
    // Twelve sessions in each of two months, three long turns each: past the bound together, within it per month.
    for (let d = 0; d < 24; d++) {
      const date = new Date(Date.UTC(2026, d < 12 ? 0 : 1, 1 + (d % 12) * 2)).toISOString().slice(0, 10);
      for (let k = 0; k < 3; k++) facts.push({ text: `Caroline: session ${d} turn ${k}, talking at length about the long walk by the river, the garden that needs weeding, and the books we keep meaning to read`, date, category: 'moment' });
    }
    let first: Vault | undefined;
    const build = async (): Promise<Map<string, string>> => {
      const vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
      const byDate = new Map<string, Input[]>();
      for (const f of facts) byDate.set(f.date, [...(byDate.get(f.date) ?? []), f]);
      for (const [date, list] of byDate) await vault.remember(list.map((f) => ({ text: f.text, category: 'moment' as never, tags: [] })), { source: 'test', now: new Date(`${date}T10:00:00Z`) });
      const result = await vault.dream({ force: true, offline: true, now: new Date('2026-03-05T06:00:00Z') });
      expect(result.status, result.reason).toBe('ok');
      const out = new Map<string, string>();
      for (const rel of (await listWikiPages(vault.root)).sort()) out.set(rel, await read(vault, rel));
      first ??= vault;
      return out;
    };
    const [a, b] = [await build(), await build()];
    expect([...b.entries()]).toEqual([...a.entries()]);
    const hub = a.get('3_Personal/Caroline.md')!;
    expect(hub).toMatch(/## Parts\n\n- \[\[Caroline 2026-01\]\]\n- \[\[Caroline 2026-02\]\]/);
    for (const [rel, text] of a) {
      expect(Buffer.byteLength(text), rel).toBeLessThanOrEqual(16 * 1024);
      expect(text.split('\n').length, rel).toBeLessThanOrEqual(200);
    }
    const parts = [...a.keys()].filter((r) => r.startsWith('3_Personal/Caroline 2026-'));
    expect(parts.length).toBeGreaterThanOrEqual(2);
    const cited = [...a.values()].map(withoutLead).join('\n').match(/\[\[2026-\d\d-\d\d#\^f-/g) ?? [];
    expect(cited.length).toBe(facts.length); // every fact on exactly one line (the hub's lead quotes a few)

    // A later note of February goes on to February's part: the hub keeps only its lead and its parts.
    await first!.remember([{ text: 'Caroline: one more turn about the garden, late in February', category: 'moment', tags: [] }], { source: 'test', now: new Date('2026-02-27T10:00:00Z') });
    const next = await first!.dream({ force: true, offline: true, now: new Date('2026-03-06T06:00:00Z') });
    expect(next.status, next.reason).toBe('ok');
    const hubAfter = await read(first!, '3_Personal/Caroline.md');
    expect(hubAfter).not.toContain('## Notes');
    expect(hubAfter.replace(/^\*\*Caroline\*\* is .+$/m, '')).not.toMatch(/one more turn/i); // (its lead may quote it)
    const february = [...(await listWikiPages(first!.root))].filter((r) => r.startsWith('3_Personal/Caroline 2026-02'));
    const holding = (await Promise.all(february.map((r) => read(first!, r)))).filter((t) => /one more turn about the garden/i.test(t));
    expect(holding).toHaveLength(1);
  }, 300_000);
});

describe('bounded pages: a day split into numbered parts', { timeout: 240_000 }, () => {
  it('sends a note written later into that day on to its last numbered part, not onto a hub or a new month part', async () => {
    const vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
    const turn = (n: number): string => `Caroline: turn ${n}, talking at length about the long walk by the river, the garden that needs weeding, and the books we keep meaning to read`;
    await vault.remember(Array.from({ length: 100 }, (_, n) => ({ text: turn(n), category: 'moment' as never, tags: [] })), { source: 'test', now: new Date('2026-01-05T10:00:00Z') });
    await vault.remember([0, 1, 2].map((n) => ({ text: `Caroline: the next day, note ${n}`, category: 'moment' as never, tags: [] })), { source: 'test', now: new Date('2026-01-06T10:00:00Z') });
    const first = await vault.dream({ force: true, offline: true, now: new Date('2026-01-10T06:00:00Z') });
    expect(first.status, first.reason).toBe('ok');
    const before = (await listWikiPages(vault.root)).filter((r) => r.startsWith('3_Personal/')).sort();
    // The turns are all about one subject (the garden: Hobbies) and one day: the subject's part splits into numbered parts.
    expect(before).toEqual(expect.arrayContaining(['3_Personal/Caroline.md', '3_Personal/Caroline — Hobbies.md', '3_Personal/Caroline — Hobbies (2).md']));

    // A fact written into 2026-01-05 after that day was dreamed: pending for the next dream.
    await vault.remember([{ text: 'Caroline: one more turn, remembered late', category: 'moment' as never, tags: [] }], { source: 'test', now: new Date('2026-01-05T20:00:00Z') });
    const next = await vault.dream({ force: true, offline: true, now: new Date('2026-01-11T06:00:00Z') });
    expect(next.status, next.reason).toBe('ok');
    const after = (await listWikiPages(vault.root)).filter((r) => r.startsWith('3_Personal/')).sort();
    const holding = [];
    for (const rel of after) if (/one more turn, remembered late/i.test(await read(vault, rel))) holding.push(rel);
    expect(holding).toHaveLength(1);
    expect(holding[0]).toMatch(/^3_Personal\/Caroline — (Hobbies|Other)( \(\d+\))?\.md$/);
    expect(after.filter((r) => !before.includes(r)).every((r) => /Caroline — Hobbies \(\d+\)\.md$/.test(r))).toBe(true); // no month part, no other page
    for (const hub of ['3_Personal/Caroline.md', '3_Personal/Caroline — Hobbies.md']) expect(await read(vault, hub)).not.toContain('## Notes');
    for (const rel of after) {
      const text = await read(vault, rel);
      expect(Buffer.byteLength(text), rel).toBeLessThanOrEqual(16 * 1024);
      expect(text.split('\n').length, rel).toBeLessThanOrEqual(200);
    }
  }, 300_000);
});

describe('pages that read well', { timeout: 240_000 }, () => {
  // Fourteen things about Alice over three months, and Grace Kim named three times, always beside her.
  const ALICE: Input[] = [
    ...['chess', 'jazz', 'hiking', 'sourdough', 'cycling'].map((x, i) => ({ text: `Alice Chen took up ${x}`, date: `2026-01-0${i + 2}` })),
    ...['Lisbon', 'Kyoto', 'Toronto', 'Berlin', 'Porto'].map((x, i) => ({ text: `Alice Chen planned a trip to ${x}`, date: `2026-02-0${i + 2}` })),
    ...['a cat', 'a bike', 'a piano', 'a tent'].map((x, i) => ({ text: `Alice Chen bought ${x}`, date: `2026-03-0${i + 2}` })),
    { text: 'Lunch with Alice Chen and Grace Kim', date: '2026-01-03', category: 'moment' },
    { text: 'Alice Chen and Grace Kim went climbing', date: '2026-02-03', category: 'moment' },
    { text: 'Alice Chen met Grace Kim at the station', date: '2026-03-03', category: 'moment' },
  ];
  const GARDEN = '---\ntitle: Garden\ntype: topic\n---\n# Garden\n\n## Notes\n\n- Tomatoes by the south wall\n- Basil in pots\n';
  const build = async (): Promise<Vault> => {
    const vault = await vaultWith(ALICE);
    await writeFile(path.join(vault.root, '2_Areas/Garden.md'), GARDEN);
    const result = await vault.dream({ force: true, offline: true, now: new Date('2026-03-10T06:00:00Z') });
    expect(result.status, result.reason).toBe('ok');
    return vault;
  };
  const pagesOf = async (vault: Vault): Promise<Array<[string, string]>> => Promise.all((await listWikiPages(vault.root)).sort().map(async (rel) => [rel, await read(vault, rel)] as [string, string]));

  it("groups a person's notes by subject when they are about several things, reading older facts' tags from their logs", async () => {
    const health = ['pollen', 'peanuts', 'shellfish', 'dust', 'cats'].map((x, i) => ({ text: `Bob Smith is allergic to ${x}`, date: `2026-01-0${i + 2}`, tags: ['health'] }));
    const work: Input[] = ['billing', 'search', 'payments', 'mobile'].map((x, i) => ({ text: `Bob Smith leads the ${x} team`, date: `2026-02-0${i + 2}`, tags: ['work'] }));
    const likes: Input[] = ['jazz', 'chess', 'tea', 'rowing'].map((x, i) => ({ text: `Bob Smith likes ${x}`, date: `2026-02-1${i + 2}`, category: 'preference' }));
    const vault = await vaultWith(health);
    expect((await vault.dream({ force: true, offline: true, now: new Date('2026-01-20T06:00:00Z') })).status).toBe('ok');
    for (const f of [...work, ...likes]) await vault.remember([{ text: f.text, category: (f.category ?? 'fact') as never, tags: f.tags ?? [] }], { source: 'test', now: new Date(`${f.date}T10:00:00Z`) });
    const next = await vault.dream({ force: true, offline: true, now: new Date('2026-03-01T06:00:00Z') });
    expect(next.status, next.reason).toBe('ok');
    const bob = await read(vault, '3_Personal/Bob Smith.md');
    // Most notes first (a tie by name), each subject's notes oldest first; an untagged note's subject is what its
    // words name (tea: Food), else its category (Preferences).
    expect(bob.match(/^### .+$/gm)).toEqual(['### Health', '### Work', '### Preferences', '### Food']);
    const under = (heading: string): string[] => (new RegExp(`### ${heading}\\n\\n((?:- .+\\n)+)`).exec(bob)?.[1] ?? '').trim().split('\n').map((l) => l.replace(/ \[\[.*$/, ''));
    expect(under('Health')).toEqual(health.map((f) => `- ${f.text}`));
    expect(under('Work')).toEqual(work.map((f) => `- ${f.text}`));
    expect(under('Preferences')).toEqual(likes.filter((f) => !f.text.endsWith('tea')).map((f) => `- ${f.text}`));
    expect(under('Food')).toEqual(['- Bob Smith likes tea']);
  });

  it('groups many notes under subject headings, the same bytes for the same input, and leaves a page no rule touched as it was', async () => {
    const [one, two] = [await build(), await build()];
    expect(await pagesOf(two)).toEqual(await pagesOf(one));
    const alice = await read(one, '3_Personal/Alice Chen.md');
    const notes = alice.slice(alice.indexOf('## Notes'), alice.indexOf('\n## ', alice.indexOf('## Notes') + 1));
    // Fourteen notes about several things: by subject (what their words name, else their category), most first.
    const headings = notes.match(/^### .+$/gm) ?? [];
    expect(headings.length).toBeGreaterThanOrEqual(3);
    expect(notes).toMatch(/### Travel\n\n(- .+\n)*- Alice Chen planned a trip to Lisbon/);
    expect(notes).toMatch(/### Moments\n\n(- .+\n)*- Alice Chen met \[\[Grace Kim\]\] at the station/);
    expect(await read(one, '2_Areas/Garden.md')).toBe(GARDEN);

    // A note of a new month adds its heading at the end; the person's page is still untouched.
    await one.remember([{ text: 'Alice Chen started a choir', category: 'fact', tags: [] }], { source: 'test', now: new Date('2026-04-02T10:00:00Z') });
    const next = await one.dream({ force: true, offline: true, now: new Date('2026-04-05T06:00:00Z') });
    expect(next.status, next.reason).toBe('ok');
    const after = await read(one, '3_Personal/Alice Chen.md');
    expect(after).toMatch(/^- Alice Chen started a choir \[\[2026-04-02#/m);
    const without = (text: string): string => text.replace(/^- Alice Chen started a choir .+\n/m, '').replace(/^updated: .+$/m, '').replace(/^\*\*Alice Chen\*\* is .+$/m, '').replace(/\n### \w+\n\n(?=### |\n## |$)/g, '\n');
    expect(without(after)).toBe(without(alice));
    expect(await read(one, '2_Areas/Garden.md')).toBe(GARDEN);
  }, 300_000);

  it('gives a person named in three facts, always beside another, her page of mentions, and every link leads to a page', async () => {
    const vault = await build();
    const rels = await listWikiPages(vault.root);
    expect(rels.filter((r) => /Grace/.test(r))).toEqual(['3_Personal/Grace Kim.md']);
    const grace = await read(vault, '3_Personal/Grace Kim.md');
    expect(grace).toMatch(/^type: person$/m);
    // The statements stay on Alice's page; Grace's page repeats each one under Mentions, cited.
    expect(grace).toMatch(/## Mentions\n\n(- .+ \(see \[\[Alice Chen\]\]\) \[\[2026-0\d-03#\^f-[0-9a-z]{10}\]\]\n){3}/);
    const all = (await pagesOf(vault)).map(([, text]) => text).join('\n');
    expect(all).toContain('Lunch with Alice Chen and [[Grace Kim]]');
    const titles = new Set(rels.map((r) => r.split('/').at(-1)!.replace(/\.md$/, '')));
    for (const [, target] of all.matchAll(/\[\[([^\]|#]+)(?:[|#][^\]]*)?\]\]/g)) if (!/^\d{4}-\d{2}-\d{2}$/.test(target!)) expect(titles, target).toContain(target);
  }, 300_000);
});

describe('the LLM path: the runner refuses a page that breaks the shapes', { timeout: 240_000 }, () => {
  const tempDir = useTempDir();
  const startLlm = useFakeLlm();
  const D1 = '2025-06-01';
  const LOG = `# ${D1}\n\n## 09:00 · cli\n- [fact] home city:: Lisbon ^f-aaaaaaaaaa\n- [fact] home city:: Porto ^f-bbbbbbbbbb\n- [preference] Prefers dark roast coffee #coffee ^f-cccccccccc\n`;
  type Facts = Array<{ id: string; text: string; cite: string }>;
  const front = (title: string, type: string): string => `---\ntitle: ${title}\ntype: ${type}\n---\n# ${title}\n`;
  const conflictLine = (f: Facts): string => `- [ ] **home city**: "Lisbon" ${f[0]!.cite} or "Porto" ${f[1]!.cite}, both on ${D1}`;

  /** A committed vault with one day of logs, a model that reads it, then makes `calls` from the facts, then finishes. */
  async function llmDream(calls: (facts: Facts) => Reply): Promise<{ root: string; head: string; result: { status: string; check: string | null; reason: string; commit: string | null }; requests: ChatRequest[] }> {
    const root = await initVault(await tempDir());
    await writeTree(root, { [`logs/${D1}.md`]: LOG, '.vaultkeeper/config.yaml': 'timezone: UTC\nindex:\n  embedder: none\n' });
    await git(root, ['add', '--all']);
    await git(root, ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', '-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'my log']);
    const head = (await git(root, ['rev-parse', 'HEAD'])).trim();
    const server = await startLlm([
      tools(call('read_log', { date: D1 })),
      (request) => calls(toolResults(request).flatMap((r) => (r.result as { facts: Facts }).facts)),
      tools(call('finish', { summary: 'placed the facts' })),
    ]);
    const run = await runCli(['dream', '--force', '--json', '--vault', root], {
      env: { VAULTKEEPER_LLM_BASE_URL: server.baseUrl, VAULTKEEPER_LLM_MODEL: 'shape-model', VAULTKEEPER_LLM_API_KEY_ENV: 'VK_SHAPE_KEY', VK_SHAPE_KEY: 'sk-shape-test' },
    });
    expect(run.stdout, run.stderr).not.toBe('');
    return { root, head, result: JSON.parse(run.stdout) as never, requests: server.requests };
  }

  const cases: Array<{ check: string; why: RegExp; calls: (f: Facts) => Reply }> = [
    {
      check: 'page_size',
      why: /past 16 KB or 200 lines/,
      // Every fact cited, but the page runs to 250 lines and about 20 KB.
      calls: (f) =>
        tools(
          call('flag_conflict', { subject: 'home city', fact_ids: [f[0]!.id, f[1]!.id], note: 'two cities on one day' }),
          call('write_page', {
            path: '2_Areas/Coffee.md',
            content: `${front('Coffee', 'topic')}\n## Notes\n\n- Prefers dark roast coffee ${f[2]!.cite}\n${Array.from({ length: 250 }, (_, i) => `- Tasting note ${i}: a long paragraph about roast, grind, water temperature and the cup that followed.`).join('\n')}\n\n## Conflicts\n\n${conflictLine(f)}\n`,
          }),
        ),
    },
    {
      check: 'broken_link',
      why: /links \[\[Nobody Here\]\], which leads to no page/,
      calls: (f) =>
        tools(
          call('flag_conflict', { subject: 'home city', fact_ids: [f[0]!.id, f[1]!.id], note: 'two cities on one day' }),
          call('write_page', { path: '2_Areas/Coffee.md', content: `${front('Coffee', 'topic')}\n## Notes\n\n- Prefers dark roast coffee, as [[Nobody Here]] does ${f[2]!.cite}\n\n## Conflicts\n\n${conflictLine(f)}\n` }),
        ),
    },
    {
      check: 'disputed_lead',
      why: /states the disputed fact f-bbbbbbbbbb in its lead/,
      // The model flags the conflict, yet puts the later value under Current: a guess.
      calls: (f) =>
        tools(
          call('flag_conflict', { subject: 'home city', fact_ids: [f[0]!.id, f[1]!.id], note: 'two cities on one day' }),
          call('write_page', { path: '3_Personal/Home.md', content: `${front('Home', 'place')}\n## Current\n\n- home city:: Porto ${f[1]!.cite}\n\n## Notes\n\n- Prefers dark roast coffee ${f[2]!.cite}\n\n## Conflicts\n\n${conflictLine(f)}\n` }),
        ),
    },
  ];

  it.each(cases)('a model that breaks $check is refused by that check, and nothing of the run is applied', async ({ check, why, calls }) => {
    const { root, head, result } = await llmDream(calls);
    expect(result.status, result.reason).toBe('failed');
    expect(result.check, result.reason).toBe(check);
    expect(result.reason).toMatch(why);
    expect(result.commit).toBeNull();
    expect((await git(root, ['rev-parse', 'HEAD'])).trim()).toBe(head);
    expect(await gitStatus(root)).toEqual([]);
    expect(await listWikiPages(root)).toEqual([]);
  });

  it('the same facts in the shapes the instructions describe are applied, and the instructions name those shapes', async () => {
    const { root, result, requests } = await llmDream((f) =>
      tools(
        call('flag_conflict', { subject: 'home city', fact_ids: [f[0]!.id, f[1]!.id], note: 'two cities on one day' }),
        call('write_page', { path: '2_Areas/Coffee.md', content: `${front('Coffee', 'topic')}\n## Notes\n\n- Prefers dark roast coffee ${f[2]!.cite}\n\n## Related\n\n- [[Home]]\n` }),
        call('write_page', { path: '3_Personal/Home.md', content: `${front('Home', 'place')}\n## Conflicts\n\n${conflictLine(f)}\n\n## Related\n\n- [[Coffee]]\n` }),
      ),
    );
    expect(result.status, result.reason).toBe('ok');
    expect(result.check).toBeNull();
    expect(await read({ root } as Vault, '3_Personal/Home.md')).toContain('- [ ] **home city**: "Lisbon"');
    const system = JSON.stringify(requests[0]!.body.messages[0]);
    for (const shape of ['One page per entity', '## Related', '## Open commitments', '## Conflicts', 'no page past 16 KB or 200 lines', '## Parts', 'Every `[[link]]` you write must lead to a page that exists']) expect(system).toContain(shape);
  });
});
