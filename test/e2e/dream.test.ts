/** The dream through the CLI and the library: statuses, the commit, dry runs, a person's edits, undo. */
import { execFileSync } from 'node:child_process';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../src/dream/journal.js';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { hashTree } from '../helpers/tree.js';

const tempDir = useTempDir();

const FACTS = [
  { text: 'Prefers dark roast coffee', category: 'preference', tags: ['coffee'], date: '2026-06-01' },
  { text: 'brewing method:: French press', tags: ['coffee'], date: '2026-06-01' },
  { text: 'brewing method:: AeroPress', tags: ['coffee'], date: '2026-06-02' },
  { text: 'Prefers dark roast coffee', category: 'preference', tags: ['coffee'], date: '2026-06-03' },
  { text: 'Plays the cello on Thursdays', category: 'skill', tags: ['music'], date: '2026-06-03' },
];

async function vault(): Promise<string> {
  const root = path.join(await tempDir(), 'vault');
  await runJson(['init', root]);
  await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'index:\n  embedder: none\n');
  execFileSync('git', ['commit', '-qam', 'person: full-text only'], { cwd: root });
  await runJson(['--vault', root, 'remember', '--stdin'], { input: FACTS.map((f) => JSON.stringify(f)).join('\n') });
  return root;
}

const git = (root: string, ...args: string[]): string => execFileSync('git', args, { cwd: root, encoding: 'utf8' });

interface DreamJson {
  status: string;
  run: string;
  reason: string;
  batch: { from: string; to: string };
  watermark: { before: string | null; after: string | null };
  pages: { created: string[]; updated: string[]; archived: unknown[] };
  facts: number;
  uncited: number;
  conflicts: number;
  llm: { calls: number; tokens: number };
  commit: string | null;
  diff?: string;
}

describe('dream', () => {
  it('consolidates pending days into cited pages in one commit, then is gated or a no-op', async () => {
    const root = await vault();
    const result = await runJson<DreamJson>(['--vault', root, 'dream', '--force']);
    expect(result).toMatchObject({ status: 'ok', batch: { from: '2026-06-01', to: '2026-06-03' }, watermark: { before: null, after: '2026-06-03' }, facts: 5, uncited: 0, llm: { calls: 0, tokens: 0 } });
    // a tag with three facts earns a topic page (zoned by its first fact: a preference, so 3_Personal);
    // a lone #music fact joins its category's page rather than making a one-line page
    expect(result.pages.created).toEqual(['2_Areas/Skills.md', '3_Personal/Coffee.md']);
    const coffee = await readFile(path.join(root, '3_Personal/Coffee.md'), 'utf8');
    expect(coffee).toMatch(/## Current\n\n- brewing method:: AeroPress \[\[2026-06-02#\^f-/);
    // History keeps the superseded value without the inline field, so a Dataview query finds only the current one
    expect(coffee).toMatch(/## History\n\n- brewing method: French press \[\[2026-06-01#\^f-[0-9a-z]+\]\] \(until 2026-06-02\)/);
    expect(coffee).toMatch(/^created: 2026-06-01\nupdated: 2026-06-03$/m);
    // a duplicate, cited twice: one statement (the page's lead quotes it, with the same citations)
    expect(coffee.split('\n').filter((l) => l.startsWith('- ') && l.includes('Prefers dark roast coffee'))).toHaveLength(1);
    expect(coffee).toMatch(/Prefers dark roast coffee \[\[2026-06-01#\^f-[0-9a-z]+\]\] \[\[2026-06-03#\^f-[0-9a-z]+\]\]/);
    expect((await readJournal(root)).watermark).toBe('2026-06-03');
    // one commit, with a message that says what and why, and a clean tree
    expect(git(root, 'log', '-1', '--format=%H')).toContain(result.commit!);
    const message = git(root, 'log', '-1', '--format=%B');
    expect(message).toMatch(/^dream: 2026-06-01\.\.2026-06-03 → pages \+2/);
    expect(message).toMatch(/Vaultkeeper-Op: dream\nVaultkeeper-Run: r-/);
    expect(git(root, 'show', '--stat', '--format=', 'HEAD')).not.toMatch(/logs\//);
    expect(git(root, 'status', '--porcelain')).toBe('');
    // search now finds pages
    const found = await runJson<{ results: Array<{ kind: string; path: string; text: string }> }>(['--vault', root, 'search', 'brewing method']);
    // the current value comes first (MEMORY.md's Current list may state it before the page does)
    expect(found.results[0]!.text).toContain('AeroPress');
    expect(found.results.find((r) => r.kind === 'page')).toMatchObject({ path: '3_Personal/Coffee.md' });

    const again = await runCli(['--vault', root, 'dream']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/dream noop/);
    await runJson(['--vault', root, 'remember', 'Learning the viola too', '--date', '2026-06-04']);
    const gated = await runJson<DreamJson>(['--vault', root, 'dream']);
    expect(gated.status).toBe('gated');
    expect(gated.reason).toMatch(/less than 24 h ago|min_facts/);
  });

  it('--dry-run prints the diff and leaves the vault unchanged', async () => {
    const root = await vault();
    await writeTree(root, { '2_Areas/Coffee.md': '# Coffee\n\nMy own notes on coffee.\n' }); // a person's uncommitted page
    const before = await hashTree(root);
    const head = git(root, 'rev-parse', 'HEAD');
    const status = git(root, 'status', '--porcelain');
    const result = await runJson<DreamJson>(['--vault', root, 'dream', '--force', '--dry-run']);
    expect(result.status).toBe('dry-run');
    expect(result.diff).toMatch(/\+- brewing method:: AeroPress/);
    expect(result.diff).toMatch(/My own notes on coffee/); // it started from the person's uncommitted edit
    expect(await hashTree(root)).toEqual(before);
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(root, 'status', '--porcelain')).toBe(status);
    expect(git(root, 'worktree', 'list')).not.toMatch(/worktrees/);
    const text = await runCli(['--vault', root, 'dream', '--force', '--dry-run']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^diff --git/m);
  });

  it("commits a person's edits first and keeps their words", async () => {
    const root = await vault();
    await runJson(['--vault', root, 'dream', '--force']);
    await appendFile(path.join(root, '3_Personal/Coffee.md'), '\nI grind the beans by hand, never the night before.\n');
    await runJson(['--vault', root, 'remember', '--stdin'], {
      input: ['{"text":"brewing method:: V60","tags":["coffee"],"date":"2026-06-05"}', '{"text":"Prefers dark roast coffee","category":"preference","tags":["coffee"],"date":"2026-06-05"}'].join('\n'),
    });
    const result = await runJson<DreamJson>(['--vault', root, 'dream', '--force']);
    expect(result.status).toBe('ok');
    const coffee = await readFile(path.join(root, '3_Personal/Coffee.md'), 'utf8');
    expect(coffee).toContain('I grind the beans by hand, never the night before.');
    expect(coffee).toMatch(/- brewing method:: V60/);
    expect(coffee).toMatch(/AeroPress .*\(until 2026-06-05\)/);
    const subjects = git(root, 'log', '--format=%s', '-4');
    expect(subjects).toMatch(/snapshot: a person's edits before dream run/);
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('undo reverts the newest run and its days become pending again', async () => {
    const root = await vault();
    const first = await runJson<DreamJson>(['--vault', root, 'dream', '--force']);
    await runJson(['--vault', root, 'remember', 'Bought a new cello bow', '-t', 'music', '--date', '2026-06-04']);
    const second = await runJson<DreamJson>(['--vault', root, 'dream', '--force']);
    expect(second.watermark).toEqual({ before: '2026-06-03', after: '2026-06-04' });
    const refused = await runCli(['--vault', root, 'undo', first.run]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/not the newest dream run.*vaultkeeper undo r-/);
    const undone = await runJson<{ run: string; commit: string }>(['--vault', root, 'undo', second.run]);
    expect(undone.run).toBe(second.run);
    expect((await readJournal(root)).watermark).toBe('2026-06-03');
    expect(await readFile(path.join(root, '2_Areas/Skills.md'), 'utf8')).not.toMatch(/cello bow/);
    expect(second.pages.created).toEqual(['2_Areas/General.md']); // the page the undone run made is gone with it
    await expect(readFile(path.join(root, '2_Areas/General.md'), 'utf8')).rejects.toThrow(/ENOENT/);
    const hits = await runJson<{ results: Array<{ kind: string; text: string }> }>(['--vault', root, 'search', 'cello bow']);
    expect(hits.results[0]).toMatchObject({ kind: 'fact', text: 'Bought a new cello bow' }); // a fact again, not lost
    const redo = await runJson<DreamJson>(['--vault', root, 'dream', '--force']);
    expect(redo).toMatchObject({ status: 'ok', batch: { from: '2026-06-04', to: '2026-06-04' } });
    const unknown = await runCli(['--vault', root, 'undo', 'r-19990101-000000']);
    expect(unknown.code).toBe(1);
  });

  it('lists conflicts flagged for review', async () => {
    const root = await vault();
    await runJson(['--vault', root, 'remember', '--stdin'], {
      input: ['{"text":"home city:: Lisbon","date":"2026-06-04"}', '{"text":"home city:: Porto","date":"2026-06-04"}'].join('\n'),
    });
    const result = await runJson<DreamJson>(['--vault', root, 'dream', '--force']);
    expect(result.conflicts).toBe(1);
    const listed = await runJson<{ conflicts: Array<{ subject: string; resolved: boolean }> }>(['--vault', root, 'conflicts']);
    expect(listed.conflicts).toEqual([expect.objectContaining({ subject: 'home city', resolved: false })]);
    const page = await readFile(path.join(root, '0_Inbox/conflicts.md'), 'utf8');
    await writeFile(path.join(root, '0_Inbox/conflicts.md'), page.replace('- [ ]', '- [x]'));
    expect((await runJson<{ conflicts: unknown[] }>(['--vault', root, 'conflicts'])).conflicts).toEqual([]);
  });
});
