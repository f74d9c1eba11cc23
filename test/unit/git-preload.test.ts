/** preloadFiles (src/git/worktree.ts): one `git cat-file --batch` gives showFile the same bytes a read per file does. */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { headCommit, preloadFiles, showFile } from '../../src/git/worktree.js';

describe('preloadFiles', () => {
  it('reads files at a commit in one batch: contents byte for byte (newlines, no ending, UTF-8), null for a missing one', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'vk-preload-'));
    try {
      const git = (...args: string[]): string => execFileSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], { encoding: 'utf8' });
      git('init', '-q');
      // Nested files too: they are found by the blob ids of one listing of the commit's tree.
      const files: Record<string, string> = { 'a.md': '# A\n\nline\n', 'Zoë — Work 2024-03.md': 'no ending', 'empty.md': '', '1_Projects/sub/b\tc.md': 'nested\n' };
      await mkdir(path.join(root, '1_Projects', 'sub'), { recursive: true });
      for (const [rel, text] of Object.entries(files)) await writeFile(path.join(root, rel), text);
      git('add', '--all');
      git('commit', '-qm', 'files');
      const commit = await headCommit(root);
      const direct = await Promise.all(Object.keys(files).map((rel) => showFile(root, commit, rel)));
      // Changed in the tree after the commit: the commit's bytes are read, not the file's.
      await writeFile(path.join(root, 'a.md'), 'changed\n');
      await preloadFiles(root, commit, [...Object.keys(files), 'missing.md', '1_Projects/missing.md', '1_Projects/sub']);
      for (const [i, rel] of Object.keys(files).entries()) {
        const read = await showFile(root, commit, rel);
        expect(read?.toString('utf8'), rel).toBe(files[rel]);
        expect(read?.equals(direct[i]!), rel).toBe(true);
      }
      expect(await showFile(root, commit, 'missing.md')).toBeNull();
      expect(await showFile(root, commit, '1_Projects/missing.md')).toBeNull();
      // Read from the batch, not by another git process: a folder with no repository still gets the commit's bytes.
      expect((await showFile(tmpdir(), commit, 'a.md'))?.toString('utf8')).toBe(files['a.md']);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
