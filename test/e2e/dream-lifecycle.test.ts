/**
 * The page lifecycle and core memory (issue 10, deliverables 4 and 5): a cold page the dream made moves
 * to 5_Archives/ in the run's commit, listed in its result, never before dream.archive_after_days, never
 * a person's own page; plain search leaves it out and --archived finds it (CLI and MCP). MEMORY.md keeps
 * the durable facts ranked within its cap and says what it left out, an allergy reaches it, a passed
 * commitment leaves it, and the same input gives the same bytes. Real vaults, real git, the real runner,
 * the built CLI and a real MCP client.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../src/vault/vault.js';
import { CLI, runJson } from '../helpers/cli.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { git } from '../helpers/vault.js';

const CONFIG = 'timezone: UTC\nindex:\n  embedder: none\ndream:\n  max_days: 60\n';
let temp = '';
beforeAll(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'vk-dream-life-'));
});
afterAll(async () => {
  if (temp !== '') await rm(temp, { recursive: true, force: true });
});

type Input = { text: string; date: string; category?: string; tags?: string[] };

async function vaultWith(facts: readonly Input[], config = CONFIG): Promise<Vault> {
  const vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config });
  await add(vault, facts);
  return vault;
}

async function add(vault: Vault, facts: readonly Input[]): Promise<void> {
  for (const f of facts) {
    await vault.remember([{ text: f.text, category: (f.category ?? 'fact') as never, tags: f.tags ?? [] }], { source: 'test', now: new Date(`${f.date}T10:00:00Z`) });
  }
}

const read = (vault: Vault, rel: string): Promise<string> => readFile(path.join(vault.root, rel), 'utf8');
const exists = (vault: Vault, rel: string): Promise<boolean> => readFile(path.join(vault.root, rel)).then(() => true, () => false);
const at = (date: string): Date => new Date(`${date}T06:00:00Z`);

interface Hit {
  kind: string;
  path: string;
  text: string;
}

describe('archiving cold pages', { timeout: 300_000 }, () => {
  let vault: Vault;
  const CAROL = '3_Personal/Carol Diaz.md';
  const ARCHIVED = `5_Archives/${CAROL}`;
  const OWN = '2_Areas/Reading list.md';
  let carolBefore = '';

  beforeAll(async () => {
    vault = await vaultWith([
      { text: 'Carol Diaz runs the pottery studio on Rua Augusta', date: '2026-01-05' },
      { text: 'Carol Diaz teaches wheel throwing on Mondays', date: '2026-01-05' },
      { text: 'Carol Diaz fires the kiln every second week', date: '2026-01-06' },
      { text: 'Carol Diaz glazes her bowls in cobalt blue', date: '2026-01-06' },
      { text: 'Tomatoes need staking by June', date: '2026-01-05', tags: ['garden'] },
      { text: 'The garden bed by the fence gets morning sun', date: '2026-01-06', tags: ['garden'] },
      { text: 'Compost goes on the garden in March', date: '2026-01-06', tags: ['garden'] },
      { text: 'Will renew the car insurance by 2026-12-01', date: '2026-01-06', category: 'commitment' },
    ]);
    const first = await vault.dream({ force: true, offline: true, now: at('2026-01-10') });
    expect(first.status, first.reason).toBe('ok');
    carolBefore = await read(vault, CAROL);
    // A person's own page, citing a fact just as old: it is theirs, and never moves.
    const cite = /\[\[2026-01-05#\^f-[0-9a-z]+\]\]/.exec(carolBefore)![0];
    await writeFile(path.join(vault.root, OWN), `# Reading list\n\n- A book on glazes, Carol's tip ${cite}\n`);
    await git(vault.root, ['add', '--all']);
    await git(vault.root, ['commit', '-qm', 'my reading list']);
  }, 120_000);

  it('keeps a page younger than dream.archive_after_days (default 180) where it is', async () => {
    // A search in June returns the garden page: recalled pages are not cold.
    const hits = await vault.search('garden bed morning sun', { now: at('2026-06-20') });
    expect(hits.some((h) => h.path.endsWith('Garden.md'))).toBe(true);
    await add(vault, [{ text: 'Booked a train to Porto', date: '2026-07-02', tags: ['travel'] }]);
    // Carol's page was last changed by the run of 2026-01-10 (her newest fact is of 01-06): on 07-08 that is 179 days.
    const result = await vault.dream({ force: true, offline: true, now: at('2026-07-08') });
    expect(result.status, result.reason).toBe('ok');
    expect(result.pages.archived).toEqual([]);
    expect(await read(vault, CAROL)).toBe(carolBefore);
  });

  it('moves it to 5_Archives in the dream commit after that, listed in the result, summary and message', async () => {
    await add(vault, [{ text: 'Booked a hotel in Porto', date: '2026-07-08', tags: ['travel'] }]);
    const result = await vault.dream({ force: true, offline: true, now: at('2026-07-09') });
    expect(result.status, result.reason).toBe('ok');
    expect(result.pages.archived).toEqual([{ from: CAROL, to: ARCHIVED }]);
    expect(result.summary).toContain(`archived 1 pages unused since 2026-01-10 (${CAROL})`);
    // Byte for byte, in one commit that git reads as a move, so the page's history follows it.
    expect(await exists(vault, CAROL)).toBe(false);
    expect(await read(vault, ARCHIVED)).toBe(carolBefore);
    const message = await git(vault.root, ['log', '-1', '--format=%B']);
    expect(message).toMatch(/^dream: 2026-07-08\.\.2026-07-08 → pages \+\d+ ~\d+ >1 /);
    expect(message).toContain(`> ${CAROL} -> ${ARCHIVED}`);
    expect(await git(vault.root, ['show', '--format=', '--name-status', '-M', 'HEAD'])).toMatch(new RegExp(`^R100\\t${CAROL}\\t${ARCHIVED}$`, 'm'));
    const followed = (await git(vault.root, ['log', '--follow', '--format=%s', '--', ARCHIVED])).trim().split('\n');
    expect(followed).toHaveLength(2); // the archiving run and the run that wrote the page
    expect(await read(vault, 'log.md')).toMatch(/pages \+\d+ ~\d+ >1 · facts 1 · placed 1 · filed 0\n$/);
    // The recalled garden page, a page with a promise still ahead and the person's own page (as old, never recalled) stay.
    expect(await exists(vault, '2_Areas/Garden.md')).toBe(true);
    expect(await read(vault, '1_Projects/Commitments.md')).toContain('(due 2026-12-01)');
    expect(await exists(vault, OWN)).toBe(true);
    expect(await git(vault.root, ['status', '--porcelain'])).toBe('');
  });

  it('leaves the archived page out of plain search; --archived finds it, in the CLI and over MCP', async () => {
    const plain = await runJson<{ results: Hit[] }>(['--vault', vault.root, 'search', 'pottery studio kiln']);
    expect(plain.results.filter((r) => r.path.startsWith('5_Archives/'))).toEqual([]);
    const archived = await runJson<{ results: Hit[] }>(['--vault', vault.root, 'search', 'pottery studio kiln', '--archived']);
    expect(archived.results[0]).toMatchObject({ kind: 'page', path: ARCHIVED });

    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--vault', vault.root, 'mcp'], stderr: 'pipe' });
    const client = new Client({ name: 'vaultkeeper-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const results = async (args: Record<string, unknown>): Promise<Hit[]> => {
        const reply = (await client.callTool({ name: 'memory_search', arguments: args })) as CallToolResult;
        if (reply.isError) throw new Error(`memory_search failed: ${JSON.stringify(reply.content)}`);
        return (reply.structuredContent as { results: Hit[] }).results;
      };
      expect((await results({ query: 'pottery studio kiln' })).filter((r) => r.path.startsWith('5_Archives/'))).toEqual([]);
      expect((await results({ query: 'pottery studio kiln', archived: true }))[0]).toMatchObject({ path: ARCHIVED });
    } finally {
      await client.close();
    }
  });

  it('keeps links to it resolving, and a new fact about Carol opens a live page again', async () => {
    const doctor = await runJson<{ problems: Array<{ code: string; path: string }> }>(['--vault', vault.root, 'doctor']);
    expect(doctor.problems.filter((p) => p.code === 'BROKEN_LINK' || p.code === 'BROKEN_CITATION')).toEqual([]);
    await add(vault, [{ text: 'Carol Diaz opened a second studio in Porto', date: '2026-07-10' }]);
    const result = await vault.dream({ force: true, offline: true, now: at('2026-07-11') });
    expect(result.status, result.reason).toBe('ok');
    expect(await read(vault, CAROL)).toContain('Carol Diaz opened a second studio in');
    expect(await read(vault, ARCHIVED)).toBe(carolBefore); // the archive is not written to
  });

  it('archives the reopened page when it goes cold again, as `<name> (2).md` beside the first, losing no line', async () => {
    const live = await read(vault, CAROL);
    const SECOND = '5_Archives/3_Personal/Carol Diaz (2).md';
    await add(vault, [{ text: 'Booked a ferry to Madeira', date: '2027-02-01', tags: ['travel'] }]);
    // Her live page was last changed by the run of 2026-07-11: on 2027-02-02 that is 206 days.
    const result = await vault.dream({ force: true, offline: true, now: at('2027-02-02') });
    expect(result.status, result.reason).toBe('ok');
    expect(result.pages.archived).toContainEqual({ from: CAROL, to: SECOND });
    expect(result.summary).toContain(`2026-07-11 (${CAROL})`);
    expect(await exists(vault, CAROL)).toBe(false);
    expect(await read(vault, SECOND)).toBe(live);
    expect(await read(vault, ARCHIVED)).toBe(carolBefore); // the first archive is never overwritten
    expect(await git(vault.root, ['show', '--format=', '--name-status', '-M', 'HEAD'])).toContain(`R100\t${CAROL}\t${SECOND}\n`);
    expect(await git(vault.root, ['log', '-1', '--format=%B'])).toContain(`> ${CAROL} -> ${SECOND}`);
    const doctor = await runJson<{ problems: Array<{ code: string; path: string }> }>(['--vault', vault.root, 'doctor']);
    expect(doctor.problems.filter((p) => p.code === 'BROKEN_LINK' || p.code === 'BROKEN_CITATION')).toEqual([]);
  });
});

describe('archiving off', { timeout: 120_000 }, () => {
  it('never archives with dream.archive_after_days: 0', async () => {
    const vault = await vaultWith(
      [
        { text: 'Tomatoes need staking by June', date: '2026-01-05', tags: ['garden'] },
        { text: 'The garden bed by the fence gets morning sun', date: '2026-01-06', tags: ['garden'] },
        { text: 'Compost goes on the garden in March', date: '2026-01-06', tags: ['garden'] },
      ],
      `${CONFIG}  archive_after_days: 0\n`,
    );
    expect((await vault.dream({ force: true, offline: true, now: at('2026-01-10') })).status).toBe('ok');
    await add(vault, [{ text: 'Booked a train to Porto', date: '2027-06-01', tags: ['travel'] }]);
    const result = await vault.dream({ force: true, offline: true, now: at('2027-06-02') });
    expect(result.status, result.reason).toBe('ok');
    expect(result.pages.archived).toEqual([]);
    expect(await exists(vault, '2_Areas/Garden.md')).toBe(true);
  });
});

/** Twenty-four keyed values over two topics, an allergy, a principle and two commitments. */
function memoryFacts(): Input[] {
  const facts: Input[] = [];
  for (let i = 0; i < 12; i++) {
    const day = `2026-06-${String(1 + i).padStart(2, '0')}`;
    facts.push({ text: `city ${i} visit:: spring ${2000 + i}`, date: day, tags: ['location'] });
    facts.push({ text: `project ${i} status:: phase ${i}`, date: day, tags: ['work'] });
  }
  facts.push({ text: 'Allergic to peanuts', date: '2026-06-02', category: 'fact' });
  facts.push({ text: 'Never work on Sundays', date: '2026-06-03', category: 'principle' });
  facts.push({ text: 'Promised to send Dana the budget by 2026-06-20', date: '2026-06-04', category: 'commitment' });
  facts.push({ text: 'Will renew the passport by 2026-09-01', date: '2026-06-05', category: 'commitment' });
  return facts;
}

describe('MEMORY.md', { timeout: 300_000 }, () => {
  const config = `${CONFIG}  memory_lines: 12\n`;
  let vault: Vault;
  let memory = '';
  beforeAll(async () => {
    vault = await vaultWith(memoryFacts(), config);
    const result = await vault.dream({ force: true, offline: true, now: at('2026-06-14') });
    expect(result.status, result.reason).toBe('ok');
    memory = await read(vault, 'MEMORY.md');
  }, 120_000);

  it('keeps durable facts of every form within the cap (counted in facts), health first, and says what it left out', async () => {
    const lines = memory.trimEnd().split('\n');
    // 28 durable facts, 12 shown: the cap counts list items, not the headings, blank lines and intro around them.
    expect(lines.filter((l) => l.startsWith('- ') && !/\(recalled \d+ times\)$/.test(l))).toHaveLength(12);
    expect(memory).toMatch(/## Health\n\n- Allergic to peanuts — \[\[[^\]]+\]\]\n/);
    expect(memory).toMatch(/## Open commitments\n\n- Promised to send Dana the budget by 2026-06-20 \(due 2026-06-20\) — \[\[[^\]]+\]\]\n- Will renew the passport/);
    expect(memory).toMatch(/## Current\n\n- (city 11 visit:: spring 2011|project 11 status:: phase 11) — \[\[(Location|Work)\]\]\n/); // newest first
    // The best of each kind is kept before more of another: the principle is not crowded out by keyed values.
    expect(memory).toMatch(/## Principles\n\n- Never work on Sundays — \[\[Principles\]\]\n/);
    const shownKeyed = lines.filter((l) => /^- .+:: /.test(l)).length;
    const note = /^\+(\d+) more on (\[\[[^\]]+\]\](?:, \[\[[^\]]+\]\])*)( …)?$/.exec(lines.at(-1)!);
    expect(note, lines.at(-1)).not.toBeNull();
    // Everything durable is either shown or counted: the 24 keyed values.
    expect(shownKeyed + Number(note![1])).toBe(24);
    expect(note![2]).toMatch(/^\[\[(Location|Work)\]\], \[\[(Location|Work)\]\]$/);
  });

  it('indexes only its list items, not the note', async () => {
    const hits = await vault.search('more on Location', { kind: 'core' });
    expect(hits.filter((h) => /more on/.test(h.text))).toEqual([]);
    expect((await vault.search('peanuts', { kind: 'core' }))[0]).toMatchObject({ kind: 'core', path: 'MEMORY.md' });
  });

  it('drops a commitment once its date passes: the page moves it to Past, MEMORY.md lets it go', async () => {
    await add(vault, [{ text: 'Bought a new kettle', date: '2026-06-22', category: 'moment' }]);
    const result = await vault.dream({ force: true, offline: true, now: at('2026-06-23') });
    expect(result.status, result.reason).toBe('ok');
    const next = await read(vault, 'MEMORY.md');
    expect(next).not.toContain('send Dana the budget');
    expect(next).toContain('Will renew the passport by 2026-09-01');
    const pages = (await git(vault.root, ['grep', '-l', 'send Dana the budget', '--', '*.md'])).trim().split('\n').filter((p) => !p.startsWith('logs/'));
    expect(pages).toHaveLength(1);
    expect(await read(vault, pages[0]!)).toMatch(/## Past commitments\n\n- Promised to send Dana the budget by 2026-06-20 \(due 2026-06-20\)/);
  });

  it('is byte-identical for the same input', async () => {
    const again = await vaultWith(memoryFacts(), config);
    expect((await again.dream({ force: true, offline: true, now: at('2026-06-14') })).status).toBe('ok');
    expect(await read(again, 'MEMORY.md')).toBe(memory);
  });
});
