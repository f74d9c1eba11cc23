/**
 * Summaries of lists (issue 25, summaries.ts): the things a person's statements say they did with one verb are
 * gathered into one line under `## At a glance` on their page, in the order first said, each with its date, citing
 * every statement it gathers; a verb with one thing, a light verb ("had") and a negated one gather nothing; the
 * same logs give the same bytes. Through the built CLI, on real vaults.
 */
import { cp, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../src/vault/vault.js';
import { runCli, runJson } from '../helpers/cli.js';
import { makeVault } from '../helpers/indexed-vault.js';

const CONFIG = 'timezone: UTC\nindex:\n  embedder: none\ndream:\n  max_days: 60\n';
let temp = '';
const ids = new Map<string, string>();

/** Dated turns: Caroline visits three places on three days, with other talk around them. */
const DAYS: Array<[string, string[]]> = [
  ['2026-03-02T10:00:00Z', ['Caroline: I went to a poetry reading yesterday and it was so moving.', 'Melanie: That sounds lovely! I had a quiet weekend at home with the kids.', 'Caroline: I adopted a cat named Miso last month.']],
  ['2026-03-09T10:00:00Z', ['Caroline: Last weekend I went to the pride parade downtown.', 'Melanie: I finished a painting of a lake.', 'Caroline: I did not go to the museum though.']],
  ['2026-03-16T10:00:00Z', ['Caroline: I went to a council meeting about the new library.', 'Melanie: I had a long week at work.', 'Caroline: I joined a choir this spring.']],
];

/** A vault holding the turns, not yet dreamt. */
async function remembered(): Promise<Vault> {
  const vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
  for (const [at, turns] of DAYS) {
    const written = await vault.remember(turns.map((text) => ({ text, category: 'fact' as never, tags: [] })), { source: 'test', now: new Date(at) });
    written.facts.forEach((fact, i) => ids.set(turns[i]!, fact.id));
  }
  return vault;
}

/** Dreams the vault at `root` offline and returns its wiki pages' texts. */
async function dreamt(root: string): Promise<Map<string, string>> {
  const run = await runCli(['--vault', root, 'dream', '--force', '--offline', '--json']);
  expect(run.code, run.stderr).toBe(0);
  expect((JSON.parse(run.stdout) as { status: string }).status).toBe('ok');
  const pages = new Map<string, string>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.md')) continue;
    const rel = path.relative(root, path.join(entry.parentPath, entry.name));
    if (/^[0-5]_/u.test(rel)) pages.set(rel, await readFile(path.join(root, rel), 'utf8'));
  }
  return pages;
}

let first: Map<string, string>;
let root = '';
let second: Map<string, string>;

beforeAll(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'vk-dream-summaries-'));
  const vault = await remembered();
  // The same logs in a second vault: a copy taken before any dream.
  const copy = path.join(temp, 'copy');
  await cp(vault.root, copy, { recursive: true });
  first = await dreamt(vault.root);
  root = vault.root;
  second = await dreamt(copy);
}, 240_000);

afterAll(async () => {
  if (temp !== '' && process.env.KEEP !== '1') await rm(temp, { recursive: true, force: true });
});

const id = (prefix: string): string => [...ids].find(([text]) => text.startsWith(prefix))![1];
const glance = (text: string): string[] => {
  const lines = text.split('\n');
  const start = lines.indexOf('## At a glance');
  if (start < 0) return [];
  const out: string[] = [];
  for (let i = start + 1; i < lines.length && !/^## /u.test(lines[i]!); i++) if (lines[i]!.startsWith('- ')) out.push(lines[i]!);
  return out;
};

describe('summaries of lists', { timeout: 60_000 }, () => {
  it("gathers the places Caroline went to into one line on her page, first said first, each with its date", () => {
    const [rel, text] = [...first].find(([r]) => /3_Personal\/Caroline\.md$/u.test(r))!;
    expect(rel).toBeDefined();
    const line = glance(text).find((l) => l.startsWith('- Caroline went to: '));
    expect(line, text).toBeDefined();
    expect(line).toContain('Caroline went to: poetry reading (1 March 2026), pride parade downtown (the weekend of 7 March 2026), council meeting (16 March 2026).');
    // The section stands before the page's other sections, after its lead.
    const lines = text.split('\n');
    expect(lines.indexOf('## At a glance')).toBeLessThan(lines.findIndex((l) => /^## (?!At a glance)/u.test(l)) === -1 ? Infinity : lines.findIndex((l) => /^## (?!At a glance)/u.test(l)));
  });

  it('cites every statement it gathers, and only those', () => {
    const text = [...first].find(([r]) => /3_Personal\/Caroline\.md$/u.test(r))![1];
    const line = glance(text).find((l) => l.startsWith('- Caroline went to: '))!;
    const cited = [...line.matchAll(/#\^([A-Za-z0-9-]+)\]\]/gu)].map((m) => m[1]);
    expect(cited.sort()).toEqual([id('Caroline: I went to a poetry'), id('Caroline: Last weekend'), id('Caroline: I went to a council')].sort());
  });

  it('a negated verb, a light verb and a verb with one thing gather nothing', () => {
    const all = [...first.values()].flatMap(glance).join('\n');
    expect(all).not.toContain('museum');
    expect(all).not.toMatch(/\bhad\b/u);
    expect(all).not.toContain('joined');
    expect(all).not.toContain('adopted');
  });

  it('in a search, the summary does not take the slots of the lines it gathers (they tell the rest)', async () => {
    const found = await runJson<{ results: Array<{ kind: string; text: string; heading: string | null }> }>(['search', 'Caroline went to poetry reading pride parade council meeting', '--vault', root, '--json']);
    const texts = found.results.map((r) => r.text);
    // The summary, naming all three, ranks first; the lines it gathers still stand after it.
    expect(found.results[0]?.heading).toBe('At a glance');
    expect(texts.some((t) => t.includes('Caroline went to: poetry reading')), texts.join('\n')).toBe(true);
    expect(texts.some((t) => t.includes('it was so moving')), texts.join('\n')).toBe(true);
  });

  it('is deterministic: the same logs give the same pages', () => {
    expect([...second.keys()].sort()).toEqual([...first.keys()].sort());
    for (const [rel, text] of first) expect(second.get(rel), rel).toBe(text);
  });
});
