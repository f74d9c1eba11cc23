/** runDoctor on real vaults in temp folders: each check reports what it finds, with path and line. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDoctor, type Check } from '../../src/doctor/doctor.js';
import { initVault } from '../../src/vault/init.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { git } from '../helpers/vault.js';

const tempDir = useTempDir();

async function newVault(): Promise<string> {
  const root = path.join(await tempDir(), 'vault');
  await initVault(root);
  return root;
}

async function commitAll(root: string): Promise<void> {
  await git(root, ['add', '-A']);
  await git(root, ['-c', 'user.name=Person', '-c', 'user.email=person@example.com', 'commit', '-q', '-m', 'by hand']);
}

describe('runDoctor', () => {
  it('finds a new vault healthy', async () => {
    const root = await newVault();
    expect(await runDoctor(root, {})).toEqual({ ok: true, problems: [] });
  });

  it('reports each malformed log line with its path and line, and odd file names in logs/', async () => {
    const root = await newVault();
    await writeTree(root, {
      'logs/2026-06-09.md': '# 2026-06-09\n\n## 10:00 · cli\n- [fact] fine ^f-0000000001\nfree text\n- [mood] happy\n',
      'logs/notes.md': '- [fact] not in a daily log\n',
    });
    await commitAll(root);
    const report = await runDoctor(root, {});
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      { code: 'LOG_NAME', path: 'logs/notes.md', line: null, message: expect.stringMatching(/YYYY-MM-DD\.md/) },
      { code: 'LOG_LINE', path: 'logs/2026-06-09.md', line: 5, message: expect.stringContaining('free text') },
      { code: 'LOG_LINE', path: 'logs/2026-06-09.md', line: 6, message: expect.stringMatching(/unknown category \[mood\]/) },
    ]);
  });

  it('reports a broken config once, with its file, and still runs the other checks', async () => {
    const root = await newVault();
    await writeTree(root, { '.vaultkeeper/config.yaml': 'dream:\n  max_dayz: 3\n', 'logs/2026-06-09.md': 'junk\n' });
    await commitAll(root);
    const report = await runDoctor(root, {});
    expect(report.problems.map((p) => p.code)).toEqual(['CONFIG', 'LOG_LINE']);
    expect(report.problems[0]).toMatchObject({ path: '.vaultkeeper/config.yaml', message: expect.stringMatching(/dream\.max_dayz: unknown key/) });
  });

  it('reports a config that only an environment override breaks', async () => {
    const root = await newVault();
    const report = await runDoctor(root, { VAULTKEEPER_EMBEDDER: 'word2vec' });
    expect(report.problems).toMatchObject([{ code: 'CONFIG', message: expect.stringContaining('VAULTKEEPER_EMBEDDER') }]);
  });

  it('reports bad tombstone lines', async () => {
    const root = await newVault();
    await writeTree(root, { '.vaultkeeper/tombstones.jsonl': '{"id":"f-0000000001","text":"x","at":"2026-06-09T00:00:00Z"}\nnot json\n' });
    await commitAll(root);
    const report = await runDoctor(root, {});
    expect(report.problems).toEqual([{ code: 'TOMBSTONE_LINE', path: '.vaultkeeper/tombstones.jsonl', line: 2, message: expect.any(String) }]);
  });

  it('reports uncommitted edits and new files, but not what git ignores', async () => {
    const root = await newVault();
    await writeFile(path.join(root, 'schema.md'), 'edited by hand\n');
    await writeTree(root, { '2_Areas/coffee.md': '# Coffee\n', '.vaultkeeper/status.json': '{}', '.vaultkeeper/index/x': 'derived' });
    const report = await runDoctor(root, {});
    expect(report.problems.map((p) => [p.code, p.path]).sort()).toEqual([
      ['UNCOMMITTED', '2_Areas/coffee.md'],
      ['UNCOMMITTED', 'schema.md'],
    ]);
    expect(report.problems.find((p) => p.path === 'schema.md')!.message).toMatch(/^edited/);
    expect(report.problems.find((p) => p.path === '2_Areas/coffee.md')!.message).toMatch(/^new file/);
  });

  it('reports a vault that is not a git repository', async () => {
    const root = await tempDir();
    await mkdir(path.join(root, '.vaultkeeper'));
    const report = await runDoctor(root, {});
    expect(report.problems).toMatchObject([{ code: 'NO_GIT', message: expect.stringContaining('git init') }]);
  });

  it('turns a check that throws into a problem instead of failing', async () => {
    const root = await newVault();
    const broken: Check = () => Promise.reject(new Error('disk on fire'));
    const report = await runDoctor(root, {}, [broken]);
    expect(report).toEqual({ ok: false, problems: [{ code: 'CHECK_FAILED', path: null, line: null, message: expect.stringContaining('disk on fire') }] });
  });
});
