/** `vaultkeeper remember` through the built CLI: the log lines it writes, its JSON, --stdin batches. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLog } from '../../src/logs/factlog.js';
import { FACT_ID_RE } from '../../src/logs/ids.js';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { commitSubjects, expectOneLineError, git, gitStatus, initVault, snapshot } from '../helpers/vault.js';

const tempDir = useTempDir();

interface RememberJson {
  facts: { id: string; date: string; path: string; line: number; category: string; text: string; tags: string[] }[];
  commit: string | null;
}

async function logLines(root: string, date: string): Promise<string[]> {
  return (await readFile(path.join(root, 'logs', `${date}.md`), 'utf8')).split('\n');
}

describe('remember TEXT', () => {
  it('appends one fact with category, tags, source and date, and prints its id, date, path and line', async () => {
    const root = await initVault(await tempDir());
    const result = await runJson<RememberJson>(
      ['remember', 'Prefers', 'dark roast coffee #coffee', '-c', 'preference', '-t', 'drinks', '--tag', '#morning', '--source', 'phone/ana', '--date', '2026-06-09'],
      { cwd: root },
    );
    expect(result.facts).toHaveLength(1);
    const fact = result.facts[0]!;
    expect(fact).toMatchObject({ date: '2026-06-09', path: 'logs/2026-06-09.md', line: 4, category: 'preference', text: 'Prefers dark roast coffee', tags: ['drinks', 'morning', 'coffee'] });
    expect(Object.keys(fact)).toEqual(expect.arrayContaining(['id', 'date', 'path', 'line']));
    expect(fact.id).toMatch(FACT_ID_RE);

    const lines = await logLines(root, '2026-06-09');
    expect(lines[0]).toBe('# 2026-06-09');
    expect(lines[2]).toMatch(/^## \d{2}:\d{2} · phone\/ana$/);
    expect(lines[fact.line - 1]).toBe(`- [preference] Prefers dark roast coffee #drinks #morning #coffee ^${fact.id}`);
    expect(result.commit).toBe((await git(root, ['rev-parse', 'HEAD'])).trim());
  });

  it('prints the id and where it went, as plain text without --json', async () => {
    const root = await initVault(await tempDir());
    const result = await runCli(['remember', 'Likes green tea', '--date', '2026-06-09'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^f-[0-9a-z]{10}\tlogs\/2026-06-09\.md:4\n$/);
    const id = result.stdout.split('\t')[0]!;
    expect(parseLog(await readFile(path.join(root, 'logs/2026-06-09.md')), '2026-06-09').facts).toMatchObject([{ id, text: 'Likes green tea', category: 'fact', source: 'cli' }]);
  });

  it('each call is one commit, and a second call appends a new batch under the first', async () => {
    const root = await initVault(await tempDir());
    const a = await runJson<RememberJson>(['remember', 'first', '--date', '2026-06-09'], { cwd: root });
    const b = await runJson<RememberJson>(['remember', 'second', '--date', '2026-06-09'], { cwd: root });
    expect(a.facts[0]!.line).toBe(4);
    expect(b.facts[0]!.line).toBe(7);
    const parsed = parseLog(await readFile(path.join(root, 'logs/2026-06-09.md')), '2026-06-09');
    expect(parsed.skipped).toEqual([]);
    expect(parsed.facts.map((f) => [f.id, f.line])).toEqual([[a.facts[0]!.id, 4], [b.facts[0]!.id, 7]]);
    expect(await commitSubjects(root)).toEqual(['remember: 1 fact in logs/2026-06-09.md', 'remember: 1 fact in logs/2026-06-09.md', 'init: new vaultkeeper vault']);
    expect(await gitStatus(root)).toEqual([]);
  });

  it('keeps a multi-line or tab-filled text on one line', async () => {
    const root = await initVault(await tempDir());
    const result = await runJson<RememberJson>(['remember', 'line one\nline two\r\n\tindented', '--date', '2026-06-09'], { cwd: root });
    expect(result.facts[0]!.text).toBe('line one line two indented');
    const parsed = parseLog(await readFile(path.join(root, 'logs/2026-06-09.md')), '2026-06-09');
    expect(parsed.facts.map((f) => f.text)).toEqual(['line one line two indented']);
  });
});

describe('remember --stdin', () => {
  it('appends plain lines and JSON lines across two dates in one commit', async () => {
    const root = await initVault(await tempDir());
    const input = [
      'Likes green tea',
      '',
      '{"text": "Moves to Porto in July", "category": "decision", "tags": ["move"], "date": "2026-06-10"}',
      '  ',
      '{"text": "home city:: Lisbon #location"}',
      'Runs on Sundays #running',
    ].join('\r\n');
    const result = await runJson<RememberJson>(['remember', '--stdin', '--date', '2026-06-09', '-c', 'preference', '-t', 'batch', '--source', 'import'], { cwd: root, input });
    expect(result.facts.map((f) => [f.date, f.category, f.text, f.tags])).toEqual([
      ['2026-06-09', 'preference', 'Likes green tea', ['batch']],
      ['2026-06-09', 'preference', 'home city:: Lisbon', ['batch', 'location']],
      ['2026-06-09', 'preference', 'Runs on Sundays', ['batch', 'running']],
      ['2026-06-10', 'decision', 'Moves to Porto in July', ['batch', 'move']],
    ]);
    for (const fact of result.facts) {
      const parsed = parseLog(await readFile(path.join(root, fact.path)), fact.date);
      expect(parsed.skipped).toEqual([]);
      expect(parsed.facts.find((f) => f.line === fact.line)).toMatchObject({ id: fact.id, text: fact.text, source: 'import' });
    }
    const ids = result.facts.map((f) => f.id);
    expect(new Set(ids).size).toBe(4);

    expect((await git(root, ['rev-list', '--count', 'HEAD'])).trim()).toBe('2');
    expect(await commitSubjects(root)).toContain('remember: 4 facts in 2 days (2026-06-09..2026-06-10)');
    expect((await git(root, ['show', '--name-only', '--format=', 'HEAD'])).split('\n').filter(Boolean).sort()).toEqual(['logs/2026-06-09.md', 'logs/2026-06-10.md']);
    expect(await gitStatus(root)).toEqual([]);
  });

  it.each([
    ['a line that starts with { but is not JSON', '{"text": "broken"', /stdin line 2 .*not valid JSON.*nothing was written/],
    ['a JSON line with an unknown key', '{"text": "x", "when": "today"}', /stdin line 2: .*nothing was written/],
    ['a JSON line without text', '{"category": "fact"}', /stdin line 2: text: .*nothing was written/],
    ['a JSON line with a bad category', '{"text": "x", "category": "mood"}', /fact 2: unknown category 'mood'/],
    ['a JSON line with a bad date', '{"text": "x", "date": "2026-13-01"}', /invalid date '2026-13-01' \(fact 2\)/],
  ])('rejects the whole batch for %s, writing nothing', async (_name, badLine, pattern) => {
    const root = await initVault(await tempDir());
    await runJson(['remember', 'already there', '--date', '2026-06-09'], { cwd: root });
    const before = await snapshot(root, { includeGit: true });
    const input = `Good fact one\n${badLine}\n{"text": "Good fact three", "date": "2026-06-11"}\n`;
    expectOneLineError(await runCli(['remember', '--stdin', '--date', '2026-06-09'], { cwd: root, input }), 2, pattern);
    expect(await snapshot(root, { includeGit: true })).toEqual(before);
  });

  it('refuses empty input', async () => {
    const root = await initVault(await tempDir());
    expectOneLineError(await runCli(['remember', '--stdin'], { cwd: root, input: '\n  \n' }), 2, /--stdin read no facts/);
    expect((await git(root, ['rev-list', '--count', 'HEAD'])).trim()).toBe('1');
  });
});
