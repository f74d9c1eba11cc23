/**
 * The server's LLM limits (issue 28): a tenant over its daily cap dreams offline without one call to the model, as on
 * one machine; another tenant's dream calls the model, and its spend is metered to it in Postgres. The server runs
 * with its workers in the same process here (the default, without --no-workers).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { postgresMissing, startPostgres, type Postgres } from '../helpers/postgres.js';
import { createToken, jobOutcome, pointAtModel, serverCli, serverEnv, startServerProcess, type JobView, type ServerProcess } from '../helpers/vk-server.js';

const missing = postgresMissing();
if (missing !== null) console.warn(`skipping server cap tests: ${missing}`);

interface JobState {
  state: string;
  output: { status?: string; consolidator?: string | null; fallback?: string | null } | null;
}

describe.skipIf(missing !== null)('vaultkeeper server LLM caps', () => {
  let pgServer: Postgres;
  let llm: FakeLlm;
  let dir: string;
  let env: Record<string, string>;
  let server: ServerProcess;
  const tokens: Record<string, string> = {};

  const cli = serverCli(() => env);
  const call = async (tenant: string, method: string, url: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${server.url}/v1/vaults/notes/${url}`, {
      method,
      headers: { authorization: `Bearer ${tokens[tenant]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const dream = async (tenant: string): Promise<JobState> => {
    await call(tenant, 'POST', 'remember', { facts: [{ text: `${tenant} planted tomatoes in the garden`, category: 'moment', date: '2026-03-02' }] });
    const { job } = (await call(tenant, 'POST', 'dream', { force: true })) as { job: string };
    return (await jobOutcome(async (id) => (await call(tenant, 'GET', `jobs/${id}`)) as JobView, job, 90_000, () => server.log())) as JobState;
  };

  beforeAll(async () => {
    pgServer = await startPostgres();
    // The model answers every call with a short text and no tool call: the agent's dream then falls back offline,
    // after calls that each report 100 + 10 tokens.
    llm = await startFakeLlm([], { fallback: { text: 'Nothing to do.', usage: { prompt_tokens: 100, completion_tokens: 10 } } });
    dir = mkdtempSync(path.join(tmpdir(), 'vk-server-caps-'));
    env = serverEnv(dir, pgServer.url);
    for (const tenant of ['ana', 'bob']) {
      await cli(['server', 'vault', 'create', 'notes', '--tenant', tenant]);
      tokens[tenant] = await createToken(cli, ['--tenant', tenant, '--scope', 'read,write']);
      pointAtModel(path.join(dir, 'data', 'vaults', tenant, 'notes'), llm.baseUrl);
    }
    await cli(['server', 'tenant', 'ana', '--tokens-per-day', '0']);
    server = await startServerProcess(env);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await llm?.close();
    await pgServer?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('dreams offline for a tenant over its daily cap, without calling the model', async () => {
    const done = await dream('ana');
    expect(done.state, JSON.stringify(done)).toBe('completed');
    expect(done.output).toMatchObject({ status: 'ok', consolidator: 'offline' });
    expect(done.output?.fallback ?? '').toMatch(/cap/);
    expect(llm.requests).toHaveLength(0);
    const usage = JSON.parse(await cli(['server', 'tenant', 'ana', '--json'])) as { caps: { tokens_per_day: number }; today: { calls: number } };
    expect(usage).toMatchObject({ caps: { tokens_per_day: 0 }, today: { calls: 0 } });
  }, 120_000);

  it('meters the calls of a tenant under its cap to that tenant', async () => {
    const done = await dream('bob');
    expect(done.state, JSON.stringify(done)).toBe('completed');
    expect(llm.requests.length).toBeGreaterThan(0);
    const usage = JSON.parse(await cli(['server', 'tenant', 'bob', '--json'])) as { today: { calls: number; total_tokens: number } };
    expect(usage.today.calls).toBe(llm.requests.length);
    expect(usage.today.total_tokens).toBe(110 * llm.requests.length);
    const ana = JSON.parse(await cli(['server', 'tenant', 'ana', '--json'])) as { today: { calls: number } };
    expect(ana.today.calls).toBe(0);
  }, 120_000);
});
