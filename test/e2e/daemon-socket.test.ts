/**
 * Search answered warm (DESIGN §10): with the daemon running, `search` and `status` are answered over
 * the socket in .vaultkeeper/run/ with the same output as in process; without it, or with a socket
 * that cannot be trusted, the CLI answers in process.
 */
import { spawn } from 'node:child_process';
import { appendFile, chmod, chown, lstat, readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCli, runJson, type CliResult } from '../helpers/cli.js';
import { until as poll, useDaemons } from '../helpers/daemon.js';
import { runListingModules } from '../helpers/module-list.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const daemons = useDaemons(tempDir);
const vault = (): Promise<string> =>
  daemons.vault([
    ['Prefers dark roast coffee', '-t', 'coffee', '--date', '2026-06-01'],
    ['Learning Portuguese on Tuesdays', '-t', 'languages', '--date', '2026-06-02'],
    ['Coffee with Ana every Friday', '--date', '2026-06-03'],
  ]);
const startDaemon = async (root: string): Promise<number> => (await daemons.start(root)).pid;

const search = (root: string, ...args: string[]): Promise<CliResult> => runCli(['--vault', root, 'search', ...args, '--json', '--debug']);

/** Every probe here returns an object or null, so the shared poll's truthiness test is the same as `!== null`. */
const until = <T>(probe: () => Promise<T | null>, what: string, timeoutMs = 30_000): Promise<T> => poll(probe, what, timeoutMs, 100);

const inProcess = (root: string, ...args: string[]): Promise<CliResult> =>
  runCli(['--vault', root, 'search', ...args, '--json', '--debug'], { env: { VAULTKEEPER_NO_DAEMON: '1' } });

/**
 * The daemon's answer and the in-process answer, asked back to back while the vault holds still. Scores
 * depend on the whole index, and a daemon's first jobs (MEMORY.md, the dashboard) legitimately add rows,
 * so the two are compared only when the daemon answered the same before and after the in-process search.
 */
async function bothWays(root: string, ...args: string[]): Promise<{ daemon: string; local: string }> {
  return until(async () => {
    const before = await search(root, ...args);
    const local = await inProcess(root, ...args);
    const after = await search(root, ...args);
    expect(before.stderr).toContain('answered by the daemon');
    expect(local.stderr).toContain('VAULTKEEPER_NO_DAEMON=1');
    return before.stdout === after.stdout ? { daemon: before.stdout, local: local.stdout } : null;
  }, 'the vault to hold still', 120_000);
}

/** The first search the daemon answers (it serves once its catch-up pass is done). */
async function warm(root: string, ...args: string[]): Promise<CliResult> {
  return until(async () => {
    const out = await search(root, ...args);
    return out.stderr.includes('answered by the daemon') ? out : null;
  }, 'the daemon to answer');
}

// Many CLI runs per test on a shared 2-core machine: generous time limits (what is timed is asserted explicitly).
describe('the daemon query socket', { timeout: 240_000 }, () => {
  it('answers search and status with the same output as in process, from a private socket', async () => {
    const root = await vault();
    const cold = await search(root, 'coffee');
    expect(cold.code).toBe(0);
    expect(cold.stderr).toContain('no daemon socket');
    const coldFiltered = await search(root, 'coffee', '--since', '2026-06-02', '-k', '1');
    const coldText = await runCli(['--vault', root, 'search', 'coffee']);

    await startDaemon(root);
    await warm(root, 'coffee');
    const plain = await bothWays(root, 'coffee');
    expect(plain.daemon).toBe(plain.local);
    // The same facts as before the daemon started (scores may differ: its first jobs add rows to the index).
    const ids = (stdout: string): string[] => (JSON.parse(stdout) as { results: { id: string }[] }).results.map((r) => r.id);
    expect(ids(plain.daemon)).toEqual(ids(cold.stdout));
    expect(ids(plain.daemon).length).toBe(2);
    const filtered = await bothWays(root, 'coffee', '--since', '2026-06-02', '-k', '1');
    expect(filtered.daemon).toBe(filtered.local);
    expect(ids(filtered.daemon)).toEqual(ids(coldFiltered.stdout));
    const text = await runCli(['--vault', root, 'search', 'coffee']);
    const textLocal = await runCli(['--vault', root, 'search', 'coffee'], { env: { VAULTKEEPER_NO_DAEMON: '1' } });
    expect(text.stdout).toBe(textLocal.stdout);
    expect(coldText.stdout).toContain('Prefers dark roast coffee');

    // A usage error found by the daemon is reported as in process: one line, exit 2.
    const bad = await runCli(['--vault', root, 'search', 'coffee', '--since', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^vaultkeeper: --since must be a date YYYY-MM-DD/);

    const socket = path.join(root, '.vaultkeeper/run/daemon.sock');
    expect((await lstat(socket)).isSocket()).toBe(true);
    expect((await lstat(socket)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(socket))).mode & 0o777).toBe(0o700);

    const status = await runJson<{ vault: string; daemon: { running: boolean } }>(['--vault', root, 'status']);
    expect(status.vault).toBe(root);
    expect(status.daemon.running).toBe(true);
  });

  it('makes an appended fact searchable through the daemon within 2 s', async () => {
    const root = await vault();
    await startDaemon(root);
    await warm(root, 'coffee');
    const log = path.join(root, 'logs/2026-06-03.md');
    const appended = Date.now();
    await appendFile(log, '\n## 10:00 · test\n- [fact] Owns a red kayak named Otter\n');
    // The daemon's own record of when its watcher indexed the append (alone, or in one pass with the daemon's own
    // first writes: the dashboard, MEMORY.md): the CLI's start-up is not part of freshness.
    const indexedAt = await until(async () => {
      const text = await readFile(path.join(root, '.vaultkeeper/daemon.log'), 'utf8');
      const entry = text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { at: string; msg?: string; message?: string })
        .find((e) => Date.parse(e.at) >= appended - 1_000 && /^indexed (?:\d+ changes: )?(?:.*, )?logs\/2026-06-03\.md(?:,|$)/.test(e.msg ?? e.message ?? ''));
      return entry === undefined ? null : Date.parse(entry.at);
    }, 'the watcher to index the append');
    expect(indexedAt - appended).toBeLessThanOrEqual(2_000);
    const found = await search(root, 'kayak');
    expect(found.stderr).toContain('answered by the daemon');
    expect(JSON.parse(found.stdout).results[0].text).toBe('Owns a red kayak named Otter');
  });

  it('falls back to searching in process when the daemon is stopped, and the socket goes with it', async () => {
    const root = await vault();
    await startDaemon(root);
    await warm(root, 'portuguese');
    const { daemon: hot } = await bothWays(root, 'portuguese');
    await runJson(['--vault', root, 'daemon', 'stop']);
    const cold = await search(root, 'portuguese');
    expect(cold.code).toBe(0);
    expect(cold.stderr).toContain('no daemon socket');
    expect(cold.stdout).toBe(hot);
  });

  it('refuses a socket with loose permissions or another owner', async () => {
    const root = await vault();
    await startDaemon(root);
    await warm(root, 'coffee');
    const socket = path.join(root, '.vaultkeeper/run/daemon.sock');

    const { daemon: settled } = await bothWays(root, 'coffee');
    await chmod(socket, 0o666);
    const loose = await search(root, 'coffee');
    expect(loose.stderr).toMatch(/not using the daemon socket: .*open to other users \(mode 666\)/);
    expect(loose.stderr).not.toContain('answered by the daemon');
    expect(loose.stdout).toBe(settled);
    await chmod(socket, 0o600);

    await chmod(path.dirname(socket), 0o755);
    expect((await search(root, 'coffee')).stderr).toMatch(/not using the daemon socket: .*run is open to other users/);
    await chmod(path.dirname(socket), 0o700);

    if (process.getuid?.() === 0) {
      await chown(socket, 65534, 65534);
      const foreign = await search(root, 'coffee');
      expect(foreign.stderr).toMatch(/not using the daemon socket: .*belongs to another user \(uid 65534\)/);
      expect(foreign.stdout).toBe(settled);
      await chown(socket, 0, 0);
    }
    expect((await search(root, 'coffee')).stderr).toContain('answered by the daemon');
  }, 240_000);

  it('falls back past a socket left by a crash, and the next daemon replaces it', async () => {
    const root = await vault();
    const cold = await search(root, 'coffee');
    // A process that listened on the socket and was killed leaves the socket file behind, answering nobody.
    const socket = path.join(root, '.vaultkeeper/run/daemon.sock');
    const script = `const fs=require('fs');fs.mkdirSync(${JSON.stringify(path.dirname(socket))},{recursive:true,mode:0o700});require('net').createServer().listen(${JSON.stringify(socket)},()=>{fs.chmodSync(${JSON.stringify(socket)},0o600);console.log('up')})`;
    const crashed = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => crashed.stdout.once('data', resolve));
    crashed.kill('SIGKILL');
    await new Promise((resolve) => crashed.once('exit', resolve));
    expect((await lstat(socket)).isSocket()).toBe(true);

    const stale = await search(root, 'coffee');
    expect(stale.code).toBe(0);
    expect(stale.stderr).toMatch(/the daemon did not answer: .*ECONNREFUSED/);
    expect(stale.stdout).toBe(cold.stdout);

    await startDaemon(root);
    await warm(root, 'coffee');
    // Compared once the daemon's first jobs have settled: they may add rows, which moves every score.
    const { daemon, local } = await bothWays(root, 'coffee');
    expect(daemon).toBe(local);
  });

  it('loads only the search command\'s chunk for a search the daemon answers: not the in-process one, LanceDB or node:crypto', async () => {
    const root = await vault();
    await startDaemon(root);
    await warm(root, 'coffee');
    const dir = await tempDir();
    const run = await runListingModules(CLI, ['--vault', root, 'search', 'coffee', '--json'], dir, path.join(dir, 'modules.txt'));
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { results: unknown[] }).results.length).toBe(2);
    // The in-process search chunk is the one holding the Vault facade's search (scripts/bundle-cli.mjs).
    const bin = path.dirname(CLI);
    const chunks: string[] = [];
    for (const name of (await readdir(bin)).filter((n) => n.endsWith('.js'))) if ((await readFile(path.join(bin, name), 'utf8')).includes('searchIfUnchanged(')) chunks.push(name);
    expect(chunks.length).toBe(1);
    expect(run.loaded.some((url) => /\/search-command-[\w-]+\.js$/.test(url))).toBe(true);
    expect(run.loaded.filter((url) => url.endsWith(`/${chunks[0]}`) || url.includes('/node_modules/') || url === 'node:crypto')).toEqual([]);
  });
});
