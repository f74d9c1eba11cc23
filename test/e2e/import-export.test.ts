/**
 * `vaultkeeper import` and `vaultkeeper export` through the built CLI: each export format of
 * test/fixtures/imports into facts dated as in the source, one commit per import, nothing new on a second run;
 * Basic Memory notes adopted byte for byte; an unknown format is one line and exit 1; an export (tombstones
 * applied, page citations) imported into a new vault gives the same live facts.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseLog, type Fact } from '../../src/logs/factlog.js';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { commitSubjects, expectOneLineError, git, gitStatus, initVault } from '../helpers/vault.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/imports/', import.meta.url));
const ENV = { VAULTKEEPER_TIMEZONE: 'UTC' };
const tempDir = useTempDir();

interface ImportJson {
  format: string;
  facts: number;
  duplicates: number;
  forgotten: number;
  unreadable: number;
  conversations: number;
  turns: number;
  pages: { added: string[]; unchanged: number; skipped: { path: string; reason: string }[] };
  commit: string | null;
  appended: { id: string; date: string; category: string; text: string; tags: string[]; source: string }[];
}

interface Exported {
  id: string;
  date: string;
  time: string;
  category: string;
  text: string;
  tags: string[];
  source: string;
  citations: { path: string; line: number }[];
}

const importInto = (root: string, what: string): Promise<ImportJson> => runJson<ImportJson>(['--vault', root, 'import', path.join(FIXTURES, what)], { env: ENV });

async function logFacts(root: string, date: string): Promise<Fact[]> {
  return parseLog(await readFile(path.join(root, 'logs', `${date}.md`), 'utf8'), date).facts;
}

async function exportJsonl(root: string): Promise<Exported[]> {
  const result = await runCli(['--vault', root, 'export'], { env: ENV });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Exported);
}

/** Imports, then imports again: the second run adds nothing, commits nothing, leaves the tree clean. */
async function importTwice(root: string, what: string): Promise<ImportJson> {
  const before = await commitSubjects(root);
  const first = await importInto(root, what);
  expect(first.facts).toBeGreaterThan(0);
  expect(first.commit).toMatch(/^[0-9a-f]{40}$/);
  const after = await commitSubjects(root);
  expect(after).toHaveLength(before.length + 1);
  expect(after[0]).toMatch(/^import: /);
  expect(await gitStatus(root)).toEqual([]);

  const again = await importInto(root, what);
  expect(again.facts).toBe(0);
  expect(again.commit).toBeNull();
  expect(again.duplicates).toBe(first.facts);
  expect(await commitSubjects(root)).toEqual(after);
  expect(await gitStatus(root)).toEqual([]);
  return first;
}

describe('vaultkeeper import', () => {
  it('reads a ChatGPT export: conversations by the branch shown, dated by each message; memories beside it', async () => {
    const root = await initVault(await tempDir());
    const result = await importTwice(root, 'chatgpt');
    expect(result.format).toBe('chatgpt');
    expect(result.conversations).toBe(2);
    // The hidden system message and the regenerated answer off the shown branch are not turns.
    expect(result.turns).toBe(6);

    // 1717930100 is 2024-06-09T10:48:20Z.
    const coffee = (await logFacts(root, '2024-06-09')).find((f) => /dark roast/i.test(f.text));
    expect(coffee).toMatchObject({ category: 'preference', source: 'chatgpt/6f1c2a9e', time: '10:48' });
    const postgres = await logFacts(root, '2024-06-10');
    expect(postgres.map((f) => f.source)).toContain('chatgpt/a1b2c3d4');
    expect(postgres.some((f) => /Postgres/.test(f.text))).toBe(true);
    const memory = await logFacts(root, '2024-05-02');
    expect(memory).toMatchObject([{ text: 'Is training for a half marathon in October', source: 'chatgpt/memory', time: '08:15', category: 'fact' }]);
    expect(result.appended.some((f) => f.text === 'Works as a data engineer' && f.source === 'chatgpt/memory')).toBe(true);
    expect(JSON.stringify(result.appended)).not.toContain('regenerated');
  });

  it('reads a Claude.ai export: the person\'s turns, dated by their created_at', async () => {
    const root = await initVault(await tempDir());
    const result = await importTwice(root, 'claude-ai/conversations.json');
    expect(result).toMatchObject({ format: 'claude-ai', conversations: 1, turns: 3 });
    const facts = await logFacts(root, '2024-07-01');
    expect(facts.some((f) => /allergic to peanuts/i.test(f.text) && f.source === 'claude-ai/c0ffee00' && f.time === '09:00')).toBe(true);
  });

  it('reads a mem0 export: each memory a fact on the day it was created, its category mapped and kept as tags', async () => {
    const root = await initVault(await tempDir());
    // The folder holding the one JSON file stands for it.
    const result = await importTwice(root, 'mem0');
    expect(result).toMatchObject({ format: 'mem0', facts: 3, unreadable: 0 });
    // 10:20:30 at -07:00 is 17:20 UTC.
    expect(await logFacts(root, '2024-03-11')).toMatchObject([{ category: 'preference', text: 'Prefers vegetarian food', tags: ['food', 'preferences'], source: 'mem0/alice', time: '17:20' }]);
    const march12 = await logFacts(root, '2024-03-12');
    expect(march12.map((f) => [f.category, f.text, f.tags])).toEqual([
      ['fact', 'Works at TechCorp as a senior engineer', ['professional_details', 'professional']],
      ['fact', 'Is leading the API redesign, targeting a Q2 launch', []],
    ]);
    // The file itself reads the same: nothing new.
    expect((await importInto(root, 'mem0/memories.json')).facts).toBe(0);
  });

  it('reads a Basic Memory folder: observations and relations become facts, the notes pages byte for byte, in one commit', async () => {
    const root = await initVault(await tempDir());
    const result = await importTwice(root, 'basic-memory');
    expect(result.format).toBe('basic-memory');
    expect(result.pages.added.sort()).toEqual(['Coffee Brewing Methods.md', 'people/Ana.md']);
    for (const rel of result.pages.added) {
      expect((await readFile(path.join(root, rel))).equals(await readFile(path.join(FIXTURES, 'basic-memory', rel))), rel).toBe(true);
    }
    const changed = (await git(root, ['show', '--name-only', '--format=', result.commit!])).split('\n').filter((l) => l !== '').sort();
    expect(changed).toEqual(['Coffee Brewing Methods.md', 'logs/2024-02-03.md', 'logs/2024-02-10.md', 'people/Ana.md']);

    const coffee = await logFacts(root, '2024-02-03');
    expect(coffee.map((f) => [f.category, f.text, f.tags])).toEqual([
      ['fact', 'Coffee Brewing Methods: Pour over provides more flavor clarity than French press', ['method']],
      ['fact', 'Coffee Brewing Methods: Water temperature at 205°F extracts optimal compounds', ['technique', 'brewing']],
      ['preference', 'Coffee Brewing Methods: Ethiopian beans work well with lighter roasts (personal experience)', []],
      // No imported note is named so: plain words, not a link to nothing.
      ['relationship', 'Coffee Brewing Methods relates to Coffee Bean Origins', []],
      ['relationship', 'Coffee Brewing Methods requires Proper Grinding Technique', []],
    ]);
    expect(coffee.every((f) => f.source === 'basic-memory/coffee-brewing-methods')).toBe(true);
    const ana = await logFacts(root, '2024-02-10');
    expect(ana.map((f) => [f.category, f.text])).toEqual([
      ['relationship', 'Ana: Sister, lives in Porto'],
      ['decision', 'Ana: Chose to move to Porto in 2023'],
      ['relationship', 'Ana knows [[Coffee Brewing Methods]]'],
    ]);
    // The second run found the notes in place.
    const again = await importInto(root, 'basic-memory');
    expect(again.pages).toEqual({ added: [], unchanged: 2, skipped: [] });
  });

  it('a Basic Memory import into a new vault dreams: the notes keep every line a person wrote, the facts gain statements beside them', async () => {
    const root = await initVault(await tempDir());
    await importInto(root, 'basic-memory');
    const notes = ['Coffee Brewing Methods.md', 'people/Ana.md'];
    const before = new Map(await Promise.all(notes.map(async (rel) => [rel, await readFile(path.join(root, rel), 'utf8')] as const)));
    const dream = await runJson<{ status: string; check: string | null; placed: number; uncited: number }>(['--vault', root, 'dream', '--offline', '--force'], { env: ENV });
    // An observation the dream restates is not given its citation: that would rewrite the person's line.
    expect(dream).toMatchObject({ status: 'ok', check: null, placed: 8, uncited: 0 });
    for (const rel of notes) {
      const after = (await readFile(path.join(root, rel), 'utf8')).split('\n');
      for (const line of before.get(rel)!.split('\n').filter((l) => /^- /.test(l))) expect(after, `${rel}: ${line}`).toContain(line);
    }
    const ana = await readFile(path.join(root, 'people/Ana.md'), 'utf8');
    expect(ana).toMatch(/^- Ana chose to move to Porto in 2023\. \[\[2024-02-10#\^f-[0-9a-z]+\]\]$/mu);
  });

  it('says in one line that a file in no known format was not imported, and exits 1', async () => {
    const root = await initVault(await tempDir());
    const before = await commitSubjects(root);
    const result = await runCli(['--vault', root, 'import', path.join(FIXTURES, 'unknown/data.json')], { env: ENV });
    expectOneLineError(result, 1, /in no format vaultkeeper imports .*nothing was imported/);
    expect(await commitSubjects(root)).toEqual(before);
    expectOneLineError(await runCli(['--vault', root, 'import', path.join(FIXTURES, 'unknown')], { env: ENV }), 1, /no format/);
  });
});

describe('vaultkeeper export', () => {
  it('writes every live fact with its page citations; imported into a new vault, the same live facts come back', async () => {
    const dir = await tempDir();
    const root = await initVault(dir);
    const vk = (...args: string[]): string[] => ['--vault', root, ...args];
    await importInto(root, 'mem0');
    await importInto(root, 'claude-ai');
    await runJson(vk('remember', 'home city:: Lisbon', '-t', 'home', '--date', '2024-03-12', '--source', 'me'), { env: ENV });
    await runJson(vk('remember', 'Prefers vegetarian food', '--date', '2024-03-12'), { env: ENV });
    const forgotten = await runJson<{ facts: { id: string }[] }>(vk('remember', 'Ana is planning a surprise party for Ben', '--date', '2024-03-12'), { env: ENV });
    await runJson(vk('forget', forgotten.facts[0]!.id), { env: ENV });
    const dream = await runJson<{ status: string }>(vk('dream', '--force'), { env: ENV });
    expect(dream.status).toBe('ok');

    const facts = await exportJsonl(root);
    expect(facts.map((f) => f.text)).not.toContain('Ana is planning a surprise party for Ben');
    expect(facts.map((f) => f.text)).toContain('home city:: Lisbon');
    // The same text from two sources on one day is two facts.
    expect(facts.filter((f) => f.text === 'Prefers vegetarian food')).toHaveLength(2);
    for (const fact of facts) {
      expect(Object.keys(fact)).toEqual(['id', 'date', 'time', 'category', 'text', 'tags', 'source', 'citations']);
    }
    // The dream placed the facts on pages: each citation is a page line holding the fact's id.
    const cited = facts.filter((f) => f.citations.length > 0);
    expect(cited.length).toBeGreaterThan(0);
    for (const fact of cited) {
      for (const citation of fact.citations) {
        const line = (await readFile(path.join(root, citation.path), 'utf8')).split('\n')[citation.line - 1];
        expect(line, `${citation.path}:${citation.line}`).toContain(`^${fact.id}`);
      }
    }

    const csv = await runCli(vk('export', '--format', 'csv'), { env: ENV });
    expect(csv.code).toBe(0);
    const rows = csv.stdout.split('\r\n').filter((l) => l !== '');
    expect(rows[0]).toBe('id,date,time,category,text,tags,source,citations');
    expect(rows).toHaveLength(facts.length + 1);
    expect(rows.find((r) => r.includes('Is leading the API redesign'))).toContain('"Is leading the API redesign, targeting a Q2 launch"');

    const out = path.join(dir, 'facts.jsonl');
    const written = await runCli(vk('export', '--out', out), { env: ENV });
    expect(written.code).toBe(0);
    expect(written.stderr).toContain(`exported ${facts.length} facts`);
    const other = await initVault(path.join(dir, 'other'));
    const imported = await runJson<ImportJson>(['--vault', other, 'import', out], { env: ENV });
    expect(imported).toMatchObject({ format: 'vaultkeeper', facts: facts.length, unreadable: 0 });
    const strip = (list: Exported[]): Omit<Exported, 'citations'>[] => list.map(({ citations: _, ...rest }) => rest);
    // Date, time, source and text are kept, so even the ids are the ones they were.
    expect(strip(await exportJsonl(other))).toEqual(strip(facts));
    expect((await runJson<ImportJson>(['--vault', other, 'import', out], { env: ENV })).facts).toBe(0);
  });

  it('refuses an unknown format as a usage error', async () => {
    const root = await initVault(await tempDir());
    const result = await runCli(['--vault', root, 'export', '--format', 'xml']);
    expectOneLineError(result, 2, /xml/);
  });
});
