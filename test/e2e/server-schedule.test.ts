/**
 * Recurring dreams and digests on the server's queue (issue 28): with VAULTKEEPER_DREAM_EVERY_S and
 * VAULTKEEPER_DIGEST_EVERY_S set, every vault dreams and writes its digests on its own, as start-after times on the
 * real pg-boss queue; a run missed while no worker ran is taken once at the next poll, and the next one is due an
 * interval after that, not a pile of missed runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresMissing, startPostgres, type Postgres } from '../helpers/postgres.js';
import { createToken, serverCli, serverEnv, startServerProcess, startWorkerProcess, type ServerProcess } from '../helpers/vk-server.js';

const missing = postgresMissing();
if (missing !== null) console.warn(`skipping server schedule tests: ${missing}`);

const EVERY_S = 4;

interface Row {
  name: string;
  state: string;
  singleton_key: string | null;
  start_after: Date;
  started_on: Date | null;
  created_on: Date;
}

describe.skipIf(missing !== null)('vaultkeeper server schedules', () => {
  let pgServer: Postgres;
  let dir: string;
  let env: Record<string, string>;
  let api: ServerProcess;
  let client: pg.Client;
  const workers: ServerProcess[] = [];
  const cli = serverCli(() => env);

  const jobs = async (name: string): Promise<Row[]> =>
    (
      await client.query<Row>(
        `SELECT name, state, singleton_key, start_after, started_on, created_on FROM pgboss.job WHERE name = $1
         UNION ALL SELECT name, state, singleton_key, start_after, started_on, created_on FROM pgboss.archive WHERE name = $1 ORDER BY created_on`,
        [name],
      )
    ).rows;
  const waitFor = async <T>(what: string, probe: () => Promise<T | null>, ms = 90_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = await probe();
      if (value !== null) return value;
      if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms / 1000} s\n${workers.map((w) => w.log()).join('\n')}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  beforeAll(async () => {
    pgServer = await startPostgres();
    dir = mkdtempSync(path.join(tmpdir(), 'vk-server-schedule-'));
    // A dream left running by a stopped worker holds its vault's slot until it expires (90 s here), then the waiting
    // one runs: longer than any dream on a loaded machine, short enough for the test.
    env = serverEnv(dir, pgServer.url, { VAULTKEEPER_DREAM_EVERY_S: String(EVERY_S), VAULTKEEPER_DIGEST_EVERY_S: String(EVERY_S), VAULTKEEPER_JOB_EXPIRE_S: '90', VAULTKEEPER_JOB_RETRY_DELAY_S: '1' });
    await cli(['server', 'vault', 'create', 'notes', '--tenant', 'ana']);
    const token = await createToken(cli, ['--tenant', 'ana', '--scope', 'read,write']);
    api = await startServerProcess(env, ['--no-workers']);
    const date = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    const res = await fetch(`${api.url}/v1/vaults/notes/remember`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ facts: [{ text: 'Ana planted tomatoes in the garden', category: 'moment', date }] }),
    });
    expect(res.status).toBe(200);
    client = new pg.Client({ connectionString: pgServer.url });
    await client.connect();
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    await Promise.all(workers.map((w) => w.stop()));
    await api?.stop();
    await pgServer?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('dreams and writes digests on schedule, without being asked, one interval apart', async () => {
    const worker = await startWorkerProcess(env);
    workers.push(worker);
    // Two scheduled dreams queued (one or both run) and two digests run, and no one posted /dream. (A dream may
    // take tens of seconds on a loaded machine: while one runs, the next waits, one per vault.)
    const dreams = await waitFor('two scheduled dreams', async () => {
      const all = await jobs('vk-dream');
      return all.length >= 2 && all.some((j) => j.state === 'completed') ? all : null;
    }, 150_000);
    await waitFor('two scheduled digests', async () => ((await jobs('vk-digest')).filter((j) => j.state === 'completed').length >= 2 ? true : null), 150_000);
    // Never two digests of the vault at once.
    const digests = await client.query<{ started_on: Date; completed_on: Date }>(
      `SELECT started_on, completed_on FROM pgboss.job WHERE name = 'vk-digest' AND state = 'completed' ORDER BY started_on`,
    );
    for (let i = 1; i < digests.rows.length; i++) expect(digests.rows[i]!.started_on.getTime()).toBeGreaterThanOrEqual(digests.rows[i - 1]!.completed_on.getTime());
    const gap = dreams[1]!.created_on.getTime() - dreams[0]!.created_on.getTime();
    expect(gap).toBeGreaterThanOrEqual(EVERY_S * 1000 - 1500);
    // One tick waits per vault and kind, due in the future.
    const ticks = (await jobs('vk-schedule')).filter((j) => j.state === 'created');
    expect(ticks.map((t) => t.singleton_key).sort()).toEqual(['digest:1', 'dream:1']);
    for (const tick of ticks) expect(tick.start_after.getTime()).toBeGreaterThan(Date.now() - 2000);
    await worker.stop();
    workers.length = 0;
  }, 330_000);

  it('takes a run missed while no worker ran at the next poll, once, and schedules the next an interval later', async () => {
    const tick = await waitFor('the waiting dream tick', async () => (await jobs('vk-schedule')).find((j) => j.state === 'created' && j.singleton_key === 'dream:1') ?? null);
    // No worker runs for three intervals: three runs are missed.
    const missedUntil = tick.start_after.getTime() + 3 * EVERY_S * 1000;
    await new Promise((r) => setTimeout(r, Math.max(0, missedUntil - Date.now())));
    const completedBefore = (await jobs('vk-dream')).filter((j) => j.state === 'completed').length;
    const started = Date.now();
    const worker = await startWorkerProcess(env);
    workers.push(worker);
    const taken = await waitFor('the missed tick taken', async () => {
      const row = (await jobs('vk-schedule')).find((j) => j.singleton_key === 'dream:1' && j.start_after.getTime() === tick.start_after.getTime() && j.started_on !== null);
      return row ?? null;
    });
    // At the next poll of the new worker (its start and a poll of 1 s, on a loaded machine: a few seconds).
    expect(taken.started_on!.getTime() - started).toBeLessThan(15_000);
    const next = await waitFor('the next dream tick', async () => (await jobs('vk-schedule')).find((j) => j.state === 'created' && j.singleton_key === 'dream:1' && j.start_after > tick.start_after) ?? null);
    // Due an interval after it was taken, not back-to-back catch-ups of the missed ones.
    expect(next.start_after.getTime()).toBeGreaterThanOrEqual(taken.started_on!.getTime() + EVERY_S * 1000 - 1000);
    // The missed run dreams (the job it queued, or the one of this vault already waiting, which it joins).
    await waitFor('the missed dream run', async () => ((await jobs('vk-dream')).filter((j) => j.state === 'completed').length > completedBefore ? true : null), 300_000);
    // At most one dream queued for the missed runs, however many intervals passed.
    expect((await jobs('vk-dream')).filter((j) => j.created_on.getTime() >= started && j.created_on.getTime() < next.start_after.getTime() - 500).length).toBeLessThanOrEqual(1);
  }, 480_000);
});
