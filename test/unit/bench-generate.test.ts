import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { benchQueries, generateVault, planVault, type GeneratedFile } from '../../bench/generate.js';
import { createRandom } from '../../bench/random.js';
import { parseLog } from '../../src/logs/factlog.js';
import { FACT_ID_RE } from '../../src/logs/ids.js';
import { useTempDir } from '../helpers/tmp.js';

const options = { days: 3, factsPerDay: 40, pages: 8, seed: 7 };
const plan = (o = options): GeneratedFile[] => [...planVault(o)];

describe('random', () => {
  test('the same seed gives the same sequence, another seed another', () => {
    const draw = (seed: number): number[] => {
      const rng = createRandom(seed);
      return Array.from({ length: 20 }, () => rng.int(1000));
    };
    expect(draw(1)).toEqual(draw(1));
    expect(draw(1)).not.toEqual(draw(2));
    const rng = createRandom(3);
    for (let i = 0; i < 1000; i++) expect(rng.next()).toBeGreaterThanOrEqual(0);
  });
});

describe('planVault', () => {
  test('is deterministic for a seed', () => {
    expect(plan()).toEqual(plan());
    expect(plan({ ...options, seed: 8 })).not.toEqual(plan());
  });

  test('logs do not depend on the number of pages', () => {
    const logs = (files: GeneratedFile[]): GeneratedFile[] => files.filter((f) => f.rel.startsWith('logs/'));
    expect(logs(plan({ ...options, pages: 0 }))).toEqual(logs(plan()));
  });

  test('writes logs the parser reads back whole, with the ids the writer would give', () => {
    const logs = plan().filter((f) => f.rel.startsWith('logs/'));
    expect(logs.map((f) => f.rel)).toEqual(['logs/2024-01-01.md', 'logs/2024-01-02.md', 'logs/2024-01-03.md']);
    for (const file of logs) {
      const parsed = parseLog(file.content, file.rel.slice(5, 15));
      expect(parsed.skipped).toEqual([]);
      expect(parsed.facts).toHaveLength(40);
      for (const fact of parsed.facts) {
        expect(fact.explicitId).toBe(true);
        expect(fact.id).toMatch(FACT_ID_RE);
      }
      // Without the ^ids, the parser derives the same ids: the generator computed them as the writer does.
      const stripped = parseLog(file.content.replace(/ \^f-[0-9a-z]{10}$/gm, ''), file.rel.slice(5, 15));
      expect(stripped.facts.map((f) => f.id)).toEqual(parsed.facts.map((f) => f.id));
    }
  });

  test('texts vary', () => {
    const texts = plan()
      .filter((f) => f.rel.startsWith('logs/'))
      .flatMap((f) => parseLog(f.content, f.rel.slice(5, 15)).facts.map((x) => x.text));
    expect(new Set(texts).size).toBeGreaterThan(texts.length * 0.9);
  });

  test('pages have frontmatter and headings, cite real facts and link to each other', () => {
    const files = plan();
    const ids = new Set<string>();
    for (const f of files.filter((x) => x.rel.startsWith('logs/'))) {
      for (const fact of parseLog(f.content, f.rel.slice(5, 15)).facts) ids.add(`${fact.date}#^${fact.id}`);
    }
    const pages = files.filter((f) => !f.rel.startsWith('logs/'));
    expect(pages).toHaveLength(8);
    const names = new Set(pages.map((p) => path.posix.basename(p.rel, '.md')));
    expect(names.size).toBe(8);
    for (const page of pages) {
      expect(page.rel).toMatch(/^[1-4]_[A-Za-z]+\/[^/]+\.md$/);
      expect(page.content).toMatch(/^---\ntitle: .+\ntype: \w+\ntags: \[.+\]\nstatus: \w+\n---\n# /);
      expect(page.content).toMatch(/^## /m);
      const citations = [...page.content.matchAll(/\[\[(\d{4}-\d{2}-\d{2}#\^f-[0-9a-z]{10})\]\]/g)].map((m) => m[1]!);
      expect(citations.length).toBeGreaterThan(0);
      for (const c of citations) expect(ids.has(c)).toBe(true);
      const links = [...page.content.matchAll(/\[\[([^\]#|]+)\]\]/g)].map((m) => m[1]!);
      expect(links.length).toBeGreaterThan(0);
      for (const link of links) expect(names.has(link)).toBe(true);
    }
  });

  test('rejects nonsense sizes', () => {
    expect(() => plan({ ...options, days: -1 })).toThrow(RangeError);
    expect(() => plan({ ...options, factsPerDay: 1.5 })).toThrow(RangeError);
  });

  test('queries are deterministic', () => {
    expect(benchQueries(1, 30)).toEqual(benchQueries(1, 30));
    expect(benchQueries(1, 30)).not.toEqual(benchQueries(2, 30));
  });
});

describe('generateVault', () => {
  const tempDir = useTempDir();

  test('writes the planned files into a new vault', async () => {
    const root = path.join(await tempDir(), 'vault');
    const small = { days: 2, factsPerDay: 5, pages: 2, seed: 1 };
    const result = await generateVault(root, small);
    expect(result).toMatchObject({ dates: ['2024-01-01', '2024-01-02'], facts: 10, pages: 2 });
    for (const file of planVault(small)) expect(await readFile(path.join(root, file.rel), 'utf8')).toBe(file.content);
    expect(await readdir(path.join(root, '.vaultkeeper'))).toContain('config.yaml');
  });
});
