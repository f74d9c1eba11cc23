/**
 * Entity pages that tell what is known (issue 25, deliverables 2 and 3), through the built CLI's offline
 * dream on a real vault: a project's page says who works on it and its status, a place's page who is there;
 * acronyms (UK, "the LGBTQ community"), dotted initials (J.K. Rowling) and a name said once in a question get
 * their pages; two speakers stay two people.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../src/vault/vault.js';
import { runCli } from '../helpers/cli.js';
import { makeVault } from '../helpers/indexed-vault.js';

const CONFIG = 'timezone: UTC\nindex:\n  embedder: none\ndream:\n  max_days: 60\n';
let temp = '';
let vault: Vault;
let summary = '';

const read = (rel: string): Promise<string> => readFile(path.join(vault.root, rel), 'utf8');

beforeAll(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'vk-dream-entity-pages-'));
  vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
  const facts: Array<[string, string, string[]]> = [
    ['2026-03-02', 'Amara Nwosu is the tech lead on Project Lantern', ['work']],
    ['2026-03-02', 'Diego Ruiz is the designer on Project Lantern', ['work']],
    ['2026-03-03', 'Project Lantern status:: at risk', ['work']],
    ['2026-03-03', 'Decided to cut scope for Project Lantern', ['work']],
    ['2026-03-04', 'Diego Ruiz lives in Valencia', []],
    ['2026-03-04', 'Amara Nwosu moved to Valencia last year', []],
    ['2026-03-05', 'Lunch with Diego Ruiz and Amara Nwosu in Valencia', []],
    ['2026-03-05', 'Tim: J.K. Rowling is such an inspiring writer.', []],
    ['2026-03-05', 'John: Do you have a favorite J.K. Rowling quote?', []],
    ['2026-03-06', 'Tim: There is a quote by J.K. Rowling that keeps me going when times are tough.', []],
    ['2026-03-06', 'Tim: I went to a castle during my trip to the UK last Friday.', []],
    ['2026-03-06', 'Tim: I read a book about castles in the UK and it gave me ideas for my story.', []],
    ['2026-03-07', 'John: What do you love about the UK?', []],
    ['2026-03-07', 'Caroline: I went to an LGBTQ support group yesterday and it was so powerful.', []],
    ['2026-03-07', 'Melanie: You are getting others involved in the LGBTQ community, that takes courage.', []],
    ['2026-03-08', 'Caroline: I talked to the students about the LGBTQ community and my own journey.', []],
  ];
  for (const [date, text, tags] of facts) await vault.remember([{ text, category: 'fact', tags }], { source: 'test', now: new Date(`${date}T10:00:00Z`) });
  const run = await runCli(['--vault', vault.root, 'dream', '--force', '--offline', '--json']);
  expect(run.code, run.stderr).toBe(0);
  summary = run.stdout;
}, 180_000);

afterAll(async () => {
  if (temp !== '' && process.env.KEEP !== '1') await rm(temp, { recursive: true, force: true });
});

describe('entity pages tell who and where', { timeout: 60_000 }, () => {
  it("a project's page says who works on it and its status", async () => {
    const page = await read('1_Projects/Project Lantern.md');
    expect(page).toMatch(/^type: project$/m);
    expect(page).toMatch(/Amara Nwosu is the tech lead on Project Lantern/);
    expect(page).toMatch(/Diego Ruiz is the designer on Project Lantern/);
    expect(page).toMatch(/^## Current\n\n- Project Lantern status:: at risk \[\[2026-03-03#\^f-[0-9a-z]{10}\]\]$/m);
    // The lead tells the status before any section.
    const lead = page.split('\n').find((l) => l.startsWith('**Project Lantern** is '));
    expect(lead).toContain('at risk');
  });

  it("a place's page says who is there", async () => {
    const page = await read('2_Areas/Valencia.md');
    expect(page).toMatch(/^type: place$/m);
    // "lives in" and "moved to" are read as each one's home city, stated on their pages and repeated here.
    expect(page).toMatch(/^- Diego Ruiz's home city: Valencia \(see \[\[Diego Ruiz\]\]\) \[\[2026-03-04#\^f-[0-9a-z]{10}\]\]$/m);
    expect(page).toMatch(/^- Amara Nwosu's home city: Valencia \(see \[\[Amara Nwosu\]\]\) \[\[2026-03-04#\^f-[0-9a-z]{10}\]\]$/m);
    expect(page).toMatch(/\[\[Diego Ruiz\]\]/);
    expect(page).toMatch(/\[\[Amara Nwosu\]\]/);
    // A page of mentions only still opens with a lead that says what it is and quotes what is said of it, cited.
    const lines = page.split('\n');
    const lead = lines.find((l) => l.startsWith('**Valencia** is '));
    expect(lead).toMatch(/^\*\*Valencia\*\* is a place named in \d+ statements in this vault \(March 2026\)\. .*Valencia\. \[\[2026-03-0\d#\^f-[0-9a-z]{10}\]\]/);
    expect(lead).not.toContain('(see [[');
    expect(lines.indexOf(lead!)).toBeLessThan(lines.findIndex((l) => l.startsWith('## ')));
  });
});

describe('names of every shape get their page', { timeout: 60_000 }, () => {
  it('pages dotted initials, an acronym the dictionary knows and one compromise reads as a community', async () => {
    expect(await read('3_Personal/J.K. Rowling.md')).toMatch(/^type: person$/m);
    // The third fact naming the UK is a question (small talk): it still counts toward the page.
    expect(await read('2_Areas/UK.md')).toMatch(/^type: place$/m);
    const lgbtq = await read('2_Areas/LGBTQ community.md');
    expect(lgbtq).toMatch(/^type: organization$/m);
    expect(lgbtq).toMatch(/^aliases: \["LGBTQ"\]$/m);
  });

  it('keeps two speakers two people, and makes no page of a greeting, a label or a sentence-initial word', async () => {
    const people = (await readdir(path.join(vault.root, '3_Personal'))).filter((f) => f.endsWith('.md')).sort();
    for (const name of people) expect(name.replace(/\.md$/, '').split(' ').filter((w) => ['Tim', 'John', 'Caroline', 'Melanie'].includes(w)).length, name).toBeLessThan(2);
    expect(people).not.toContain('Project Lantern.md');
    expect(people.filter((p) => /^(?:Do|There|What|You|Lunch|Decided)\b/u.test(p))).toEqual([]);
    expect(summary).toContain('"status": "ok"');
  });
});
