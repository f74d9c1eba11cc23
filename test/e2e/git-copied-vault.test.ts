/**
 * A vault copied or restored file by file (`cp -a`, a backup, a sync) keeps its files' contents and mtimes, not their
 * inodes and ctimes, so git's index matches none of them and every `git status` rehashes every file. The program's
 * status never writes the index (`--no-optional-locks`: on a full disk a status that writes it fails), so the first
 * command that looks for a person's edits (forget, dream, sync) refreshes it first.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

/** Tracked files whose stat data in git's index no longer matches the file (plumbing: it refreshes nothing itself). */
const statDirty = (root: string): string[] => execFileSync('git', ['diff-files', '--name-only'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);

describe('a copied vault and git index', () => {
  it('refreshes the stat data of every tracked file with the first command that runs a status', async () => {
    const dir = await tempDir();
    const root = path.join(dir, 'vault');
    await runJson(['init', root]);
    await runJson(['--vault', root, 'remember', 'Plays the cello in the city orchestra']);
    expect(statDirty(root)).toEqual([]);

    const copy = path.join(dir, 'copy');
    execFileSync('cp', ['-a', root, copy]);
    const tracked = execFileSync('git', ['ls-files'], { cwd: copy, encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(statDirty(copy).length).toBe(tracked.length);

    const heads = (): string => execFileSync('git', ['log', '--format=%s'], { cwd: copy, encoding: 'utf8' });
    const before = heads();
    await runJson(['--vault', copy, 'forget', '--match', 'city orchestra']);
    expect(statDirty(copy)).toEqual([]);
    // The refresh staged and committed nothing of its own: the forget's commit is the only new one.
    expect(heads().split('\n').filter(Boolean).length).toBe(before.split('\n').filter(Boolean).length + 1);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: copy, encoding: 'utf8' })).toBe('');
  });
});
