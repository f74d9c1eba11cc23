/**
 * commitPaths (src/git/audit.ts) of many paths, staged by `git update-index` (a dream run's 2,200 pages: `git add`
 * matched every file of the index against every path): the same commit `git add --all -- paths` makes, a person's
 * other edits left unstaged, and an ignored path still refused as git add refuses it.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/core/config.js';
import { withWriteLock } from '../../src/core/lock.js';
import { commitPaths } from '../../src/git/audit.js';

describe('commitPaths with many paths', () => {
  it('adds, updates and removes exactly the paths given, passes over one that never was, and refuses an ignored one', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'vk-commit-many-'));
    try {
      const git = (...args: string[]): string => execFileSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@localhost', '-c', 'core.quotepath=false', ...args], { encoding: 'utf8' });
      git('init', '-q');
      const config = parseConfigText('', 'config.yaml');
      await mkdir(path.join(root, '2_Areas'), { recursive: true });
      const old = Array.from({ length: 80 }, (_, i) => `2_Areas/Old ${i}.md`);
      for (const rel of old) await writeFile(path.join(root, rel), `${rel}\n`);
      await writeFile(path.join(root, '.gitignore'), 'secret*.md\n');
      await writeFile(path.join(root, 'person.md'), 'mine\n');
      git('add', '--all');
      git('commit', '-qm', 'start');

      // The run: 40 pages updated, 10 removed, 30 new (one with brackets in its name); a person edits person.md meanwhile.
      for (const rel of old.slice(0, 40)) await writeFile(path.join(root, rel), `${rel} updated\n`);
      for (const rel of old.slice(40, 50)) await rm(path.join(root, rel));
      const made = Array.from({ length: 30 }, (_, i) => `2_Areas/New [${i}] — ${i}.md`);
      for (const rel of made) await writeFile(path.join(root, rel), `${rel}\n`);
      await writeFile(path.join(root, 'person.md'), 'mine, edited\n');
      const paths = [...old.slice(0, 50), ...made, '2_Areas/Never.md'];
      // git's own trace of the commands run: the paths went to update-index, not to git add.
      const trace = path.join(root, '..', `${path.basename(root)}.trace`);
      process.env.GIT_TRACE = trace;
      const sha = await withWriteLock(root, (lock) => commitPaths(lock, config, { op: 'dream', subject: 'dream: many', paths })).finally(() => delete process.env.GIT_TRACE);
      const traced = await readFile(trace, 'utf8');
      await rm(trace, { force: true });
      expect(traced).toContain('update-index');
      expect(traced).not.toMatch(/git(?: -c \S+)* add/);
      expect(sha).toMatch(/^[0-9a-f]{40}$/);
      const changed = git('show', '--name-status', '--format=', 'HEAD').trim().split('\n').sort();
      expect(changed).toEqual([...old.slice(0, 40).map((p) => `M\t${p}`), ...old.slice(40, 50).map((p) => `D\t${p}`), ...made.map((p) => `A\t${p}`)].sort());
      expect(git('show', `HEAD:${made[3]!}`)).toBe(`${made[3]!}\n`);
      // The person's edit is neither committed nor staged.
      expect(git('status', '--porcelain', '--', 'person.md')).toBe(' M person.md\n');

      // An ignored path among many: git add's refusal, as before.
      const more = Array.from({ length: 70 }, (_, i) => `2_Areas/More ${i}.md`);
      for (const rel of more) await writeFile(path.join(root, rel), `${rel}\n`);
      await writeFile(path.join(root, 'secret.md'), 'ignored\n');
      await expect(withWriteLock(root, (lock) => commitPaths(lock, config, { op: 'dream', subject: 'dream: ignored', paths: [...more, 'secret.md'] }))).rejects.toThrow(/ignored/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
