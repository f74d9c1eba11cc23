// A dream that outlives its job's expiry is retried by the queue beside the attempt still running (pg-boss has no
// heartbeat; issue 28's load run saw one vault dream twice at once). Two workers with working copies of their own
// (two hosts) share one queue: the retry lands on the second while the first still dreams, and the job lease
// (src/server/lease.ts, a PostgreSQL advisory lock per kind and vault) must refuse it, so the model never
// answers two dreams of the vault at once. A refused retry does not spend the job's retry limit (a limit of 1 here):
// it is re-queued for later, so no dream job ends `failed` because another attempt was doing the work.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { postgresMissing, startPostgres, type Postgres } from '../helpers/postgres.js';
import { createToken, pointAtModel, serverCli, serverEnv, startServerProcess, startWorkerProcess, type ServerProcess } from '../helpers/vk-server.js';

const missing = postgresMissing();
if (missing !== null) console.warn(`skipping the job lease test: ${missing}`);

describe.skipIf(missing !== null)('a dream retried past its expiry', () => {
  let pgServer: Postgres;
  let llm: FakeLlm;
  let dir: string;
  let env: Record<string, string>;
  let token: string;
  const processes: ServerProcess[] = [];
  const cli = serverCli(() => env);

  beforeAll(async () => {
    pgServer = await startPostgres();
    // Every call takes half a second and asks for no tool: the agent's dream makes its calls, then falls back
    // offline, for many seconds in all — far past the 8 s expiry below (which a no-op dream, found when a re-queued job runs, stays within).
    llm = await startFakeLlm([], { fallback: { text: 'Nothing to do.', delayMs: 500 } });
    dir = mkdtempSync(path.join(tmpdir(), 'vk-server-lease-'));
    env = serverEnv(dir, pgServer.url, { VAULTKEEPER_JOB_EXPIRE_S: '8', VAULTKEEPER_JOB_RETRY_DELAY_S: '1', VAULTKEEPER_JOB_RETRY_LIMIT: '1' });
    await cli(['server', 'vault', 'create', 'notes', '--tenant', 'ana']);
    token = await createToken(cli, ['--tenant', 'ana', '--scope', 'read,write']);
    // The canonical copy holds the setting too, so the other host's clone dreams with the model.
    pointAtModel(path.join(dir, 'data', 'vaults', 'ana', 'notes'), llm.baseUrl, { push: true });
  }, 120_000);

  afterAll(async () => {
    for (const p of processes) await p.stop();
    await llm?.close();
    await pgServer?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is refused on the other host while the first attempt runs, and the model never serves two dreams at once', async () => {
    const server = await startServerProcess(env, ['--no-workers']);
    processes.push(server);
    const call = async (method: string, url: string, body?: unknown): Promise<Record<string, unknown>> => {
      const res = await fetch(`${server.url}/v1/vaults/notes/${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, unknown>;
    };
    await call('POST', 'remember', { facts: [{ text: 'Ana planted tomatoes in the garden', category: 'moment', date: '2026-03-02' }] });
    await call('POST', 'dream', { force: true });

    const first = await startWorkerProcess(env, ['--concurrency', '1']);
    processes.push(first);
    // The first attempt is under way (the model has its first call) before the other host starts polling.
    const started = Date.now();
    while (llm.requests.length === 0 && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 100));
    expect(llm.requests.length, first.log()).toBeGreaterThan(0);
    // The dream job holds its working copy's job lock (worker.ts) while it runs: no other job of this host touches the
    // copy, so none can push a dream whose lease passed on before the job's own check undoes it (server-hang.test.ts).
    const copyLock = path.join(dir, 'data', 'vaults', 'ana', 'notes', '.vaultkeeper', 'locks', 'job.owner');
    expect((JSON.parse(readFileSync(copyLock, 'utf8')) as { pid: number }).pid, first.log()).toBe(first.child.pid);
    const other = await startWorkerProcess({ ...env, VAULTKEEPER_SERVER_DATA: path.join(dir, 'data-other-host') }, ['--concurrency', '1']);
    processes.push(other);

    // The first attempt ends (its dream committed and pushed).
    const deadline = Date.now() + 150_000;
    while (!/job dream \S+ done in/.test(first.log()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    const logs = `${first.log()}\n${other.log()}`;
    expect(first.log(), logs).toMatch(/job dream \S+ done in/);
    const subjects = execFileSync('git', ['--git-dir', path.join(dir, 'remotes', 'ana', 'notes.git'), 'log', '--format=%s', 'main'], { encoding: 'utf8' });
    expect(subjects, logs).toMatch(/^dream/m);
    expect(llm.peakInFlight, logs).toBe(1);
    // The retry did reach the other host while the first attempt ran, and was refused there.
    expect(other.log()).toMatch(/job dream \S+ refused: another attempt holds the vault; re-queued as/);

    // Every dream and sync job settles (the re-queued dreams find the vault dreamt: a forced dream with nothing
    // pending is a no-op) and none ends `failed`, though the retry limit (1) is smaller than the refusals.
    const db = new pg.Client({ connectionString: pgServer.url });
    await db.connect();
    try {
      let states: Array<{ name: string; state: string; n: number }> = [];
      const settle = Date.now() + 150_000;
      for (;;) {
        states = (await db.query<{ name: string; state: string; n: number }>(`SELECT name, state, count(*)::int AS n FROM pgboss.job WHERE name IN ('vk-dream', 'vk-sync') GROUP BY name, state ORDER BY name, state`)).rows;
        if (!states.some((r) => ['created', 'retry', 'active'].includes(r.state)) || Date.now() > settle) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      const all = `${JSON.stringify(states)}\n${first.log()}\n${other.log()}`;
      expect(states.filter((r) => r.name === 'vk-dream').map((r) => r.state), all).toEqual(['completed']);
      expect(states.filter((r) => r.state !== 'completed'), all).toEqual([]);
      expect(states.find((r) => r.name === 'vk-dream')!.n, all).toBeGreaterThan(1);
    } finally {
      await db.end();
    }
  }, 360_000);
});
