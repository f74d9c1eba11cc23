import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { isWikiPagePath, listWikiPages } from '../../src/pages/discover.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

describe('isWikiPagePath', () => {
  test.each([
    ['2_Areas/Coffee.md', true],
    ['My Notes/Coffee Beans.md', true],
    ['top level note.md', true],
    ['2_Areas/logs/notes.md', true],
    ['2_Areas/index.md', true],
    ['memory.md', true],
    ['schema.md', false],
    ['index.md', false],
    ['log.md', false],
    ['MEMORY.md', false],
    ['logs/2026-06-09.md', false],
    ['logs/old/x.md', false],
    ['.obsidian/x.md', false],
    ['.vaultkeeper/x.md', false],
    ['notes/.trash/x.md', false],
    ['notes/.hidden.md', false],
    ['node_modules/pkg/README.md', false],
    ['2_Areas/Coffee.txt', false],
    ['2_Areas/Coffee.MD', false],
    ['2_Areas/', false],
    ['/abs/x.md', false],
    ['../outside.md', false],
    ['a/../b.md', false],
    ['a//b.md', false],
    ['a\\b.md', false],
    ['a\0.md', false],
    ['', false],
  ])('%s → %s', (rel, expected) => {
    expect(isWikiPagePath(rel)).toBe(expected);
  });
});

describe('listWikiPages', () => {
  const tempDir = useTempDir();

  test('lists pages in zones and own folders, names with spaces, sorted; skips logs, hidden folders and root files', async () => {
    const root = await tempDir();
    await writeTree(root, {
      'logs/2026-06-09.md': '# 2026-06-09\n',
      'schema.md': '',
      'index.md': '',
      'log.md': '',
      'MEMORY.md': '',
      '0_Inbox/unsorted.md': '',
      '2_Areas/Coffee.md': '',
      '2_Areas/Coffee Beans.md': '',
      '2_Areas/logs/brew log.md': '',
      'My Own Folder/Deep/Note with spaces.md': '',
      'top.md': '',
      '.obsidian/workspace.md': '',
      '.vaultkeeper/runs/r1.md': '',
      '.git/x.md': '',
      '2_Areas/.trash/deleted.md': '',
      '2_Areas/.draft.md': '',
      'node_modules/pkg/README.md': '',
      '4_Resources/photo.png': '',
      '4_Resources/notes.txt': '',
    });
    await mkdir(path.join(root, '5_Archives'));
    expect(await listWikiPages(root)).toEqual([
      '0_Inbox/unsorted.md',
      '2_Areas/Coffee Beans.md',
      '2_Areas/Coffee.md',
      '2_Areas/logs/brew log.md',
      'My Own Folder/Deep/Note with spaces.md',
      'top.md',
    ]);
  });

  // A note linked into the vault (an Obsidian habit) is a page that is read and indexed, never rewritten
  // (DESIGN §9); a linked folder is not followed, so a loop or a folder outside never enters the walk.
  test('lists a linked markdown file as a page, and follows no linked folder, in or out of the vault', async () => {
    const root = await tempDir();
    const outside = await tempDir();
    await writeTree(outside, { 'secret.md': 'outside', 'dir/inner.md': 'outside' });
    await writeTree(root, { '2_Areas/Coffee.md': '' });
    await symlink(path.join(outside, 'dir'), path.join(root, 'escape'), 'dir');
    await symlink(path.join(outside, 'secret.md'), path.join(root, 'secret.md'));
    await symlink(path.join(root, '2_Areas'), path.join(root, 'again'), 'dir');
    await symlink(root, path.join(root, '2_Areas', 'loop'), 'dir');
    await symlink(path.join(root, 'missing.md'), path.join(root, 'broken.md'));
    expect(await listWikiPages(root)).toEqual(['2_Areas/Coffee.md', 'secret.md']);
  });

  test('an empty vault has no pages; a missing one neither', async () => {
    const root = await tempDir();
    expect(await listWikiPages(root)).toEqual([]);
    expect(await listWikiPages(path.join(root, 'nope'))).toEqual([]);
  });

  test('a file named .md and a folder named like a page are not pages', async () => {
    const root = await tempDir();
    await mkdir(path.join(root, 'folder.md'), { recursive: true });
    await writeFile(path.join(root, 'folder.md', 'inside.md'), '');
    await writeFile(path.join(root, '.md'), '');
    expect(await listWikiPages(root)).toEqual(['folder.md/inside.md']);
  });
});
