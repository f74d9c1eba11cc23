/**
 * `vaultkeeper init --adopt PATH` (DESIGN §10) on an Obsidian vault with notes, subfolders, settings and a
 * git history: every note stays byte-identical, the history stays and only vaultkeeper's files are
 * committed, .gitignore is merged, .obsidian/ is left alone without consent, the notes are searchable,
 * and a real clash is refused with nothing changed.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { commitSubjects, git, gitStatus, snapshot } from '../helpers/vault.js';

const tempDir = useTempDir();

const NOTES = {
  'Home.md': '---\ntags: [home]\n---\n# Home\n\nLinks: [[Porto trip]]\r\nno final newline',
  'Projects/Porto trip.md': '# Porto trip\n\nTrain to Porto on 12 May; stay near Ribeira.\n',
  'Projects/deep/Budget.md': '# Budget\n\n- hotel: 300 EUR\n',
  'Daily/2026-05-01.md': 'Walked by the river.\n',
  'attachments/map.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]),
  '.obsidian/app.json': '{"theme":"moonstone"}\n',
  '.obsidian/daily-notes.json': '{"folder":"Daily"}\n',
  '.gitignore': '.trash/\n*.tmp',
  'schema.md': '# My own conventions\n',
};

async function obsidianVault(withGit: boolean): Promise<string> {
  const root = path.join(await tempDir(), 'My Vault');
  await writeTree(root, NOTES);
  if (withGit) {
    await git(root, ['init', '-q', '--initial-branch=main']);
    await git(root, ['add', '-A']);
    await git(root, ['-c', 'user.name=Person', '-c', 'user.email=person@example.com', 'commit', '-q', '-m', 'my notes']);
    await writeFile(path.join(root, 'Projects', 'Porto trip.md'), `${NOTES['Projects/Porto trip.md']}Book the train.\n`); // uncommitted, stays so
  }
  return root;
}

interface AdoptJson {
  root: string;
  added: string[];
  kept: string[];
  createdRepo: boolean;
  snapshot: string | null;
  commit: string;
  index: { rows: number; pages: number };
}

describe('vaultkeeper init --adopt', () => {
  it('adopts a vault with a git history: notes byte-identical, history kept, only its own files committed', async () => {
    const root = await obsidianVault(true);
    const before = await snapshot(root);
    const head = (await git(root, ['rev-parse', 'HEAD'])).trim();

    const result = await runJson<AdoptJson>(['init', '--adopt', root]);
    expect(result.createdRepo).toBe(false);
    expect(result.snapshot).toBeNull();
    expect(result.kept).toEqual(['schema.md']);
    expect(result.added).toEqual(expect.arrayContaining(['.gitignore', '.vaultkeeper/config.yaml', '.vaultkeeper/tombstones.jsonl', 'logs/.gitkeep', 'index.md', 'log.md', 'MEMORY.md']));
    expect(result.added.filter((f) => f.startsWith('.obsidian/'))).toEqual([]);

    const after = await snapshot(root);
    for (const [rel, content] of before) {
      if (rel === '.gitignore') continue;
      expect(after.get(rel), rel).toBe(content);
    }
    // .gitignore keeps every line of its own and gains vaultkeeper's.
    const gitignore = await readFile(path.join(root, '.gitignore'), 'utf8');
    expect(gitignore.startsWith(NOTES['.gitignore'])).toBe(true);
    expect(gitignore).toContain('\n.vaultkeeper/*\n!.vaultkeeper/config.yaml\n');
    expect(gitignore.match(/^\.trash\/$/gm)).toHaveLength(1);

    expect(await commitSubjects(root)).toEqual(['init: vaultkeeper adopts this folder', 'my notes']);
    expect((await git(root, ['rev-parse', 'HEAD~1'])).trim()).toBe(head);
    expect((await git(root, ['show', '--name-only', '--format=', 'HEAD'])).trim().split('\n').sort()).toEqual([...result.added].sort());
    // The person's uncommitted edit is still theirs to commit.
    expect(await gitStatus(root)).toEqual([' M "Projects/Porto trip.md"']);

    // The notes are pages, found by search, with the person's words.
    const found = await runJson<{ results: { kind: string; path: string }[] }>(['search', 'Ribeira', '--vault', root]);
    expect(found.results[0]).toMatchObject({ kind: 'page', path: 'Projects/Porto trip.md' });
    expect(result.index.pages).toBeGreaterThan(0);

    // It is a vault now: remember works and a second adopt is refused.
    await runJson(['remember', 'Visited Porto', '--date', '2026-05-12', '--vault', root]);
    const again = await runCli(['init', '--adopt', root]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already a vaultkeeper vault/);
  });

  it('creates a repository for a folder without one, recording the notes first as a person\'s snapshot', async () => {
    const root = await obsidianVault(false);
    const before = await snapshot(root);
    const result = await runJson<AdoptJson>(['init', '--adopt', root, '--obsidian-settings']);
    expect(result.createdRepo).toBe(true);
    // With consent it adds only the settings files the vault lacks; its own daily-notes.json stays.
    expect(result.kept).toEqual(expect.arrayContaining(['.obsidian/app.json', '.obsidian/daily-notes.json', 'schema.md']));
    const after = await snapshot(root);
    for (const [rel, content] of before) if (rel !== '.gitignore') expect(after.get(rel), rel).toBe(content);

    expect(await commitSubjects(root)).toEqual(['init: vaultkeeper adopts this folder', 'snapshot: the notes as they were when vaultkeeper adopted the folder']);
    expect(await git(root, ['log', '-1', '--format=%B', 'HEAD~1'])).toMatch(/^Vaultkeeper-Op: snapshot$/m);
    const snapshotFiles = (await git(root, ['show', '--name-only', '--format=', 'HEAD~1'])).trim().split('\n').sort();
    expect(snapshotFiles).toEqual(Object.keys(NOTES).filter((f) => f !== '.gitignore').sort());
    expect(await gitStatus(root)).toEqual([]);
  });

  it('refuses a real clash and changes nothing', async () => {
    const root = await obsidianVault(true);
    await writeTree(root, { 'index.md': '# My index\n', 'logs/server.log': 'x\n' });
    const before = await snapshot(root, { includeGit: true });
    const result = await runCli(['init', '--adopt', root]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/cannot adopt .*logs\/ exists and holds files.*index\.md exists, and vaultkeeper regenerates that file; nothing was changed; rename or move/);
    expect(await snapshot(root, { includeGit: true })).toEqual(before);
  });
});
