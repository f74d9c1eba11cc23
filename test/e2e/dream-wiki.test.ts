/**
 * The dream writes a wiki (issue 25): statements gathered on the page of their entity when that page comes
 * later (the dream's own lines only, a link left where they stood), a lead on every entity page and hub,
 * small talk on record pages, navigation never a search result, one fact one result, and a statement's
 * result showing its date. Real vaults in temp dirs, real git, the built CLI where a person would use it.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../src/vault/vault.js';
import { runJson } from '../helpers/cli.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { git } from '../helpers/vault.js';

const CONFIG = 'timezone: UTC\nindex:\n  embedder: none\ndream:\n  max_days: 60\n';
let temp = '';
beforeAll(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'vk-dream-wiki-'));
});
afterAll(async () => {
  if (temp !== '') await rm(temp, { recursive: true, force: true });
});

type Input = { text: string; date: string; category?: string; tags?: string[] };

async function remember(vault: Vault, facts: readonly Input[]): Promise<void> {
  for (const f of facts) {
    await vault.remember([{ text: f.text, category: (f.category ?? 'fact') as never, tags: f.tags ?? [] }], { source: 'test', now: new Date(`${f.date}T10:00:00Z`) });
  }
}

const read = (vault: Vault, rel: string): Promise<string> => readFile(path.join(vault.root, rel), 'utf8');

describe('a statement filed before its entity had a page moves there', { timeout: 240_000 }, () => {
  let vault: Vault;
  let personPage = '';
  beforeAll(async () => {
    vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
    // One fact names Diego: too few for a page of his own, so it is filed on a topic page.
    await remember(vault, [
      { text: 'Diego is allergic to shellfish', date: '2026-03-02' },
      { text: 'The office moved to the third floor', date: '2026-03-02' },
    ]);
    const first = await vault.dream({ force: true, offline: true, now: new Date('2026-03-05T06:00:00Z') });
    expect(first.status, first.reason).toBe('ok');
    // A person's own page that also says something about Diego, in their words, committed as theirs.
    personPage = '# Dinner plans\n\nDiego is allergic to shellfish, so no paella. [[2026-03-02#^f-aaaaaaaaaa]]\n';
    await writeFile(path.join(vault.root, '2_Areas/Dinner plans.md'), personPage);
    await git(vault.root, ['add', '-A']);
    await git(vault.root, ['commit', '-qm', 'my notes']);
    await remember(vault, [
      { text: 'Diego works at the harbour clinic', date: '2026-03-10' },
      { text: 'Diego plays the cello', date: '2026-03-11' },
      { text: 'Diego lives near the old market', date: '2026-03-12' },
    ]);
  }, 120_000);

  it('gathers the earlier statement on the new page, leaves a link, and says so in the commit', async () => {
    const before = await runJson<{ results: Array<{ kind: string; path: string }> }>(['search', 'shellfish'], { cwd: vault.root });
    const filedOn = before.results.find((r) => r.kind === 'page' && r.path !== '2_Areas/Dinner plans.md')?.path;
    expect(filedOn).toBeDefined();
    expect(filedOn).not.toContain('Diego');
    const run = await vault.dream({ force: true, offline: true, now: new Date('2026-03-15T06:00:00Z') });
    expect(run.status, run.reason).toBe('ok');
    const diego = await read(vault, '3_Personal/Diego.md');
    expect(diego).toMatch(/^- Diego is allergic to shellfish \[\[2026-03-02#\^f-[0-9a-z]{10}\]\]$/m);
    expect(diego).toMatch(/^- Diego plays the cello /m);
    const source = await read(vault, filedOn!);
    expect(source).not.toContain('shellfish');
    expect(source).toContain('- → [[Diego]]');
    expect(run.summary).toMatch(/moved 1 statements? to the pages of their entity: 1 from .* to 3_Personal\/Diego\.md/);
    const message = await git(vault.root, ['log', '-1', '--format=%B']);
    expect(message).toContain('moved 1 statement');
    // A person's page is theirs: not a byte moved.
    expect(await read(vault, '2_Areas/Dinner plans.md')).toBe(personPage);
    // Search finds the statement on Diego's page now, and the link is navigation, never a result.
    const after = await runJson<{ results: Array<{ path: string; text: string }> }>(['search', 'Diego shellfish'], { cwd: vault.root });
    expect(after.results.map((r) => r.path)).toContain('3_Personal/Diego.md');
    expect(after.results.some((r) => r.text.includes('→'))).toBe(false);
  });
});

describe('every hub opens with a lead', { timeout: 300_000 }, () => {
  it('gives a part that became a hub a lead linking its parts, as its own hub has', async () => {
    const vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
    const turn = (n: number): string => `Caroline: turn ${n}, talking at length about the long walk by the river, the garden that needs weeding, and the books we keep meaning to read`;
    await vault.remember(Array.from({ length: 100 }, (_, n) => ({ text: turn(n), category: 'moment' as never, tags: [] })), { source: 'test', now: new Date('2026-01-05T10:00:00Z') });
    await vault.remember([0, 1, 2].map((n) => ({ text: `Caroline: the next day, note ${n}`, category: 'moment' as never, tags: [] })), { source: 'test', now: new Date('2026-01-06T10:00:00Z') });
    const run = await vault.dream({ force: true, offline: true, now: new Date('2026-01-10T06:00:00Z') });
    expect(run.status, run.reason).toBe('ok');
    const hub = await read(vault, '3_Personal/Caroline.md');
    const sub = await read(vault, '3_Personal/Caroline — Hobbies.md');
    // The part's statements moved on to numbered parts: it is a hub in turn.
    expect(sub).toMatch(/^## Parts$/m);
    expect(sub).toMatch(/^part_of: "\[\[Caroline\]\]"$/m);
    for (const [text, title] of [[hub, 'Caroline'], [sub, 'Caroline — Hobbies']] as const) {
      const lead = text.split('\n').find((l) => l.startsWith(`**${title}** is `));
      expect(lead, title).toBeDefined();
      expect(lead).toMatch(/\[\[\d{4}-\d{2}-\d{2}#\^f-[0-9a-z]+\]\]/); // it restates cited statements
      // Its parts are linked under Parts, not in the lead, which a search result shows whole.
      expect(lead).not.toMatch(/Its parts|\[\[Caroline — /);
      expect(text).toMatch(/^## Parts\n+- \[\[Caroline — /m);
      // The lead stands between the title and the first section.
      expect(text.indexOf(lead!)).toBeLessThan(text.indexOf('\n## '));
    }
    expect(sub).toMatch(/^\*\*Caroline — Hobbies\*\* is part of \[\[Caroline\]\], with 100 statements /m);
  });
});

describe('a lead a person edited is theirs', { timeout: 300_000 }, () => {
  it('keeps the edited lead byte for byte and goes on consolidating the page', async () => {
    const vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
    await remember(vault, [
      { text: 'Diego works at the harbour clinic', date: '2026-03-10' },
      { text: 'Diego plays the cello', date: '2026-03-11' },
      { text: 'Diego lives near the old market', date: '2026-03-12' },
    ]);
    const first = await vault.dream({ force: true, offline: true, now: new Date('2026-03-15T06:00:00Z') });
    expect(first.status, first.reason).toBe('ok');
    const rel = '3_Personal/Diego.md';
    const before = await read(vault, rel);
    expect(before).toMatch(/^\*\*Diego\*\* is a person with 3 statements/m);
    const mine = '**Diego** is my climbing partner from the Thursday group; ask him about cello lessons.';
    await writeFile(path.join(vault.root, rel), before.replace(/^\*\*Diego\*\* is .+$/m, mine));
    await git(vault.root, ['add', '-A']);
    await git(vault.root, ['commit', '-qm', 'my words for Diego']);

    await remember(vault, [
      { text: 'Diego adopted a greyhound', date: '2026-03-20' },
      { text: 'Diego ran the harbour half marathon', date: '2026-03-21' },
    ]);
    const next = await vault.dream({ force: true, offline: true, now: new Date('2026-03-25T06:00:00Z') });
    expect(next.status, next.reason).toBe('ok');
    const after = await read(vault, rel);
    expect(after).toContain(`\n${mine}\n`);
    expect(after).not.toMatch(/^\*\*Diego\*\* is a person with/m); // no second lead beside theirs
    expect(after).toMatch(/^- Diego adopted a greyhound \[\[2026-03-20#/m);
    expect(after).toMatch(/^- Diego ran the harbour half marathon \[\[2026-03-21#/m);
    // A later dream leaves it too.
    await remember(vault, [{ text: 'Diego bought a kayak', date: '2026-03-28' }]);
    const third = await vault.dream({ force: true, offline: true, now: new Date('2026-04-01T06:00:00Z') });
    expect(third.status, third.reason).toBe('ok');
    expect(await read(vault, rel)).toContain(`\n${mine}\n`);
  });
});

describe('a lead always cites, and a bare exclamation is small talk', { timeout: 240_000 }, () => {
  it('quotes the shortest statement when every one is long, and files "That view is stunning!" off entity pages', async () => {
    const vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
    const long = (what: string): string =>
      `Diego Alvarez ${what}, and he spent the whole evening telling everyone at the table about the people he met there, the food he tried, the long walks by the water and the plans he made for the next trip`;
    await remember(vault, [
      { text: long('took the night train to Porto last spring'), date: '2026-03-02' },
      { text: long('went sailing along the coast of Brittany'), date: '2026-03-03' },
      { text: long('visited his cousin in the mountains near Granada for a week'), date: '2026-03-04' },
      { text: 'Caroline: I painted a lake at sunrise', date: '2026-03-04', category: 'moment' },
      { text: 'Melanie: That view is stunning!', date: '2026-03-04', category: 'moment' },
    ]);
    const run = await vault.dream({ force: true, offline: true, now: new Date('2026-03-06T06:00:00Z') });
    // Before, a lead with nothing short enough to quote was an uncited claim, and the run failed its check.
    expect(run.status, run.reason).toBe('ok');
    const diego = await read(vault, '3_Personal/Diego Alvarez.md');
    const lead = diego.split('\n').find((l) => l.startsWith('**Diego Alvarez** is '));
    expect(lead).toMatch(/^\*\*Diego Alvarez\*\* is a person with 3 statements .*Diego Alvarez went sailing along the coast of Brittany, .*\[\[2026-03-03#\^f-[0-9a-z]{10}\]\]$/);
    // The exclamation about "that" says nothing of anyone: it is cited from the month's record, not from a page.
    const record = await read(vault, '4_Resources/Small talk/Small talk 2026-03.md');
    const stunning = (await readFile(path.join(vault.root, 'logs/2026-03-04.md'), 'utf8')).split('\n').find((l) => l.includes('stunning'))!;
    expect(record).toContain(/\^(f-[0-9a-z]{10})/.exec(stunning)![1]);
    for (const rel of ['3_Personal/Melanie.md', '3_Personal/Caroline.md']) {
      const page = await readFile(path.join(vault.root, rel), 'utf8').catch(() => '');
      expect(page, rel).not.toContain('stunning');
    }
  });
});
