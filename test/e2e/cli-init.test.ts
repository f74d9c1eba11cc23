/** `vaultkeeper init` (DESIGN §2): the template, a git repository with one commit, and what it refuses. */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { expectOneLineError, git, gitStatus, listFiles, snapshot } from '../helpers/vault.js';

const tempDir = useTempDir();
const TEMPLATE = fileURLToPath(new URL('../../vault-template/', import.meta.url));

/** The template's files as they land in a vault (npm drops .gitignore, so the template ships `gitignore`). */
async function templateFiles(): Promise<string[]> {
  return (await listFiles(TEMPLATE)).map((rel) => (rel === 'gitignore' ? '.gitignore' : rel)).sort();
}

describe('vaultkeeper init', () => {
  it('copies every template file, byte for byte, and makes exactly one commit holding them all', async () => {
    const root = path.join(await tempDir(), 'vault');
    const result = await runJson<{ root: string; commit: string }>(['init', root]);
    expect(result.root).toBe(root);

    const expected = await templateFiles();
    expect(expected).toEqual(expect.arrayContaining([
      'schema.md', 'index.md', 'log.md', 'MEMORY.md', '.gitignore', '.vaultkeeper/config.yaml', '.vaultkeeper/tombstones.jsonl',
      '0_Inbox/.gitkeep', '1_Projects/.gitkeep', '2_Areas/.gitkeep', '3_Personal/.gitkeep', '4_Resources/.gitkeep', '5_Archives/.gitkeep',
      'logs/.gitkeep', '.obsidian/app.json', '.obsidian/daily-notes.json',
    ]));
    expect(await listFiles(root)).toEqual(expected);
    for (const rel of expected) {
      const source = path.join(TEMPLATE, rel === '.gitignore' ? 'gitignore' : rel);
      expect((await readFile(path.join(root, rel))).equals(await readFile(source)), rel).toBe(true);
    }

    expect((await git(root, ['rev-list', '--count', 'HEAD'])).trim()).toBe('1');
    expect((await git(root, ['rev-parse', 'HEAD'])).trim()).toBe(result.commit);
    expect((await git(root, ['ls-files'])).split('\n').filter(Boolean).sort()).toEqual(expected);
    expect(await gitStatus(root)).toEqual([]);
    const message = await git(root, ['log', '-1', '--format=%B']);
    expect(message.split('\n')[0]).toMatch(/^init: /);
    expect(message).toMatch(/^Vaultkeeper-Op: init$/m);
  });

  it('creates the vault in the working folder when no path is given', async () => {
    const dir = await tempDir();
    const result = await runCli(['init'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(dir);
    expect(await listFiles(dir)).toEqual(await templateFiles());
  });

  it('makes a vault the other commands find, and doctor finds healthy', async () => {
    const root = path.join(await tempDir(), 'new', 'nested', 'vault');
    expect((await runCli(['init', root])).code).toBe(0);
    expect(await runJson(['doctor'], { cwd: root })).toEqual({ ok: true, problems: [] });
  });

  it('refuses an existing vault and changes nothing', async () => {
    const root = path.join(await tempDir(), 'vault');
    expect((await runCli(['init', root])).code).toBe(0);
    await writeFile(path.join(root, 'schema.md'), 'my own conventions\n');
    const before = await snapshot(root, { includeGit: true });
    expectOneLineError(await runCli(['init', root]), 1, /already a vaultkeeper vault.*nothing was changed/);
    expect(await snapshot(root, { includeGit: true })).toEqual(before);
  });

  it('refuses a folder that is not empty and changes nothing', async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, 'notes'));
    await writeFile(path.join(dir, 'notes', 'todo.md'), '- buy coffee\n');
    await writeFile(path.join(dir, 'schema.md'), 'not mine to overwrite\n');
    const before = await snapshot(dir, { includeGit: true });
    expectOneLineError(await runCli(['init', dir]), 1, /not empty.*never writes over existing files/);
    expect(await snapshot(dir, { includeGit: true })).toEqual(before);
    expect(await listFiles(dir, { includeGit: true })).toEqual(['notes/todo.md', 'schema.md']);
  });

  it('refuses a folder holding only a git repository', async () => {
    const dir = await tempDir();
    await git(dir, ['init', '-q']);
    const before = await snapshot(dir, { includeGit: true });
    expectOneLineError(await runCli(['init', dir]), 1, /not empty/);
    expect(await snapshot(dir, { includeGit: true })).toEqual(before);
  });

  it('refuses a path that is a file', async () => {
    const file = path.join(await tempDir(), 'vault.md');
    await writeFile(file, 'a file\n');
    expectOneLineError(await runCli(['init', file]), 1, /is a file, not a folder/);
    expect(await readFile(file, 'utf8')).toBe('a file\n');
  });
});
