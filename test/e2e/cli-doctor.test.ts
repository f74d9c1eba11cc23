/** `vaultkeeper doctor` through the built CLI: exit 0 when healthy, 1 with each problem and where it is. */
import { appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { git, initVault, snapshot } from '../helpers/vault.js';

const tempDir = useTempDir();

interface DoctorJson {
  ok: boolean;
  problems: { code: string; path: string | null; line: number | null; message: string }[];
}

async function doctor(root: string): Promise<{ code: number; report: DoctorJson }> {
  const result = await runCli(['doctor', '--json'], { cwd: root });
  expect(result.stderr).toBe('');
  return { code: result.code, report: JSON.parse(result.stdout) as DoctorJson };
}

async function commitByHand(root: string, message: string): Promise<void> {
  await git(root, ['add', '-A']);
  await git(root, ['-c', 'user.name=Person', '-c', 'user.email=person@example.com', 'commit', '-q', '-m', message]);
}

describe('vaultkeeper doctor', () => {
  it('exits 0 on a healthy vault with facts, and changes nothing', async () => {
    const root = await initVault(await tempDir());
    await runJson(['remember', 'Likes green tea', '-t', 'tea', '--date', '2026-06-09'], { cwd: root });
    const before = await snapshot(root);
    const head = await git(root, ['rev-parse', 'HEAD']);
    expect(await doctor(root)).toEqual({ code: 0, report: { ok: true, problems: [] } });
    const plain = await runCli(['doctor'], { cwd: root });
    expect(plain).toEqual({ code: 0, stdout: `${root}: healthy\n`, stderr: '' });
    expect(await snapshot(root)).toEqual(before);
    expect(await git(root, ['rev-parse', 'HEAD'])).toBe(head);
  });

  it('exits 1 and reports a malformed log line with code LOG_LINE, its path and line', async () => {
    const root = await initVault(await tempDir());
    await runJson(['remember', 'Likes green tea', '--date', '2026-06-09'], { cwd: root });
    await appendFile(path.join(root, 'logs/2026-06-09.md'), 'a note typed by hand\n- [mood] happy\n');
    await commitByHand(root, 'notes');
    const { code, report } = await doctor(root);
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      { code: 'LOG_LINE', path: 'logs/2026-06-09.md', line: 5, message: expect.stringContaining('a note typed by hand') },
      { code: 'LOG_LINE', path: 'logs/2026-06-09.md', line: 6, message: expect.stringMatching(/unknown category \[mood\]/) },
    ]);
    const plain = await runCli(['doctor'], { cwd: root });
    expect(plain.code).toBe(1);
    expect(plain.stdout).toMatch(/2 problems/);
    expect(plain.stdout).toMatch(/LOG_LINE +logs\/2026-06-09\.md:6 +unknown category/);
  });

  it('exits 1 and reports a broken config with code CONFIG, naming the file and key', async () => {
    const root = await initVault(await tempDir());
    await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'timezone: Mars/Olympus\n');
    await commitByHand(root, 'my zone');
    const { code, report } = await doctor(root);
    expect(code).toBe(1);
    expect(report.problems).toEqual([{ code: 'CONFIG', path: '.vaultkeeper/config.yaml', line: null, message: expect.stringMatching(/config\.yaml: timezone: must be an IANA time zone/) }]);
  });

  it('exits 1 and reports uncommitted edits with code UNCOMMITTED', async () => {
    const root = await initVault(await tempDir());
    await appendFile(path.join(root, 'MEMORY.md'), '- a line added by hand\n');
    await writeFile(path.join(root, '0_Inbox', 'idea.md'), '# An idea\n');
    const { code, report } = await doctor(root);
    expect(code).toBe(1);
    expect(report.problems.map((p) => [p.code, p.path]).sort()).toEqual([
      ['UNCOMMITTED', '0_Inbox/idea.md'],
      ['UNCOMMITTED', 'MEMORY.md'],
    ]);
  });

  it('is healthy again once the edits are committed and the log fixed', async () => {
    const root = await initVault(await tempDir());
    await writeFile(path.join(root, '0_Inbox', 'idea.md'), '# An idea\n');
    expect((await doctor(root)).code).toBe(1);
    await commitByHand(root, 'idea');
    expect(await doctor(root)).toEqual({ code: 0, report: { ok: true, problems: [] } });
  });
});
