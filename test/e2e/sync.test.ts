/**
 * Two machines, one memory (issue 28): a vault, a bare remote and a clone, each driven by the built CLI. Concurrent
 * remembers on both, a forget on one, a dream on the one that dreams — every fact once on both, nothing forgotten
 * comes back, and both indexes answer alike after a sync.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLog } from '../../src/logs/factlog.js';
import { runCli, runJson } from '../helpers/cli.js';
import { DAEMON_CONFIG, until, useDaemons } from '../helpers/daemon.js';
import { useTempDir } from '../helpers/tmp.js';
import { expectOneLineError, git, gitStatus, initVault } from '../helpers/vault.js';

const laptop = { env: { VAULTKEEPER_MACHINE: 'laptop', VAULTKEEPER_TIMEZONE: 'UTC' } };
const desktop = { env: { VAULTKEEPER_MACHINE: 'desktop', VAULTKEEPER_TIMEZONE: 'UTC' } };

interface Search {
  results: Array<{ id: string; text: string; path: string }>;
}

async function logFacts(root: string): Promise<Map<string, string>> {
  const facts = new Map<string, string>();
  const dates = (await git(root, ['ls-files', 'logs'])).split('\n').filter((p) => p.endsWith('.md'));
  for (const rel of dates) {
    for (const fact of parseLog(await readFile(path.join(root, rel), 'utf8'), path.basename(rel, '.md')).facts) {
      expect(facts.has(fact.id), `${fact.id} twice`).toBe(false);
      facts.set(fact.id, fact.text);
    }
  }
  return facts;
}

describe('sync between two machines', () => {
  const tempDir = useTempDir();

  it('merges concurrent writes, a forget and a dream; every fact once, nothing back, the same answers', async () => {
    const dir = await tempDir();
    const a = await initVault(dir, laptop);
    const remote = path.join(dir, 'memory.git');
    await git(dir, ['init', '--quiet', '--bare', '--initial-branch=main', remote]);
    const first = await runJson<{ id: string }[] | { facts: Array<{ id: string }> }>(['--vault', a, 'remember', '--date', '2026-06-01', 'The boat is called Kestrel'], laptop);
    const kestrel = (first as { facts: Array<{ id: string }> }).facts[0]!.id;

    const synced = await runJson<{ dreams_here: string | null; sent: number }>(['--vault', a, 'sync', '--remote', remote], laptop);
    expect(synced.dreams_here).toBe('laptop');
    expect(synced.sent).toBeGreaterThan(0);

    const b = path.join(dir, 'desktop-vault');
    const cloned = await runJson<{ path: string; index: { facts: number } }>(['clone', remote, b], desktop);
    expect(cloned.index.facts).toBe(1);
    expect((await readFile(path.join(b, '.vaultkeeper/config.yaml'), 'utf8'))).toMatch(/where: laptop/);

    // Both machines write the same day at once, and the desktop forgets the boat's name.
    const day = '2026-06-02';
    const writes = await Promise.all([
      ...['Walks the dog at seven', 'Prefers oat milk', 'Keeps bees'].map((t) => runJson<{ facts: Array<{ id: string }> }>(['--vault', a, 'remember', '--date', day, t], laptop)),
      ...['Reads Le Guin', 'Plays the cello'].map((t) => runJson<{ facts: Array<{ id: string }> }>(['--vault', b, 'remember', '--date', day, t], desktop)),
    ]);
    const written = new Set([kestrel, ...writes.flatMap((w) => w.facts.map((f) => f.id))]);
    expect((await runCli(['--vault', b, 'forget', kestrel], desktop)).code).toBe(0);

    await runJson(['--vault', a, 'sync'], laptop);
    const sb = await runJson<{ received: number }>(['--vault', b, 'sync'], desktop);
    expect(sb.received).toBeGreaterThan(0);
    await runJson(['--vault', a, 'sync'], laptop);

    const factsA = await logFacts(a);
    const factsB = await logFacts(b);
    expect(new Set(factsA.keys())).toEqual(written);
    expect(new Set(factsB.keys())).toEqual(written);
    for (const root of [a, b]) {
      expect(await readFile(path.join(root, '.vaultkeeper/tombstones.jsonl'), 'utf8')).toContain(kestrel);
      const found = await runJson<Search>(['--vault', root, 'search', 'Kestrel boat'], laptop);
      expect(found.results.map((r) => r.id)).not.toContain(kestrel);
      expect(await gitStatus(root)).toEqual([]);
    }

    // Only the laptop dreams: the desktop is told where, the laptop's pages reach it.
    const gated = await runJson<{ status: string; reason: string }>(['--vault', b, 'dream', '--force', '--offline'], desktop);
    expect(gated.status).toBe('gated');
    expect(gated.reason).toMatch(/dreams on laptop/);
    const dreamt = await runJson<{ status: string; pages: { created: string[] } }>(['--vault', a, 'dream', '--force', '--offline'], laptop);
    expect(dreamt.status).toBe('ok');
    await runJson(['--vault', a, 'sync'], laptop);
    await runJson(['--vault', b, 'sync'], desktop);
    expect(await git(b, ['rev-parse', 'HEAD'])).toBe(await git(a, ['rev-parse', 'HEAD']));

    // The same files, so the same index: every query answers alike on both machines.
    for (const query of ['oat milk', 'cello', 'bees', 'dog']) {
      const ra = await runJson<Search>(['--vault', a, 'search', query], laptop);
      const rb = await runJson<Search>(['--vault', b, 'search', query], desktop);
      expect(ra.results.length).toBeGreaterThan(0);
      expect(rb.results).toEqual(ra.results);
    }
    const statusA = await runJson<{ index: { rows: number } }>(['--vault', a, 'status'], laptop);
    const statusB = await runJson<{ index: { rows: number } }>(['--vault', b, 'status'], desktop);
    expect(statusB.index.rows).toBe(statusA.index.rows);
  }, 240_000);

  it('stops on a page both machines changed in the same line, with one line and nothing lost', async () => {
    const dir = await tempDir();
    const a = await initVault(dir, laptop);
    const remote = path.join(dir, 'memory.git');
    await git(dir, ['init', '--quiet', '--bare', '--initial-branch=main', remote]);
    await writeFile(path.join(a, '2_Areas/Garden.md'), '# Garden\n\nThe roses need water.\n');
    await runJson(['--vault', a, 'sync', '--remote', remote], laptop);
    const b = path.join(dir, 'b');
    await runJson(['clone', remote, b], desktop);

    await writeFile(path.join(a, '2_Areas/Garden.md'), '# Garden\n\nThe roses need water on Mondays.\n');
    await writeFile(path.join(b, '2_Areas/Garden.md'), '# Garden\n\nThe roses need water twice a week.\n');
    await runJson(['--vault', a, 'sync'], laptop);
    const result = await runCli(['--vault', b, 'sync'], desktop);
    expectOneLineError(result, 1, /2_Areas\/Garden\.md changed on both machines.*nothing is lost/);
    // Nothing merged: the desktop's edit is as it was (committed as a snapshot), no conflict markers anywhere.
    expect(await readFile(path.join(b, '2_Areas/Garden.md'), 'utf8')).toBe('# Garden\n\nThe roses need water twice a week.\n');
    expect(await gitStatus(b)).toEqual([]);
    expect(await git(b, ['log', '-1', '--format=%s'])).toMatch(/snapshot: a person's edits before sync/);
  }, 120_000);

  it('says in one line when there is no remote, or the remote holds no vault', async () => {
    const dir = await tempDir();
    const a = await initVault(dir, laptop);
    expectOneLineError(await runCli(['--vault', a, 'sync'], laptop), 1, /no remote to sync with/);
    const empty = path.join(dir, 'empty.git');
    await git(dir, ['init', '--quiet', '--bare', empty]);
    await git(dir, ['clone', '--quiet', empty, path.join(dir, 'seed')]).catch(() => '');
    expectOneLineError(await runCli(['clone', empty, path.join(dir, 'x')], desktop), 1, /cannot clone|holds no vaultkeeper vault/);
  }, 60_000);
});

describe('the daemon syncs by itself', () => {
  const tempDir = useTempDir();
  const daemons = useDaemons(tempDir);

  it('pushes a fact remembered while it runs, without a sync command', async () => {
    const root = await daemons.vault([['The kettle is in the left cupboard']], `${DAEMON_CONFIG}daemon:\n  sync_minutes: 60\n`);
    const remote = path.join(path.dirname(root), 'memory.git');
    await git(path.dirname(root), ['init', '--quiet', '--bare', '--initial-branch=main', remote]);
    await runJson(['--vault', root, 'sync', '--remote', remote], laptop);
    await daemons.start(root, laptop);
    const fact = await runJson<{ facts: Array<{ id: string }> }>(['--vault', root, 'remember', 'The spare key is under the blue pot'], laptop);
    // The watcher indexes the write; the sync job follows it and pushes the commit.
    await until(async () => (await git(remote, ['log', '-p', 'main']).catch(() => '')).includes(fact.facts[0]!.id), 'the fact to reach the remote', 60_000, 500);
  }, 120_000);
});
