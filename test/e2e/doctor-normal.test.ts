/**
 * Normal states look normal: index lag that the next search repairs, and unresolved links in a person's own
 * notes on an adopted vault, are said by `doctor` but leave it healthy (exit 0); a new vault files a person's
 * daily notes as pages, never in logs/.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { initVault } from '../helpers/vault.js';

const tempDir = useTempDir();

interface DoctorJson {
  ok: boolean;
  problems: { code: string; path: string | null; line: number | null; message: string; severity?: string }[];
}

async function doctor(root: string): Promise<{ code: number; report: DoctorJson; plain: string }> {
  const result = await runCli(['doctor', '--json'], { cwd: root });
  expect(result.stderr).toBe('');
  const plain = await runCli(['doctor'], { cwd: root });
  expect(plain.code).toBe(result.code);
  return { code: result.code, report: JSON.parse(result.stdout) as DoctorJson, plain: plain.stdout };
}

describe('doctor: normal states are not errors', () => {
  it('says that a remember after a search left the index behind, and stays healthy', async () => {
    const root = await initVault(await tempDir());
    await runJson(['remember', 'Likes green tea', '--date', '2026-06-09'], { cwd: root });
    await runJson(['search', 'tea'], { cwd: root });
    await runJson(['remember', 'Likes oolong too', '--date', '2026-06-09'], { cwd: root });
    const { code, report, plain } = await doctor(root);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.problems).toEqual([expect.objectContaining({ code: 'INDEX_DRIFT', severity: 'info', message: expect.stringContaining('the next search indexes them') })]);
    expect(plain).toMatch(/: healthy\n +INDEX_DRIFT +info: /);
    // The next search repairs it: nothing left to say.
    await runJson(['search', 'oolong'], { cwd: root });
    expect((await doctor(root)).report.problems).toEqual([]);
  });

  it('counts unresolved links in a person\'s own notes on an adopted vault, and exits 0', async () => {
    const root = path.join(await tempDir(), 'notes');
    await writeTree(root, {
      'Home.md': '# Home\n\nSee [[Ideas]], [[Someday]] and [[Reading list]].\n',
      'Ideas.md': '# Ideas\n\nBack to [[Home]]; more in [[Later]].\n',
    });
    const adopted = await runCli(['init', '--adopt', root]);
    expect(adopted.code, adopted.stderr).toBe(0);
    const { code, report, plain } = await doctor(root);
    expect(code).toBe(0);
    expect(report.problems.filter((p) => p.code === 'BROKEN_LINK')).toEqual([]);
    expect(report.problems).toContainEqual(expect.objectContaining({ code: 'UNRESOLVED_LINKS', severity: 'info', message: expect.stringMatching(/^3 links in your own notes/) }));
    expect(plain).toContain('healthy');

    // A note the person has not committed yet is theirs too.
    await writeTree(root, { 'Draft.md': '# Draft\n\n[[Nowhere]]\n' });
    const after = await doctor(root);
    expect(after.report.problems).toContainEqual(expect.objectContaining({ code: 'UNRESOLVED_LINKS', message: expect.stringMatching(/^4 links/) }));
    expect(after.report.problems.filter((p) => p.severity === undefined || p.severity === 'error').map((p) => p.code)).toEqual(['UNCOMMITTED']);
  });

  it('still fails on a broken link in a vault that was not adopted', async () => {
    const root = await initVault(await tempDir());
    await writeTree(root, { '2_Areas/Tea.md': '# Tea\n\nNot [[Mate]].\n' });
    const { code, report } = await doctor(root);
    expect(code).toBe(1);
    expect(report.problems).toContainEqual(expect.objectContaining({ code: 'BROKEN_LINK', path: '2_Areas/Tea.md' }));
  });

  it('files a new vault\'s Obsidian daily notes as pages, not in logs/ and not under a log\'s name', async () => {
    const root = await initVault(await tempDir());
    const settings = JSON.parse(await readFile(path.join(root, '.obsidian/daily-notes.json'), 'utf8')) as { folder: string; format: string };
    expect(settings.folder.split('/')[0]).not.toBe('logs');
    expect((await stat(path.join(root, settings.folder))).isDirectory()).toBe(true);
    // Obsidian's moment format: "YYYY-MM-DD [Daily]" names 2026-06-09 Daily.md, never a log's 2026-06-09.md.
    expect(settings.format.replace(/\[([^\]]*)\]/g, '$1').replace('YYYY-MM-DD', '2026-06-09')).not.toBe('2026-06-09');
    await writeTree(root, { [`${settings.folder}/2026-06-09 Daily.md`]: '# 2026-06-09\n\nWalked to the river; thought about [[Home]].\n' });
    const found = await runJson<{ results: { path: string }[] }>(['search', 'river'], { cwd: root });
    expect(found.results.map((r) => r.path)).toContain(`${settings.folder}/2026-06-09 Daily.md`);
  });
});
