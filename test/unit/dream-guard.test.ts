import { mkdir, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPagePath, isWithin, resolveLogPath, resolveWikiFolder, resolveWikiPath } from '../../src/dream/tools/guard.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();
const BATCH = ['2026-06-09', '2026-06-10'];

/** A vault next to an `outside` folder, with links that point out of it, into logs/ and nowhere. */
async function makeVault(): Promise<{ root: string; outside: string }> {
  const dir = await tempDir();
  const root = path.join(dir, 'vault');
  const outside = path.join(dir, 'outside');
  await writeTree(dir, {
    'outside/secret.md': 'secret\n',
    'outside/dir/page.md': 'outside page\n',
    'vault/logs/2026-06-09.md': '# 2026-06-09\n',
    'vault/logs/2026-06-01.md': '# 2026-06-01\n',
    'vault/2_Areas/coffee.md': '# Coffee\n',
    'vault/schema.md': 'schema\n',
    'vault/.git/config': '[core]\n',
    'vault/.vaultkeeper/config.yaml': 'timezone: UTC\n',
    'vault/folder.md/inner.md': 'a folder named like a page\n',
  });
  await symlink('../../outside/secret.md', path.join(root, '2_Areas/escape.md'));
  await symlink('../logs/2026-06-09.md', path.join(root, '2_Areas/into-logs.md'));
  await symlink('../outside/dir', path.join(root, 'outdir'));
  await symlink('logs', path.join(root, 'logsdir'));
  await symlink('nope.md', path.join(root, '2_Areas/dangling.md'));
  await symlink('coffee.md', path.join(root, '2_Areas/alias.md'));
  await symlink('../../outside/secret.md', path.join(root, 'logs/2026-06-10.md'));
  return { root, outside };
}

describe('isWithin', () => {
  it('compares resolved paths against root + sep', () => {
    expect(isWithin('/a/b', '/a/b')).toBe(true);
    expect(isWithin('/a/b', '/a/b/c.md')).toBe(true);
    expect(isWithin('/a/b/', '/a/b/c.md')).toBe(true);
    expect(isWithin('/a/b', '/a/bc/d.md')).toBe(false);
    expect(isWithin('/a/b', '/a/b/../c.md')).toBe(false);
    expect(isWithin('/a/b', '/a')).toBe(false);
    expect(isWithin('/', '/x')).toBe(true);
  });

  it('rejects NUL bytes', () => {
    expect(isWithin('/a/b', '/a/b/c\0.md')).toBe(false);
    expect(isWithin('/a/b\0', '/a/b/c.md')).toBe(false);
  });
});

describe('isPagePath', () => {
  it('follows DESIGN §2', () => {
    expect(isPagePath('2_Areas/coffee.md')).toBe(true);
    expect(isPagePath('My Notes/a page.md')).toBe(true);
    expect(isPagePath('2_Areas/index.md')).toBe(true);
    for (const rel of ['index.md', 'MEMORY.md', 'log.md', 'schema.md', 'logs/2026-06-09.md', '.obsidian/x.md', 'a/.b/c.md', 'x.txt', 'x.md/', 'node_modules/a/b.md', 'a:b.md']) {
      expect(isPagePath(rel), rel).toBe(false);
    }
  });
});

describe('resolveWikiPath', () => {
  it('accepts pages, new pages in new folders, names with spaces and %2e%2e names', async () => {
    const { root } = await makeVault();
    const existing = await resolveWikiPath(root, '2_Areas/coffee.md', { forWrite: false });
    expect(existing).toMatchObject({ ok: true, rel: '2_Areas/coffee.md', exists: true });
    for (const rel of ['2_Areas/tea.md', 'New Folder/deep/a page.md', '%2e%2e/x.md', '%2e%2e%2fx.md', '2_Areas/index.md']) {
      const result = await resolveWikiPath(root, rel, { forWrite: true });
      expect(result, rel).toMatchObject({ ok: true, rel, exists: false });
      if (result.ok) expect(isWithin(await realpath(root), result.abs)).toBe(true);
    }
    expect(await resolveWikiPath(root, './2_Areas/coffee.md', { forWrite: false })).toMatchObject({ ok: true, rel: '2_Areas/coffee.md' });
  });

  it('refuses paths out of the vault as written', async () => {
    const { root, outside } = await makeVault();
    const cases: Array<[string, string]> = [
      ['../outside/secret.md', 'outside_vault'],
      ['2_Areas/../../outside/secret.md', 'outside_vault'],
      ['a/../b.md', 'outside_vault'],
      ['/etc/passwd.md', 'outside_vault'],
      [path.join(root, '2_Areas/coffee.md'), 'outside_vault'],
      [path.join(outside, 'secret.md'), 'outside_vault'],
      ['C:/x.md', 'outside_vault'],
      ['~/x.md', 'outside_vault'],
      ['2_Areas\\x.md', 'invalid_path'],
      ['..\\outside\\secret.md', 'invalid_path'],
      ['2_Areas/x\0.md', 'invalid_path'],
      ['', 'invalid_path'],
      ['2_Areas/', 'invalid_path'],
      ['2_Areas//x.md', 'invalid_path'],
      ['2_Areas/a:b.md', 'invalid_path'],
      ['x.txt', 'not_markdown'],
      ['2_Areas/coffee', 'not_markdown'],
    ];
    for (const [rel, reason] of cases) {
      const result = await resolveWikiPath(root, rel, { forWrite: true });
      expect(result, rel).toMatchObject({ ok: false, reason });
      if (!result.ok) expect(result.hint.length).toBeGreaterThan(10);
    }
  });

  it('names the next call in its hint', async () => {
    const { root } = await makeVault();
    const result = await resolveWikiPath(root, '/etc/x.md', { forWrite: true });
    expect(result).toEqual({ ok: false, reason: 'outside_vault', hint: 'paths are relative to the vault, e.g. 2_Areas/coffee.md' });
    const log = await resolveWikiPath(root, 'logs/2026-06-09.md', { forWrite: false });
    expect(log.ok ? '' : log.hint).toContain('read_log');
  });

  it('refuses logs/, hidden folders and the root files the runner writes', async () => {
    const { root } = await makeVault();
    for (const rel of [
      'logs/2026-06-09.md',
      'logs/new.md',
      'Logs/x.md',
      '.git/config.md',
      '.git/hooks/pre-commit.md',
      '.vaultkeeper/x.md',
      '.obsidian/workspace.md',
      '2_Areas/.hidden.md',
      '.trash/x.md',
      'schema.md',
      'index.md',
      'log.md',
      'MEMORY.md',
      'memory.md',
      'node_modules/pkg/README.md',
    ]) {
      expect(await resolveWikiPath(root, rel, { forWrite: true }), rel).toMatchObject({ ok: false, reason: 'forbidden' });
    }
  });

  it('follows real symlinks and refuses those that leave the vault or land on a forbidden place', async () => {
    const { root } = await makeVault();
    for (const forWrite of [true, false]) {
      expect(await resolveWikiPath(root, '2_Areas/escape.md', { forWrite })).toMatchObject({ ok: false, reason: 'outside_vault' });
      expect(await resolveWikiPath(root, '2_Areas/into-logs.md', { forWrite })).toMatchObject({ ok: false, reason: 'forbidden' });
      expect(await resolveWikiPath(root, 'outdir/page.md', { forWrite })).toMatchObject({ ok: false, reason: 'outside_vault' });
      expect(await resolveWikiPath(root, '2_Areas/dangling.md', { forWrite })).toMatchObject({ ok: false, reason: 'broken_link' });
    }
    // New files under a linked folder: the nearest existing parent is resolved.
    expect(await resolveWikiPath(root, 'outdir/new.md', { forWrite: true })).toMatchObject({ ok: false, reason: 'outside_vault' });
    expect(await resolveWikiPath(root, 'outdir/sub/new.md', { forWrite: true })).toMatchObject({ ok: false, reason: 'outside_vault' });
    expect(await resolveWikiPath(root, 'logsdir/new.md', { forWrite: true })).toMatchObject({ ok: false, reason: 'forbidden' });
    expect(await resolveWikiPath(root, 'logsdir/2026-06-09.md', { forWrite: false })).toMatchObject({ ok: false, reason: 'forbidden' });
    // A link to a page inside the vault resolves to that page.
    expect(await resolveWikiPath(root, '2_Areas/alias.md', { forWrite: true })).toMatchObject({ ok: true, rel: '2_Areas/coffee.md', exists: true });
  });

  it('refuses a dangling link in the folder chain', async () => {
    const { root } = await makeVault();
    await symlink('missing-folder', path.join(root, 'gone'));
    expect(await resolveWikiPath(root, 'gone/new.md', { forWrite: true })).toMatchObject({ ok: false, reason: 'broken_link' });
  });

  it('reports missing pages, folders and files used as folders', async () => {
    const { root } = await makeVault();
    expect(await resolveWikiPath(root, '2_Areas/missing.md', { forWrite: false })).toMatchObject({ ok: false, reason: 'not_found' });
    expect(await resolveWikiPath(root, 'folder.md', { forWrite: true })).toMatchObject({ ok: false, reason: 'not_a_file' });
    expect(await resolveWikiPath(root, '2_Areas/coffee.md/x.md', { forWrite: true })).toMatchObject({ ok: false, reason: 'invalid_path' });
  });

  it('works when the vault root itself is reached through a link', async () => {
    const { root } = await makeVault();
    const link = path.join(path.dirname(root), 'vault-link');
    await symlink(root, link);
    expect(await resolveWikiPath(link, '2_Areas/coffee.md', { forWrite: false })).toMatchObject({ ok: true, rel: '2_Areas/coffee.md' });
    expect(await resolveWikiPath(link, '2_Areas/escape.md', { forWrite: false })).toMatchObject({ ok: false, reason: 'outside_vault' });
  });
});

describe('resolveWikiFolder', () => {
  it('resolves folders and the whole vault, and refuses the rest', async () => {
    const { root } = await makeVault();
    await mkdir(path.join(root, '1_Projects'));
    expect(await resolveWikiFolder(root, '')).toMatchObject({ ok: true, rel: '' });
    expect(await resolveWikiFolder(root, '.')).toMatchObject({ ok: true, rel: '' });
    expect(await resolveWikiFolder(root, '2_Areas/')).toMatchObject({ ok: true, rel: '2_Areas' });
    expect(await resolveWikiFolder(root, 'logs')).toMatchObject({ ok: false, reason: 'forbidden' });
    expect(await resolveWikiFolder(root, '.git')).toMatchObject({ ok: false, reason: 'forbidden' });
    expect(await resolveWikiFolder(root, 'logsdir')).toMatchObject({ ok: false, reason: 'forbidden' });
    expect(await resolveWikiFolder(root, 'outdir')).toMatchObject({ ok: false, reason: 'outside_vault' });
    expect(await resolveWikiFolder(root, '..')).toMatchObject({ ok: false, reason: 'outside_vault' });
    expect(await resolveWikiFolder(root, 'nope')).toMatchObject({ ok: false, reason: 'not_found' });
  });
});

describe('resolveLogPath', () => {
  it('opens logs of the batch only, and only inside the vault', async () => {
    const { root } = await makeVault();
    expect(await resolveLogPath(root, '2026-06-09', BATCH)).toMatchObject({ ok: true, rel: 'logs/2026-06-09.md' });
    expect(await resolveLogPath(root, '2026-06-01', BATCH)).toMatchObject({ ok: false, reason: 'not_in_batch' });
    expect(await resolveLogPath(root, '2026-06-10', BATCH)).toMatchObject({ ok: false, reason: 'outside_vault' });
    expect(await resolveLogPath(root, '2026-06-09', ['2026-06-09', '2026-06-11'])).toMatchObject({ ok: true });
    expect(await resolveLogPath(root, '2026-06-11', ['2026-06-11'])).toMatchObject({ ok: false, reason: 'not_found' });
    for (const date of ['2026-13-01', '../2026-06-09', 'logs/2026-06-09.md', '2026-06-09\0', '']) {
      expect(await resolveLogPath(root, date, BATCH), date).toMatchObject({ ok: false, reason: 'invalid_path' });
    }
  });
});
