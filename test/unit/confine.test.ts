/** The vault's confinement module and the page-name rules the agent's guard adds on top. Real files, real links. */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPagePath } from '../../src/dream/tools/guard.js';
import { confinedPath, isWithin, pageWriteTarget } from '../../src/vault/confine.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

describe('confinement', () => {
  it('compares against root + sep', () => {
    expect(isWithin('/v', '/v/a.md')).toBe(true);
    expect(isWithin('/v', '/vault/a.md')).toBe(false);
    expect(isWithin('/v', '/v/\0')).toBe(false);
  });

  it('refuses a link on the way to a program file, and a folder where a file belongs', async () => {
    const dir = await tempDir();
    const root = path.join(dir, 'v');
    await mkdir(path.join(root, 'logs'), { recursive: true });
    await mkdir(path.join(dir, 'out'));
    await symlink(path.join(dir, 'out'), path.join(root, '.vaultkeeper'));
    await expect(confinedPath(root, '.vaultkeeper/state.json')).rejects.toMatchObject({ code: 'VK_SYMLINK' });
    await mkdir(path.join(root, 'logs/2026-01-05.md'));
    await expect(confinedPath(root, 'logs/2026-01-05.md')).rejects.toMatchObject({ code: 'VK_NOT_A_FILE' });
    await expect(confinedPath(root, '../x')).rejects.toMatchObject({ code: 'VK_OUTSIDE_VAULT' });
    expect(await confinedPath(root, 'logs/2026-01-06.md')).toBe(path.join(root, 'logs/2026-01-06.md'));
  });

  it('writes a page through an in-vault link at its target, never through one that leads out', async () => {
    const dir = await tempDir();
    const root = path.join(dir, 'v');
    await mkdir(path.join(root, '2_Areas'), { recursive: true });
    await writeFile(path.join(root, '2_Areas/real.md'), '# Real\n');
    await writeFile(path.join(dir, 'outside.md'), '# Outside\n');
    await symlink(path.join(root, '2_Areas/real.md'), path.join(root, '2_Areas/alias.md'));
    await symlink(path.join(dir, 'outside.md'), path.join(root, '2_Areas/linked.md'));
    expect(await pageWriteTarget(root, '2_Areas/alias.md')).toMatchObject({ ok: true, rel: '2_Areas/real.md' });
    expect(await pageWriteTarget(root, '2_Areas/linked.md')).toMatchObject({ ok: false, reason: 'outside_vault' });
  });

  it('page names hold no direction marks or invisible characters and are not blank', () => {
    expect(isPagePath('2_Areas/coffee.md')).toBe(true);
    expect(isPagePath('2_Areas/gpj.\u202Emd')).toBe(false);
    expect(isPagePath('2_Areas/a\u200Bb.md')).toBe(false);
    expect(isPagePath('2_Areas/   .md')).toBe(false);
    expect(isPagePath('   /x.md')).toBe(false);
  });
});
