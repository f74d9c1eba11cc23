/**
 * A lifecycle that keeps the truth (issue 26, deliverables 4 and 6). After the clock moves past
 * dream.archive_after_days, cold pages of events are archived, while a current keyed value, a relationship, a
 * preference, a principle, a health fact and an open commitment stay in MEMORY.md and in plain search (the
 * built CLI). MEMORY.md's cap counts facts: at 12, 20 and 30 it holds that many, the best of each kind, and the
 * allergy before a dentist appointment. Real vaults, real git, the real runner and the built CLI.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../src/vault/vault.js';
import { runJson } from '../helpers/cli.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { git, initVault } from '../helpers/vault.js';

let temp = '';
beforeAll(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'vk-truth-'));
});
afterAll(async () => {
  if (temp !== '') await rm(temp, { recursive: true, force: true });
});

interface Hit {
  kind: string;
  path: string;
  text: string;
}

const at = (date: string): Date => new Date(`${date}T06:00:00Z`);

/** What must stay: each statement as a query, and how its line reads on a page and in MEMORY.md. */
const STILL_TRUE: ReadonlyArray<{ what: string; query: string; line: RegExp }> = [
  { what: 'a current keyed value', query: 'home city', line: /home city:: Lisbon/ },
  { what: 'a relationship', query: 'Maria Lopez sister', line: /Maria Lopez is .*sister/ },
  { what: 'a preference', query: 'dark roast coffee', line: /dark roast coffee/ },
  { what: 'a principle', query: 'deploy on Fridays', line: /never deploy on Fridays/i },
  { what: 'a health fact', query: 'allergic to peanuts', line: /allergic to peanuts/i },
  { what: 'an open commitment', query: 'teach Leo to swim', line: /teach Leo to swim/ },
];

describe('archiving after a moved clock keeps what is still true', { timeout: 300_000 }, () => {
  let vault: Vault;
  let archived: Array<{ from: string; to: string }> = [];

  beforeAll(async () => {
    vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), {
      config: 'timezone: UTC\nindex:\n  embedder: none\ndream:\n  max_days: 60\n  archive_after_days: 30\n',
    });
    const facts: Array<{ text: string; date: string; category?: string; tags?: string[] }> = [
      { text: 'home city:: Berlin', date: '2026-01-04' },
      { text: 'home city:: Lisbon', date: '2026-01-05' },
      { text: 'Maria Lopez is my sister', date: '2026-01-05', category: 'relationship' },
      { text: 'Prefers dark roast coffee', date: '2026-01-05', category: 'preference' },
      { text: 'Principle: never deploy on Fridays', date: '2026-01-05', category: 'principle' },
      { text: 'Allergic to peanuts', date: '2026-01-06' },
      { text: 'Promised to teach Leo to swim', date: '2026-01-06', category: 'commitment' },
      { text: 'Rode the ferry to Madeira', date: '2026-01-05', tags: ['travel'] },
      { text: 'Hiked the levadas above Funchal', date: '2026-01-06', tags: ['travel'] },
      { text: 'Saw whales off the coast', date: '2026-01-06', tags: ['travel'] },
    ];
    for (const f of facts) {
      await vault.remember([{ text: f.text, category: (f.category ?? 'fact') as never, tags: f.tags ?? [] }], { source: 'test', now: at(f.date) });
    }
    const first = await vault.dream({ force: true, offline: true, now: at('2026-01-10') });
    expect(first.status, first.reason).toBe('ok');
    // Fifty days later, with nothing cited, recalled or edited since: every page the first run wrote is cold.
    await vault.remember([{ text: 'Bought a new umbrella', category: 'moment', tags: ['errands'] }], { source: 'test', now: at('2026-02-28') });
    const later = await vault.dream({ force: true, offline: true, now: at('2026-03-01') });
    expect(later.status, later.reason).toBe('ok');
    archived = later.pages.archived;
  }, 240_000);

  it('archives the cold pages of events', async () => {
    expect(archived.length).toBeGreaterThan(0);
    const moved = await Promise.all(archived.map((a) => readFile(path.join(vault.root, a.to), 'utf8')));
    expect(moved.join('\n')).toMatch(/ferry to Madeira/);
    const found = await runJson<{ results: Hit[] }>(['--vault', vault.root, 'search', 'ferry to Madeira', '--archived']);
    expect(found.results[0]?.path.startsWith('5_Archives/')).toBe(true);
  });

  it('never archives a page stating something still true', async () => {
    const moved = (await Promise.all(archived.map((a) => readFile(path.join(vault.root, a.to), 'utf8')))).join('\n');
    for (const { what, line } of STILL_TRUE) expect(moved, what).not.toMatch(line);
  });

  it('keeps each of them in MEMORY.md and in plain search, on a live page', async () => {
    const memory = await readFile(path.join(vault.root, 'MEMORY.md'), 'utf8');
    for (const { what, query, line } of STILL_TRUE) {
      expect(memory, what).toMatch(line);
      const { results } = await runJson<{ results: Hit[] }>(['--vault', vault.root, 'search', query]);
      const onPage = results.find((r) => r.kind === 'page' && line.test(r.text));
      expect(onPage, `${what}: ${JSON.stringify(results.map((r) => [r.kind, r.path, r.text]))}`).toBeDefined();
      expect(onPage!.path.startsWith('5_Archives/'), what).toBe(false);
    }
    // The superseded value stays history, never current.
    expect(memory).not.toMatch(/home city:: Berlin/);
  });
});

/** A day `n` days before today (UTC): before today in any time zone, so the dream sees it as pending. */
const daysAgo = (n: number): string => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

/** 34 durable facts: 24 keyed values, three health facts (the dentist the newest), two commitments, one of each other kind. */
function durableFacts(): string {
  const facts: Array<{ text: string; date: string; category?: string; tags?: string[] }> = [];
  for (let i = 0; i < 12; i++) {
    facts.push({ text: `city ${i} visit:: spring ${2000 + i}`, date: daysAgo(40 - i), tags: ['location'] });
    facts.push({ text: `project ${i} status:: phase ${i}`, date: daysAgo(40 - i), tags: ['work'] });
  }
  facts.push(
    { text: 'Allergic to peanuts', date: daysAgo(39) },
    { text: 'Vegetarian since 2019', date: daysAgo(35) },
    { text: 'Dentist appointment on 2030-01-15', date: daysAgo(30), tags: ['health'] },
    { text: 'Will renew the passport by 2030-09-01', date: daysAgo(38), category: 'commitment' },
    { text: 'Promised to send Dana the budget by 2030-06-20', date: daysAgo(37), category: 'commitment' },
    { text: 'Never work on Sundays', date: daysAgo(37), category: 'principle' },
    { text: 'Prefers green tea', date: daysAgo(36), category: 'preference' },
    { text: 'Maria Lopez is my sister', date: daysAgo(36), category: 'relationship' },
    { text: 'Chose Postgres for the ledger', date: daysAgo(35), category: 'decision' },
    { text: 'Speaks Portuguese fluently', date: daysAgo(34), category: 'skill' },
  );
  return facts.map((f) => JSON.stringify(f)).join('\n');
}

describe('MEMORY.md cap counts facts', { timeout: 300_000 }, () => {
  const CAPS = [12, 20, 30];
  const memories = new Map<number, string>();

  beforeAll(async () => {
    for (const cap of CAPS) {
      const root = await initVault(await mkdtemp(path.join(temp, `cap-${cap}-`)));
      await writeFile(path.join(root, '.vaultkeeper/config.yaml'), `timezone: UTC\nindex:\n  embedder: none\ndream:\n  max_days: 60\n  memory_lines: ${cap}\n`);
      await git(root, ['commit', '-qam', 'config']);
      await runJson(['--vault', root, 'remember', '--stdin'], { input: durableFacts() });
      const run = await runJson<{ status: string; reason: string }>(['--vault', root, 'dream', '--force', '--offline']);
      expect(run.status, run.reason).toBe('ok');
      memories.set(cap, await readFile(path.join(root, 'MEMORY.md'), 'utf8'));
    }
  }, 240_000);

  it.each(CAPS)('at memory_lines: %i it holds that many facts, the best of each kind, the allergy first', (cap) => {
    const memory = memories.get(cap)!;
    const lines = memory.trimEnd().split('\n');
    const facts = lines.filter((l) => l.startsWith('- ') && !/\(recalled \d+ times\)$/.test(l));
    expect(facts, memory).toHaveLength(cap);
    // Every kind keeps its best line.
    for (const heading of ['Health', 'Open commitments', 'Current', 'Principles', 'Preferences', 'Relationships', 'Decisions', 'Skills']) {
      expect(memory, heading).toMatch(new RegExp(`^## ${heading}\\n\\n- `, 'm'));
    }
    // Health and safety first: the allergy leads, and no appointment ever takes its place.
    expect(memory).toMatch(/## Health\n\n- Allergic to peanuts — \[\[/);
    expect(memory).toContain('Dentist appointment on 2030-01-15');
    // The rest is counted in the closing note: 34 durable facts in all.
    expect(lines.at(-1)).toMatch(new RegExp(`^\\+${34 - cap} more on \\[\\[`));
  });
});
