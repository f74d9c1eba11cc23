/**
 * A purge that holds (issue 29): killed at each of its steps, the next command of any kind finishes it, so no file
 * under the vault (.git and the index included) and no git object, reachable or not, holds the text; and the
 * `sync` after a purge force-pushes the rewritten history (never fetching and merging the old one back), says so,
 * and refuses when another machine pushed after the purge. A `--match` of a word inside a longer fact erases the
 * whole fact (docs/cli.md, purge).
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { vaultByteMap, whereHits } from '../helpers/scan-vault.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { git, gitStatus, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const execFileAsync = promisify(execFile);
const env = { VAULTKEEPER_TIMEZONE: 'UTC', LANCE_CPU_THREADS: '2' };

const PLANTED = 'Zorblax Quintavelle keeps the spare key under the blue flowerpot';
const NEEDLES = ['Zorblax', 'zorblax', 'Quintavelle', 'quintavelle', 'flowerpot'];

async function expectNoTrace(root: string): Promise<void> {
  const bytes = await vaultByteMap(root);
  for (const needle of NEEDLES) expect(whereHits(bytes, needle), `${needle} left in the vault or git`).toEqual([]);
}

/** A vault with the planted fact in its log, on a page (an offline dream), in the index and in a commit message (a forget). */
async function plantedVault(dir: string): Promise<{ root: string; id: string }> {
  const root = await initVault(path.join(dir, 'vault'), { env });
  await writeTree(root, { '.vaultkeeper/config.yaml': 'timezone: UTC\nindex:\n  embedder: none\n' });
  await git(root, ['commit', '--quiet', '-am', 'config']);
  const input = [PLANTED, 'Ana prefers dark roast coffee', 'Ana lives in Lisbon'].join('\n');
  const remembered = await runJson<{ facts: { id: string }[] }>(['--vault', root, 'remember', '--stdin', '--date', '2026-06-01'], { input, env });
  expect((await runJson<{ status: string }>(['--vault', root, 'dream', '--force', '--offline'], { env })).status).toBe('ok');
  await runJson(['--vault', root, 'reindex'], { env });
  return { root, id: remembered.facts[0]!.id };
}

const FAILPOINTS = ['purge:after-intent', 'purge:after-logs', 'purge:after-files', 'purge:after-commit', 'purge:after-import', 'purge:before-gc', 'purge:after-history'];

describe('a purge killed at each step', () => {
  let template = '';
  let plantedId = '';
  let shared = '';
  beforeAll(async () => {
    // Made once and copied for each case (useTempDir's folders go after each test).
    shared = await mkdtemp(path.join(os.tmpdir(), 'vk-purge-'));
    const made = await plantedVault(shared);
    template = made.root;
    plantedId = made.id;
    const before = whereHits(await vaultByteMap(template), 'flowerpot');
    expect(before).toEqual(expect.arrayContaining(['logs/2026-06-01.md', 'git objects']));
    expect(before.some((where) => where.startsWith('.vaultkeeper/index/')), 'the index files hold it').toBe(true);
  }, 120_000);
  afterAll(async () => {
    if (shared !== '') await rm(shared, { recursive: true, force: true });
  });

  it.each(FAILPOINTS)('%s: the next command finishes the purge and no trace is left', async (failpoint) => {
    const root = path.join(await tempDir(), 'vault');
    await cp(template, root, { recursive: true, verbatimSymlinks: true });
    const killed = await runCli(['--vault', root, 'purge', '--match', 'flowerpot', '--yes', '--reason', 'a key'], { env: { ...env, VAULTKEEPER_FAILPOINT: failpoint } });
    expect(killed.code, `the failpoint ${failpoint} was reached: ${killed.stderr}`).toBe(-1);

    // A read-only command: it finishes the purge before it answers (its query names none of the text: recall.jsonl keeps it).
    const search = await runJson<{ results: { id: string; text: string }[] }>(['--vault', root, 'search', 'spare key'], { env });
    expect(JSON.stringify(search.results)).not.toMatch(/flowerpot|zorblax/i);
    await expect(readFile(path.join(root, '.git', 'vaultkeeper-purge.json')), 'the purge record is gone').rejects.toThrow();
    await expectNoTrace(root);

    const log = await readFile(path.join(root, 'logs/2026-06-01.md'), 'utf8');
    expect(log).toContain(`[purged] ^${plantedId}`);
    expect(log).toContain('Ana prefers dark roast coffee');
    const journal = (await readFile(path.join(root, 'log.md'), 'utf8')).split('\n').filter((l) => l.includes('· purge ·'));
    expect(journal, 'log.md says it once').toHaveLength(1);
    expect(await gitStatus(root)).toEqual([]);
    await git(root, ['fsck', '--full', '--strict']);
    const subjects = (await git(root, ['log', '--format=%s'])).split('\n');
    expect(subjects.filter((s) => s.startsWith('purge:'))).toHaveLength(1);
    // The vault goes on: the rest is searchable, a remember commits.
    const coffee = await runJson<{ results: { text: string }[] }>(['--vault', root, 'search', 'dark roast coffee'], { env });
    expect(coffee.results.map((r) => r.text).join('\n')).toContain('dark roast');
    expect((await runCli(['--vault', root, 'remember', 'Ana reads Saramago'], { env })).code).toBe(0);
  }, 120_000);

  it('--match of one word inside a longer fact erases the whole fact, and the word everywhere', async () => {
    const root = path.join(await tempDir(), 'vault');
    await cp(template, root, { recursive: true, verbatimSymlinks: true });
    const result = await runJson<{ purged: { id: string }[] }>(['--vault', root, 'purge', '--match', 'Quintavelle', '--yes'], { env });
    expect(result.purged.map((f) => f.id)).toEqual([plantedId]);
    const log = await readFile(path.join(root, 'logs/2026-06-01.md'), 'utf8');
    expect(log).toContain(`- [fact] [purged] ^${plantedId}`);
    await expectNoTrace(root);
  }, 120_000);
});

describe('sync after a purge', () => {
  /** A planted vault whose history is already on a bare remote, as before any purge. */
  async function syncedPlantedVault(): Promise<{ dir: string; root: string; remote: string }> {
    const dir = await tempDir();
    const { root } = await plantedVault(dir);
    const remote = path.join(dir, 'memory.git');
    await execFileAsync('git', ['init', '--quiet', '--bare', '--initial-branch=main', remote]);
    await runJson(['--vault', root, 'sync', '--remote', remote], { env });
    return { dir, root, remote };
  }

  it('force-pushes the rewritten history, says so, and the remote holds no trace; then syncs as before', async () => {
    const { dir, root, remote } = await syncedPlantedVault();
    expect(await git(remote, ['log', '--all', '--format=%B'])).toMatch(/Zorblax|flowerpot/);
    const headBefore = await git(remote, ['rev-parse', 'main']);

    const purged = await runCli(['--vault', root, 'purge', '--match', 'flowerpot', '--yes'], { env });
    expect(purged.code, purged.stderr).toBe(0);
    expect(purged.stderr).toMatch(/the remote origin still holds the old history: the next `vaultkeeper sync` force-pushes/);

    const synced = await runCli(['--vault', root, 'sync'], { env });
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toMatch(/^force-pushed the history a purge rewrote to .*memory\.git \(main, was [0-9a-f]{8}\)/m);
    expect(synced.stdout).toMatch(/0 commits in/);
    const localHead = await git(root, ['rev-parse', 'HEAD']);
    expect(await git(remote, ['rev-parse', 'main'])).toBe(localHead);
    expect(localHead).not.toBe(headBefore);
    // The server's own garbage collection drops the old objects; a clone never had them.
    await git(remote, ['reflog', 'expire', '--expire=now', '--all']);
    await git(remote, ['gc', '--prune=now', '--quiet']);
    await expectNoTrace(remote);
    await expectNoTrace(root);
    const clone = path.join(dir, 'clone');
    await execFileAsync('git', ['clone', '--quiet', remote, clone]);
    await expectNoTrace(clone);

    // The record is gone: the next sync is an ordinary one.
    await runJson(['--vault', root, 'remember', 'Ana plays the cello'], { env });
    const again = await runJson<{ force_pushed: string | null; sent: number }>(['--vault', root, 'sync'], { env });
    expect(again.force_pushed).toBeNull();
    expect(again.sent).toBe(1);
    await expect(readdir(path.join(root, '.git'))).resolves.not.toContain('vaultkeeper-purge-push.json');
  }, 180_000);

  it("another machine's next sync after the force push refuses: its old history is not merged back", async () => {
    const { dir, root, remote } = await syncedPlantedVault();
    const other = path.join(dir, 'other');
    expect((await runCli(['clone', remote, other], { env })).code).toBe(0);
    await runJson(['--vault', other, 'remember', 'Ana plays the cello'], { env });

    expect((await runCli(['--vault', root, 'purge', '--match', 'flowerpot', '--yes'], { env })).code).toBe(0);
    expect((await runCli(['--vault', root, 'sync'], { env })).code).toBe(0);
    const purgedHead = await git(remote, ['rev-parse', 'main']);

    const refused = await runCli(['--vault', other, 'sync'], { env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/VK_SYNC_REWRITTEN|rewritten by another machine/);
    expect(refused.stderr.trim().split('\n')[0]).toMatch(/nothing was merged or pushed/);
    expect(await git(remote, ['rev-parse', 'main']), 'the remote keeps the purged history').toBe(purgedHead);
    await git(remote, ['reflog', 'expire', '--expire=now', '--all']);
    await git(remote, ['gc', '--prune=now', '--quiet']);
    await expectNoTrace(remote);
  }, 240_000);

  it('refuses when another machine pushed after the purge: nothing dropped, nothing merged back', async () => {
    const { dir, root, remote } = await syncedPlantedVault();
    const other = path.join(dir, 'other');
    await runJson(['clone', remote, other], { env });
    expect((await runCli(['--vault', root, 'purge', '--match', 'flowerpot', '--yes'], { env })).code).toBe(0);
    await runJson(['--vault', other, 'remember', 'Ana learns the tango'], { env });
    expect((await runCli(['--vault', other, 'sync'], { env })).code).toBe(0);
    const theirs = await git(remote, ['rev-parse', 'main']);

    const refused = await runCli(['--vault', root, 'sync'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/got new commits after this vault's purge: a force push would drop them and a merge would bring the purged text back; nothing was pushed/);
    expect(await git(remote, ['rev-parse', 'main'])).toBe(theirs);
    await expectNoTrace(root);
  }, 180_000);
});
