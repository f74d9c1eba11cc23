// A worker that hangs mid-dream (SIGSTOP: not killed, so its connections stay open and its advisory lock stays
// held) must not keep the vault from dreaming for ever, and when it runs again (SIGCONT) its stale dream must not
// reach the canonical copy over the newer one. Two workers with working copies of their own (two hosts): the first
// is stopped while the model answers its dream; the second is refused while PostgreSQL still sees the first's lease
// session, then, once PostgreSQL ended that session for its silence (idle_session_timeout, lease.ts), dreams and
// pushes. Continued, the first finds its lease gone: it undoes its run and pushes nothing.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { postgresMissing, startPostgres, type Postgres } from '../helpers/postgres.js';
import { createToken, pointAtModel, serverCli, serverEnv, startServerProcess, startWorkerProcess, type ServerProcess } from '../helpers/vk-server.js';

const missing = postgresMissing();
if (missing !== null) console.warn(`skipping the hung worker test: ${missing}`);

const LEASE_TIMEOUT_S = 10;

const waitFor = async (what: () => boolean, ms: number): Promise<boolean> => {
  const deadline = Date.now() + ms;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  return what();
};

describe.skipIf(missing !== null)('a worker hung mid-dream', () => {
  let pgServer: Postgres;
  let llm: FakeLlm;
  let dir: string;
  let env: Record<string, string>;
  let token: string;
  const processes: ServerProcess[] = [];
  const cli = serverCli(() => env);

  beforeAll(async () => {
    pgServer = await startPostgres();
    // Every call takes half a second and asks for no tool: a dream of many seconds.
    llm = await startFakeLlm([], { fallback: { text: 'Nothing to do.', delayMs: 500 } });
    dir = mkdtempSync(path.join(tmpdir(), 'vk-server-hang-'));
    // The job expires (3 s) well before the stopped worker's lease session is ended (10 s): the retry meets the lease.
    env = serverEnv(dir, pgServer.url, {
      VAULTKEEPER_JOB_EXPIRE_S: '3',
      VAULTKEEPER_JOB_RETRY_DELAY_S: '1',
      VAULTKEEPER_JOB_RETRY_LIMIT: '10',
      VAULTKEEPER_JOB_LEASE_TIMEOUT_S: String(LEASE_TIMEOUT_S),
    });
    await cli(['server', 'vault', 'create', 'notes', '--tenant', 'ana']);
    token = await createToken(cli, ['--tenant', 'ana', '--scope', 'read,write']);
    pointAtModel(path.join(dir, 'data', 'vaults', 'ana', 'notes'), llm.baseUrl, { push: true });
  }, 120_000);

  afterAll(async () => {
    for (const p of processes) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGCONT');
      await p.stop();
    }
    await llm?.close();
    await pgServer?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('loses its lease to another host, and once continued undoes its dream and pushes nothing', async () => {
    const server = await startServerProcess(env, ['--no-workers']);
    processes.push(server);
    const call = async (method: string, url: string, body?: unknown): Promise<void> => {
      const res = await fetch(`${server.url}/v1/vaults/notes/${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    };
    await call('POST', 'remember', { facts: [{ text: 'Ana planted tomatoes in the garden', category: 'moment', date: '2026-03-02' }] });
    await call('POST', 'dream', { force: true });

    const hung = await startWorkerProcess(env, ['--concurrency', '1']);
    processes.push(hung);
    expect(await waitFor(() => llm.requests.length > 0, 60_000), hung.log()).toBe(true);
    hung.child.kill('SIGSTOP');
    const stoppedAt = llm.requests.length;

    const other = await startWorkerProcess({ ...env, VAULTKEEPER_SERVER_DATA: path.join(dir, 'data-other-host') }, ['--concurrency', '1']);
    processes.push(other);
    const logs = (): string => `--- hung:\n${hung.log()}\n--- other:\n${other.log()}`;
    // The other host dreams and pushes while the first is still stopped.
    expect(await waitFor(() => /job dream \S+ done in/.test(other.log()), 200_000), logs()).toBe(true);
    // It was kept off while PostgreSQL still saw the stopped worker's lease session.
    expect(other.log(), logs()).toMatch(/job dream \S+ refused: another attempt holds the vault/);
    expect(hung.log(), logs()).not.toMatch(/job dream \S+ done in|lease was lost/);
    const remote = path.join(dir, 'remotes', 'ana', 'notes.git');
    const git = (...args: string[]): string => execFileSync('git', ['--git-dir', remote, ...args], { encoding: 'utf8' });
    const newer = git('rev-parse', 'main').trim();
    const runsOnRemote = (): string[] => [...git('log', '--format=%B', 'main').matchAll(/^Vaultkeeper-Run: (\S+)$/gm)].map((m) => m[1]!);
    expect(runsOnRemote().length, logs()).toBeGreaterThan(0);

    // Continued, the stale attempt goes on with its dream, then finds its lease gone.
    hung.child.kill('SIGCONT');
    expect(await waitFor(() => /lease was lost/.test(hung.log()), 200_000), logs()).toBe(true);
    // Held still from here: its next job would sync this copy (a merge that keeps the newer dream) and spoil the checks.
    hung.child.kill('SIGKILL');
    expect(llm.requests.length).toBeGreaterThan(stoppedAt);
    const stale = /its run (\S+) undone, nothing pushed/.exec(hung.log());
    expect(stale, logs()).not.toBeNull();
    // Nothing of it reached the remote, whose history still holds the newer dream.
    expect(runsOnRemote(), logs()).not.toContain(stale![1]);
    expect(spawnSync('git', ['--git-dir', remote, 'merge-base', '--is-ancestor', newer, 'main']).status).toBe(0);
    // And git itself would refuse the stale commit over the newer one: a plain push is not a fast-forward. The stale
    // run's own commit, found by its trailer among everything the copy has held (its HEAD may have moved on: under
    // load the worker can take its next job, a sync, before the kill above lands).
    const copy = path.join(dir, 'data', 'vaults', 'ana', 'notes');
    const staleCommit = execFileSync('git', ['-C', copy, 'log', '--reflog', '--all', '--format=%H', '--fixed-strings', `--grep=Vaultkeeper-Run: ${stale![1]}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .at(-1)!;
    expect(staleCommit, logs()).toMatch(/^[0-9a-f]{40}$/);
    const push = spawnSync('git', ['-C', copy, 'push', 'origin', `${staleCommit}:refs/heads/main`], { encoding: 'utf8' });
    expect(push.status, push.stderr).not.toBe(0);
    expect(push.stderr).toMatch(/rejected/);
    expect(spawnSync('git', ['--git-dir', remote, 'merge-base', '--is-ancestor', newer, 'main']).status).toBe(0);
  }, 420_000);
});
