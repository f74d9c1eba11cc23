/**
 * commitPaths' commit from the index's own trees (src/git/tree-commit.ts, issue 31): used only when nothing but
 * the requested paths is staged, the same commit `git commit -- <paths>` made, and every other case left to it.
 */
import { execFileSync } from 'node:child_process';
import { appendFile, chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/core/config.js';
import { withWriteLock } from '../../src/core/lock.js';
import { commitPaths } from '../../src/git/audit.js';
import { gitRunner, type GitRunner } from '../../src/git/run.js';
import { cleanupMessage, commitStagedTree } from '../../src/git/tree-commit.js';

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

const config = parseConfigText('', 'config.yaml');

/** A repository with one commit of a few logs and a page, and a git bound to it. */
async function repo(): Promise<{ root: string; git: (...args: string[]) => string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'vk-tree-commit-'));
  roots.push(root);
  const git = (...args: string[]): string => execFileSync('git', ['-C', root, '-c', 'user.name=Ana Person', '-c', 'user.email=ana@example.com', ...args], { encoding: 'utf8' });
  git('init', '-q', '--initial-branch=main');
  await mkdir(path.join(root, 'logs'));
  for (const day of ['01', '02', '03']) await writeFile(path.join(root, 'logs', `2026-06-${day}.md`), `# 2026-06-${day}\n\n- [fact] day ${day}\n`);
  await writeFile(path.join(root, 'index.md'), '# Index\n');
  git('add', '--all');
  git('commit', '-qm', 'start');
  return { root, git };
}

const commit = (root: string, paths: string[], subject = 'remember: 1 fact in logs/2026-06-03.md'): Promise<string | null> =>
  withWriteLock(root, (lock) => commitPaths(lock, config, { op: 'remember', subject, body: 'Appended by a test.', paths }));

describe('a commit from the index (tree-commit.ts)', () => {
  it('commits only the staged paths, as git commit does: tree, message, reflog, a clean index, the returned sha', async () => {
    const { root, git } = await repo();
    const before = git('rev-parse', 'HEAD').trim();
    await appendFile(path.join(root, 'logs', '2026-06-03.md'), '- [fact] a new one\n');
    await writeFile(path.join(root, 'logs', '2026-06-04.md'), '# 2026-06-04\n');
    const g = gitRunner(root, ['user.name=vaultkeeper', 'user.email=vk@localhost']);
    git('add', '--all', '--', 'logs/2026-06-03.md', 'logs/2026-06-04.md');
    const result = await commitStagedTree(g, root, ['logs/2026-06-03.md', 'logs/2026-06-04.md'], 'remember: two logs  \n\n\n body line\t\n\nVaultkeeper-Op: remember\n\n', null);
    expect(result.kind).toBe('committed');
    const sha = result.kind === 'committed' ? result.sha : '';
    expect(git('rev-parse', 'HEAD').trim()).toBe(sha);
    expect(git('rev-parse', 'HEAD~1').trim()).toBe(before);
    expect(git('symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
    expect(git('diff-tree', '-r', '--name-status', '--no-commit-id', 'HEAD').trim().split('\n')).toEqual(['M\tlogs/2026-06-03.md', 'A\tlogs/2026-06-04.md']);
    expect(git('log', '-1', '--format=%B')).toBe('remember: two logs\n\n body line\n\nVaultkeeper-Op: remember\n\n');
    expect(git('log', '-1', '--format=%an <%ae> | %cn <%ce>').trim()).toBe('vaultkeeper <vk@localhost> | vaultkeeper <vk@localhost>');
    // The reflog of HEAD and of the branch, as `git commit` writes them.
    expect(git('reflog', '-1', '--format=%gs', 'HEAD').trim()).toBe('commit: remember: two logs');
    expect(git('reflog', '-1', '--format=%gs', 'main').trim()).toBe('commit: remember: two logs');
    expect(git('status', '--porcelain').trim()).toBe('');
    expect(git('fsck', '--no-progress').trim()).toBe('');
  });

  it('through commitPaths: the sha returned is HEAD, the commit holds the requested path, null when nothing changed', async () => {
    const { root, git } = await repo();
    await appendFile(path.join(root, 'logs', '2026-06-03.md'), '- [fact] through commitPaths\n');
    const sha = await commit(root, ['logs/2026-06-03.md']);
    expect(sha).toBe(git('rev-parse', 'HEAD').trim());
    expect(git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('logs/2026-06-03.md');
    expect(git('log', '-1', '--format=%B')).toBe('remember: 1 fact in logs/2026-06-03.md\n\nAppended by a test.\n\nVaultkeeper-Op: remember\n\n');
    expect(await commit(root, ['logs/2026-06-03.md'])).toBeNull();
    expect(git('rev-parse', 'HEAD').trim()).toBe(sha);
  });

  it("a person's staged edit to another file falls back to git commit -- <paths>: never committed, still staged, unstaged edits kept", async () => {
    const { root, git } = await repo();
    await appendFile(path.join(root, 'index.md'), '- staged by a person\n');
    git('add', 'index.md');
    await appendFile(path.join(root, 'index.md'), '- and not staged\n');
    await appendFile(path.join(root, 'logs', '2026-06-02.md'), '- a line typed by hand, not staged\n');
    const staged = git('diff', '--cached');
    const unstaged = git('diff');
    await appendFile(path.join(root, 'logs', '2026-06-03.md'), '- [fact] ours\n');
    const g = gitRunner(root, ['user.name=vaultkeeper', 'user.email=vk@localhost']);
    git('add', '--all', '--', 'logs/2026-06-03.md');
    const head = git('rev-parse', 'HEAD').trim();
    expect(await commitStagedTree(g, root, ['logs/2026-06-03.md'], 'x', null)).toEqual({ kind: 'fallback', why: 'the index holds other staged changes' });
    expect(git('rev-parse', 'HEAD').trim()).toBe(head);

    const sha = await commit(root, ['logs/2026-06-03.md']);
    expect(sha).toBe(git('rev-parse', 'HEAD').trim());
    expect(git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('logs/2026-06-03.md');
    expect(git('diff', '--cached')).toBe(staged);
    expect(git('diff')).toBe(unstaged);
    expect(git('status', '--porcelain').trim().split('\n')).toEqual(['MM index.md', ' M logs/2026-06-02.md']);
  });

  it("a person's staged edit to the same file is committed with ours, as git commit -- <path> does", async () => {
    const { root, git } = await repo();
    await appendFile(path.join(root, 'logs', '2026-06-03.md'), '- typed and staged by a person\n');
    git('add', 'logs/2026-06-03.md');
    await appendFile(path.join(root, 'logs', '2026-06-03.md'), '- [fact] ours\n');
    await commit(root, ['logs/2026-06-03.md']);
    expect(git('show', 'HEAD:logs/2026-06-03.md')).toBe(await readFile(path.join(root, 'logs', '2026-06-03.md'), 'utf8'));
    expect(git('status', '--porcelain').trim()).toBe('');
  });

  it('leaves the commit to git where git would do more: a commit hook, core.hooksPath, a merge under way, no commit yet', async () => {
    const { root, git } = await repo();
    const g = gitRunner(root, ['user.name=vaultkeeper', 'user.email=vk@localhost']);
    await appendFile(path.join(root, 'logs', '2026-06-03.md'), '- [fact] ours\n');
    git('add', '--all', '--', 'logs/2026-06-03.md');
    const hook = path.join(root, '.git', 'hooks', 'post-commit');
    await writeFile(hook, `#!/bin/sh\necho ran >> "${path.join(root, '.git', 'hook-ran')}"\n`);
    await chmod(hook, 0o755);
    expect((await commitStagedTree(g, root, ['logs/2026-06-03.md'], 'x', null)).kind).toBe('fallback');
    expect((await commitStagedTree(g, root, ['logs/2026-06-03.md'], 'x', '/elsewhere')).kind).toBe('fallback');
    // commitPaths then lets git commit, which runs the person's hook as before.
    await commit(root, ['logs/2026-06-03.md']);
    expect(await readFile(path.join(root, '.git', 'hook-ran'), 'utf8')).toBe('ran\n');
    await rm(hook);

    await writeFile(path.join(root, '.git', 'MERGE_HEAD'), `${git('rev-parse', 'HEAD').trim()}\n`);
    await appendFile(path.join(root, 'logs', '2026-06-03.md'), '- [fact] during a merge\n');
    git('add', '--all', '--', 'logs/2026-06-03.md');
    expect((await commitStagedTree(g, root, ['logs/2026-06-03.md'], 'x', null)).kind).toBe('fallback');
    await rm(path.join(root, '.git', 'MERGE_HEAD'));

    const fresh = await mkdtemp(path.join(tmpdir(), 'vk-tree-commit-'));
    roots.push(fresh);
    execFileSync('git', ['-C', fresh, 'init', '-q']);
    await writeFile(path.join(fresh, 'a.md'), 'a\n');
    execFileSync('git', ['-C', fresh, 'add', 'a.md']);
    expect(await commitStagedTree(gitRunner(fresh), fresh, ['a.md'], 'x', null)).toEqual({ kind: 'fallback', why: 'HEAD names no commit yet' });
    expect(await commit(fresh, ['a.md'])).toMatch(/^[0-9a-f]{40}$/);
  });

  it('a commit a person makes while ours is being made is kept: the ref update is refused and the caller falls back', async () => {
    const { root, git } = await repo();
    const real = gitRunner(root, ['user.name=vaultkeeper', 'user.email=vk@localhost']);
    // The real git, with a person's commit landing just before the ref update.
    const racing: GitRunner = {
      raw: async (args, options) => {
        if (args.includes('update-ref')) {
          await writeFile(path.join(root, 'mine.md'), 'a person\'s page\n');
          git('add', 'mine.md');
          git('commit', '-qm', 'My page', '--', 'mine.md');
        }
        return real.raw(args, options);
      },
    };
    await appendFile(path.join(root, 'logs', '2026-06-03.md'), '- [fact] ours\n');
    git('add', '--all', '--', 'logs/2026-06-03.md');
    expect(await commitStagedTree(racing, root, ['logs/2026-06-03.md'], 'x', null)).toEqual({ kind: 'fallback', why: 'HEAD moved' });
    expect(git('log', '-1', '--format=%s').trim()).toBe('My page');
    await commit(root, ['logs/2026-06-03.md']);
    expect(git('log', '-2', '--format=%s').trim().split('\n')).toEqual(['remember: 1 fact in logs/2026-06-03.md', 'My page']);
    expect(git('status', '--porcelain').trim()).toBe('');
  });

  it("packs loose objects as git commit's auto maintenance does, once git's own estimate passes its limit", async () => {
    const { root, git } = await repo();
    git('config', 'gc.autoDetach', 'false');
    const packs = async (): Promise<string[]> => (await readdir(path.join(root, '.git', 'objects', 'pack')).catch(() => [])).filter((n) => n.endsWith('.pack'));
    await appendFile(path.join(root, 'logs', '2026-06-03.md'), '- [fact] one\n');
    await commit(root, ['logs/2026-06-03.md']);
    expect(await packs()).toEqual([]);
    // gc --auto estimates the loose objects from objects/17 alone: 28 names there (> 6700 / 256) make it pack.
    await mkdir(path.join(root, '.git', 'objects', '17'), { recursive: true });
    for (let i = 0; i < 28; i++) await writeFile(path.join(root, '.git', 'objects', '17', i.toString(16).padStart(38, '0')), '');
    await appendFile(path.join(root, 'logs', '2026-06-03.md'), '- [fact] two\n');
    await commit(root, ['logs/2026-06-03.md']);
    expect((await packs()).length).toBe(1);
    expect(git('status', '--porcelain').trim()).toBe('');
  });

  it('cleans a message up as git commit -m does (git stripspace)', async () => {
    const { root } = await repo();
    const samples = ['a\vb \v\n', 'subject', 'subject\n', '\n\n  subject  \n\n\n\nbody\t \n  indented\n\n\n', 'a\r\n\r\nb\f\n', '', '   \n\n'];
    for (const text of samples) {
      expect(cleanupMessage(text), JSON.stringify(text)).toBe(execFileSync('git', ['-C', root, 'stripspace'], { input: text, encoding: 'utf8' }));
    }
  });
});
