/**
 * The git audit (DESIGN §9): every change the program makes is a commit that says what, marked with the
 * `Vaultkeeper-Op:` trailer; a person's own commits and uncommitted edits are left as they were.
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { git, gitStatus, initVault, noGitIdentityEnv } from '../helpers/vault.js';

const tempDir = useTempDir();

interface Commit {
  sha: string;
  author: string;
  committer: string;
  subject: string;
  op: string;
  files: string[];
}

/** Commits newest first, with the Vaultkeeper-Op trailer as git itself parses it. */
async function commits(root: string, env?: Record<string, string | undefined>): Promise<Commit[]> {
  const out = await git(root, ['log', '--format=%x1e%H%x1f%an <%ae>%x1f%cn <%ce>%x1f%s%x1f%(trailers:key=Vaultkeeper-Op,valueonly,separator=%x2c)%x1f', '--name-only'], env);
  return out
    .split('\x1e')
    .filter((r) => r.trim() !== '')
    .map((record) => {
      const [sha = '', author = '', committer = '', subject = '', op = '', files = ''] = record.split('\x1f');
      return { sha, author, committer, subject, op: op.trim(), files: files.split('\n').filter(Boolean) };
    });
}

describe('every program change is a commit', () => {
  it('with the op trailer and a subject saying what, touching only what the op changed', async () => {
    const root = await initVault(await tempDir());
    const a = await runJson<{ facts: { id: string }[] }>(['remember', 'Likes green tea', '--date', '2026-06-09'], { cwd: root });
    await runJson(['remember', '--stdin'], { cwd: root, input: '{"text": "a", "date": "2026-06-09"}\n{"text": "b", "date": "2026-06-10"}\n' });
    await runJson(['forget', a.facts[0]!.id, '--reason', 'changed my mind'], { cwd: root });
    await runJson(['forget', '--match', 'b'], { cwd: root });

    const log = await commits(root);
    expect(log.map((c) => [c.op, c.subject])).toEqual([
      ['forget', 'forget: 1 fact (text matching "b")'],
      ['forget', `forget: 1 fact (id ${a.facts[0]!.id})`],
      ['remember', 'remember: 2 facts in 2 days (2026-06-09..2026-06-10)'],
      ['remember', 'remember: 1 fact in logs/2026-06-09.md'],
      ['init', 'init: new vaultkeeper vault'],
    ]);
    expect(log.slice(0, 4).map((c) => c.files)).toEqual([
      ['.vaultkeeper/tombstones.jsonl'],
      ['.vaultkeeper/tombstones.jsonl'],
      ['logs/2026-06-09.md', 'logs/2026-06-10.md'],
      ['logs/2026-06-09.md'],
    ]);
    // The body says why and what: the facts themselves, the reason.
    expect(await git(root, ['log', '-1', '--format=%b', log[1]!.sha])).toContain('Reason: changed my mind');
    expect(await git(root, ['log', '-1', '--format=%b', log[3]!.sha])).toContain(`- [fact] Likes green tea ^${a.facts[0]!.id}`);
    expect(await gitStatus(root)).toEqual([]);
  });

  it('leaves a person\'s own commits, staged and unstaged edits in other files as they were', async () => {
    const root = await initVault(await tempDir());
    const person = ['-c', 'user.name=Ana Person', '-c', 'user.email=ana@example.com'];
    await writeFile(path.join(root, '2_Areas', 'coffee.md'), '# Coffee\n');
    await git(root, ['add', '2_Areas/coffee.md']);
    await git(root, [...person, 'commit', '-q', '-m', 'My coffee page']);
    const personCommit = (await git(root, ['rev-parse', 'HEAD'])).trim();

    await appendFile(path.join(root, 'schema.md'), '\nA rule of my own, not staged.\n');
    await appendFile(path.join(root, 'index.md'), '\n- staged, not committed\n');
    await git(root, ['add', 'index.md']);
    await appendFile(path.join(root, 'index.md'), '- and an unstaged line on top\n');
    await mkdir(path.join(root, 'Journal'));
    await writeFile(path.join(root, 'Journal', 'today.md'), 'untracked\n');
    const statusBefore = await gitStatus(root);
    expect(statusBefore).toEqual(['MM index.md', ' M schema.md', '?? Journal/today.md']);
    const stagedBefore = await git(root, ['diff', '--cached']);
    const unstagedBefore = await git(root, ['diff']);

    await runJson(['remember', 'Likes green tea', '--date', '2026-06-09'], { cwd: root });

    const [latest] = await commits(root);
    expect(latest).toMatchObject({ op: 'remember', files: ['logs/2026-06-09.md'] });
    expect((await git(root, ['rev-parse', 'HEAD~1'])).trim()).toBe(personCommit);
    expect(await gitStatus(root)).toEqual(statusBefore);
    expect(await git(root, ['diff', '--cached'])).toBe(stagedBefore);
    expect(await git(root, ['diff'])).toBe(unstagedBefore);
    expect(await readFile(path.join(root, 'Journal', 'today.md'), 'utf8')).toBe('untracked\n');
  });

  it('a remember runs its git processes (leftovers, identity and hooks, add, then a commit from the index) and returns the commit it made', async () => {
    const root = await initVault(await tempDir());
    await runJson(['remember', 'First fact of the day', '--date', '2026-06-09'], { cwd: root });
    const trace = path.join(await tempDir(), 'trace2.json');
    const result = await runJson<{ commit: string }>(['remember', 'Second fact of the day', '--date', '2026-06-09'], { cwd: root, env: { GIT_TRACE2_EVENT: trace } });
    // git's own trace lists every git process it starts; nested ones (auto maintenance) are left out.
    const started = (await readFile(trace, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; argv?: string[]; sid: string })
      .filter((event) => event.event === 'start' && !event.sid.includes('/'))
      .map((event) => event.argv!.filter((arg, i, all) => arg !== '-c' && all[i - 1] !== '-c')[1]);
    // Nothing else staged: the commit is made from the index's own trees (src/git/tree-commit.ts), whose cost does not
    // grow with the number of logs, where `git commit -- <paths>` rebuilt and re-checked every tree (issue 31).
    // config runs beside add, diff-tree beside commit-tree: their starts may come in either order.
    expect(started[0]).toBe('--no-optional-locks');
    expect(started.slice(1, 3).sort()).toEqual(['add', 'config']);
    expect(started[3]).toBe('write-tree');
    expect(started.slice(4, 6).sort()).toEqual(['commit-tree', 'diff-tree']);
    expect(started.slice(6)).toEqual(['update-ref']);
    expect(result.commit).toBe((await git(root, ['rev-parse', 'HEAD'])).trim());
    const [latest] = await commits(root);
    expect(latest).toMatchObject({ op: 'remember', subject: 'remember: 1 fact in logs/2026-06-09.md', files: ['logs/2026-06-09.md'] });
  });
});

describe('who the program commits as', () => {
  it('"vaultkeeper" when git has no user.name or user.email anywhere', async () => {
    const home = await tempDir();
    const env = noGitIdentityEnv(home);
    // Make sure this environment really has no identity.
    await expect(git(home, ['config', '--get', 'user.name'], env)).rejects.toThrow();
    const dir = await tempDir();
    const init = await runCli(['init', path.join(dir, 'vault')], { env });
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    const root = path.join(dir, 'vault');
    await runJson(['remember', 'Works without a git identity', '--date', '2026-06-09'], { cwd: root, env });
    const log = await commits(root, env);
    expect(log).toHaveLength(2);
    for (const c of log) {
      expect(c.author).toBe('vaultkeeper <vaultkeeper@localhost>');
      expect(c.committer).toBe('vaultkeeper <vaultkeeper@localhost>');
    }
    // No identity was written into the vault's own git config either.
    expect(await readFile(path.join(root, '.git', 'config'), 'utf8')).not.toMatch(/\[user\]/);
  });

  it('git\'s own identity when it has one', async () => {
    const home = await tempDir();
    await writeFile(path.join(home, '.gitconfig'), '[user]\n\tname = Ana From Gitconfig\n\temail = ana@gitconfig.example\n');
    const env = { ...noGitIdentityEnv(home) };
    const root = await initVault(await tempDir(), { env });
    await runJson(['remember', 'x', '--date', '2026-06-09'], { cwd: root, env });
    expect((await commits(root, env)).map((c) => c.author)).toEqual(['Ana From Gitconfig <ana@gitconfig.example>', 'Ana From Gitconfig <ana@gitconfig.example>']);
  });

  it('git.author_name and git.author_email from the config, over git\'s identity', async () => {
    const home = await tempDir();
    await writeFile(path.join(home, '.gitconfig'), '[user]\n\tname = Ana From Gitconfig\n\temail = ana@gitconfig.example\n');
    const env = noGitIdentityEnv(home);
    const root = await initVault(await tempDir(), { env });
    const configFile = path.join(root, '.vaultkeeper/config.yaml');
    const config = await readFile(configFile, 'utf8');
    await writeFile(configFile, config.replace('# git:\n#   author_name: vaultkeeper\n#   author_email: vaultkeeper@localhost', 'git:\n  author_name: Memory Bot\n  author_email: bot@memory.example'));
    expect(await readFile(configFile, 'utf8')).toContain('author_name: Memory Bot');
    await git(root, ['commit', '-q', '-am', 'name the bot'], env);

    await runJson(['remember', 'Committed as the bot', '--date', '2026-06-09'], { cwd: root, env });
    const [latest, byPerson] = await commits(root, env);
    expect(latest).toMatchObject({ op: 'remember', author: 'Memory Bot <bot@memory.example>', committer: 'Memory Bot <bot@memory.example>' });
    expect(byPerson!.author).toBe('Ana From Gitconfig <ana@gitconfig.example>');
  });
});
