/**
 * One daemon for several vaults (issue 27), through the built CLI: `daemon start --all` runs one process for every
 * registered vault, each keeping its own lock, PID file, log, schedule, index and git; `status` reads each vault as
 * it reads a lone daemon's; SIGUSR1 dreams in each; `daemon stop --all` stops the one process.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/dream/journal.js';
import { runCli, runJson, type CliOptions } from '../helpers/cli.js';
import { DAEMON_CONFIG, until } from '../helpers/daemon.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

interface StatusJson {
  vault: string;
  watermark: string | null;
  daemon: { running: boolean; pid: number | null };
  jobs: Record<string, { last_result?: string | null }>;
}

let stopAll: (() => Promise<unknown>) | null = null;
afterEach(async () => {
  // Never leave the shared daemon behind, whatever a test did.
  await stopAll?.();
  stopAll = null;
});

async function vault(dir: string, name: string, fact: string): Promise<string> {
  const root = path.join(dir, name);
  await runJson(['init', root]);
  await writeFile(path.join(root, '.vaultkeeper/config.yaml'), DAEMON_CONFIG);
  execFileSync('git', ['commit', '-qam', 'person: config'], { cwd: root });
  await runJson(['--vault', root, 'remember', fact, '--date', '2026-06-01']);
  return root;
}

describe('one daemon for several vaults', () => {
  it('serves every registered vault from one process, each with its own lock, log, jobs, index and git', async () => {
    const dir = await tempDir();
    const options: CliOptions = { env: { XDG_CONFIG_HOME: path.join(dir, 'config') } };
    const work = await vault(dir, 'work', 'The quarterly review moved to Thursday');
    const home = await vault(dir, 'home', 'The plumber comes on Friday morning');
    await runJson(['vaults', 'add', 'work', work], options);
    await runJson(['vaults', 'add', 'home', home], options);

    const started = await runJson<{ pid: number; vaults: Array<{ name: string; vault: string; log: string }> }>(['daemon', 'start', '--background', '--all'], options);
    stopAll = () => runCli(['daemon', 'stop', '--all'], options);
    expect(started.vaults.map((v) => v.name)).toEqual(['work', 'home']);
    expect(started.vaults.map((v) => v.log)).toEqual([path.join(work, '.vaultkeeper/daemon.log'), path.join(home, '.vaultkeeper/daemon.log')]);

    // Each vault: its own PID file naming the one process, its own first tick, its own log.
    for (const root of [work, home]) {
      const pidFile = JSON.parse(await readFile(path.join(root, '.vaultkeeper/daemon.pid'), 'utf8')) as { pid: number; vault: string };
      expect(pidFile).toMatchObject({ pid: started.pid, vault: root });
      const status = await until(async () => {
        const s = await runJson<StatusJson>(['--vault', root, 'status']);
        return s.jobs.health !== undefined && s.jobs.index?.last_result === 'ok' ? s : null;
      }, `the first tick in ${root}`);
      expect(status.daemon).toEqual({ running: true, pid: started.pid });
      expect(await readFile(path.join(root, '.vaultkeeper/daemon.log'), 'utf8')).toContain(`for ${root}`);
    }

    // Each vault's daemon lock is held: a lone daemon for one of them is refused.
    const second = await runCli(['--vault', work, 'daemon', 'start', '--background'], options);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`already runs for this vault \\(pid ${started.pid}\\)`));

    // Status per vault, under its name.
    const all = await runJson<{ vaults: Array<StatusJson & { name: string }> }>(['daemon', 'status', '--all', '--json'], options);
    expect(all.vaults.map((v) => [v.name, v.vault, v.daemon.pid])).toEqual([
      ['work', work, started.pid],
      ['home', home, started.pid],
    ]);
    const text = await runCli(['daemon', 'status', '--all'], options);
    expect(text.stdout).toMatch(new RegExp(`== work\\nvault      ${work}`));
    expect(text.stdout).toMatch(new RegExp(`== home\\nvault      ${home}`));

    // A write to one vault is indexed there and nowhere else: each keeps its own index.
    await runJson(['--vault', home, 'remember', 'The boiler was serviced in May', '--date', '2026-06-01']);
    const found = await until(async () => {
      const out = await runJson<{ results: Array<{ text: string }> }>(['--vault', home, 'search', 'boiler serviced']);
      return out.results.some((r) => r.text.includes('boiler')) ? out : null;
    }, 'the new fact in home');
    expect(found.results[0]!.text).toContain('boiler');
    expect((await runJson<{ results: unknown[] }>(['--vault', work, 'search', 'boiler serviced'])).results).toEqual([]);

    // One SIGUSR1 dreams in each vault, each committing to its own git.
    process.kill(started.pid, 'SIGUSR1');
    for (const root of [work, home]) {
      await until(async () => (await readJournal(root)).watermark === '2026-06-01', `the dream in ${root}`);
      await until(async () => /^dream: 2026-06-01/m.test(execFileSync('git', ['log', '--format=%s', '-5'], { cwd: root, encoding: 'utf8' })), `the dream commit in ${root}`);
    }
    expect(execFileSync('git', ['log', '--format=%s'], { cwd: work, encoding: 'utf8' })).not.toMatch(/boiler/);

    const stopped = await runJson<{ vaults: Array<{ name: string; stopped: boolean; pid?: number }> }>(['daemon', 'stop', '--all'], options);
    stopAll = null;
    expect(stopped.vaults).toEqual([
      { name: 'work', stopped: true, pid: started.pid, killed: false },
      { name: 'home', stopped: true, pid: started.pid, killed: false },
    ]);
    for (const root of [work, home]) {
      expect((await runJson<StatusJson>(['--vault', root, 'status'])).daemon).toEqual({ running: false, pid: null });
      expect((await readFile(path.join(root, '.vaultkeeper/daemon.log'), 'utf8')).trim().split('\n').at(-1)).toMatch(/"msg":"stopped"/);
    }
  });

  it('serves a named set, and says which names are not registered', async () => {
    const dir = await tempDir();
    const options: CliOptions = { env: { XDG_CONFIG_HOME: path.join(dir, 'config') } };
    const none = await runCli(['daemon', 'start', '--all'], options);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no vaults are registered/);
    const work = await vault(dir, 'work', 'The quarterly review moved to Thursday');
    const home = await vault(dir, 'home', 'The plumber comes on Friday morning');
    await runJson(['vaults', 'add', 'work', work], options);
    await runJson(['vaults', 'add', 'home', home], options);
    const unknown = await runCli(['daemon', 'start', '--vaults', 'work', 'garden'], options);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no vault is registered as 'garden'.*work, home/s);

    const started = await runJson<{ pid: number; vaults: Array<{ name: string }> }>(['daemon', 'start', '--background', '--vaults', 'home'], options);
    stopAll = () => runCli(['daemon', 'stop', '--all'], options);
    expect(started.vaults.map((v) => v.name)).toEqual(['home']);
    expect((await runJson<StatusJson>(['--vault', home, 'status'])).daemon.pid).toBe(started.pid);
    expect((await runJson<StatusJson>(['--vault', work, 'status'])).daemon.running).toBe(false);
    // --all now starts only the vault not yet served, and says the other already runs.
    const rest = await runCli(['daemon', 'start', '--background', '--all', '--json'], options);
    expect(rest.code).toBe(0);
    expect(rest.stderr).toMatch(new RegExp(`home: a daemon already runs for it \\(pid ${started.pid}\\)`));
    const restJson = JSON.parse(rest.stdout) as { pid: number; vaults: Array<{ name: string }> };
    expect(restJson.vaults.map((v) => v.name)).toEqual(['work']);
    expect((await runJson<StatusJson>(['--vault', work, 'status'])).daemon.pid).toBe(restJson.pid);
    const stopped = await runJson<{ vaults: Array<{ name: string; pid?: number }> }>(['daemon', 'stop', '--all'], options);
    stopAll = null;
    expect(stopped.vaults.map((v) => [v.name, v.pid])).toEqual([
      ['work', restJson.pid],
      ['home', started.pid],
    ]);
  });
});
