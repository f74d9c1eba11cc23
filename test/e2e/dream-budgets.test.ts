/**
 * Budgets and outages never cost a day, and skipped days come back (issue 26, deliverables 2 and 3). Through
 * the built CLI against a scripted OpenAI-compatible model on 127.0.0.1: a per-run and a per-day token cap, an
 * outage mid-run (HTTP 500, a closed connection) and a model that hangs past dream.timeout_s fall back offline
 * or wait, never count toward dream.max_retries (1 here, so one counted failure would skip the day) and never
 * skip a day. On the library's clock (`now`): a failed or waiting run is tried again after the backoff, not
 * after min_hours; a day given up is listed with its reason, takes late facts like any other day, and comes
 * back with `dream --retry-skipped`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../src/dream/journal.js';
import type { DreamState } from '../../src/dream/state.js';
import { retrySkippedDays } from '../../src/daemon/jobs/retry-skipped.js';
import { runCli } from '../helpers/cli.js';
import { call, tools, useFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { git, gitStatus, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const startLlm = useFakeLlm();

const D1 = '2025-06-01';
const D2 = '2025-06-02';
const LOGS = {
  [`logs/${D1}.md`]: `# ${D1}\n\n## 09:00 · cli\n- [preference] Prefers dark roast coffee #coffee ^f-aaaaaaaaa1\n`,
  [`logs/${D2}.md`]: `# ${D2}\n\n## 09:00 · cli\n- [fact] Plays the cello #music ^f-aaaaaaaaa2\n`,
};

interface DreamJson {
  status: string;
  reason: string;
  consolidator: string | null;
  fallback: string | null;
  retry_at?: string;
  retried?: string[];
  batch: { from: string; to: string } | null;
  watermark: { before: string | null; after: string | null };
}

async function cliVault(config: string): Promise<string> {
  const root = await initVault(await tempDir());
  await writeTree(root, { ...LOGS, '.vaultkeeper/config.yaml': `timezone: UTC\nindex:\n  embedder: none\n${config}` });
  await git(root, ['add', '--all']);
  await git(root, ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', '-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'logs']);
  return root;
}

async function dream(root: string, env: Record<string, string>, args: string[] = ['--force']): Promise<DreamJson> {
  const result = await runCli(['--vault', root, 'dream', ...args, '--json'], { env, timeoutMs: 120_000 });
  const run = JSON.parse(result.stdout) as DreamJson;
  expect(result.code, result.stderr).toBe(run.status === 'failed' ? 1 : 0);
  return run;
}

const llmEnv = (server: FakeLlm): Record<string, string> => ({ VAULTKEEPER_LLM_BASE_URL: server.baseUrl, VAULTKEEPER_LLM_MODEL: 'fake-model' });
const readState = async (root: string): Promise<DreamState> => (JSON.parse(await readFile(path.join(root, '.vaultkeeper/state.json'), 'utf8')) as { dream: DreamState }).dream;

/** Nothing counted toward max_retries, no day skipped, nothing left uncommitted. */
async function expectNoDayLost(root: string): Promise<void> {
  expect((await readState(root)).failures).toEqual({});
  expect((await readJournal(root)).skipped.size).toBe(0);
  expect(await readFile(path.join(root, 'log.md'), 'utf8').catch(() => '')).not.toMatch(/ · skipped=/);
  expect(await gitStatus(root)).toEqual([]);
}

describe('caps, outages and a hanging model with llm.fallback: offline', { timeout: 300_000 }, () => {
  it('a per-run token cap: the run completes offline, no failure counted', async () => {
    const server = await startLlm([tools(call('read_log', { date: D1 }))]);
    const root = await cliVault('llm:\n  max_tokens_per_run: 200\ndream:\n  max_retries: 1\n');
    const run = await dream(root, llmEnv(server));
    expect(run).toMatchObject({ status: 'ok', consolidator: 'offline', watermark: { after: D2 } });
    expect(run.fallback).toMatch(/^the LLM cannot be used \(the dream agent used its token budget \(\d+ of llm\.max_tokens_per_run = 200\)/);
    expect(server.requests).toHaveLength(1);
    await expectNoDayLost(root);
    expect((await readState(root)).last_status).toBe('ok');
  });

  it('a per-day token cap: the run completes offline, and so does the next one, without asking the model', async () => {
    const server = await startLlm([tools(call('read_log', { date: D1 }))]);
    const root = await cliVault('llm:\n  max_tokens_per_day: 100\ndream:\n  max_retries: 1\n');
    const run = await dream(root, llmEnv(server));
    expect(run).toMatchObject({ status: 'ok', consolidator: 'offline', watermark: { after: D2 } });
    expect(run.fallback).toMatch(/the daily LLM token cap is reached: \d+ tokens used today of llm\.max_tokens_per_day = 100/);
    await expectNoDayLost(root);

    // A later fact, another run the same day: refused before any call, offline again.
    await writeFile(path.join(root, `logs/${D2}.md`), `${LOGS[`logs/${D2}.md`]}- [fact] Bought a cello case #music ^f-aaaaaaaaa3\n`);
    const again = await dream(root, llmEnv(server));
    expect(again).toMatchObject({ status: 'ok', consolidator: 'offline', fallback: expect.stringMatching(/daily LLM token cap/) });
    expect(server.requests).toHaveLength(1);
    await expectNoDayLost(root);
  });

  it('an outage mid-run (HTTP 500 after the first turn): the run completes offline', async () => {
    const server = await startLlm([tools(call('read_log', { date: D1 }))], { fallback: { status: 500, message: 'the model fell over' } });
    const root = await cliVault('llm:\n  max_attempts: 2\ndream:\n  max_retries: 1\n');
    const run = await dream(root, llmEnv(server));
    expect(run).toMatchObject({ status: 'ok', consolidator: 'offline', fallback: expect.stringMatching(/HTTP 500/), watermark: { after: D2 } });
    // The first turn, then the second call's llm.max_attempts tries.
    expect(server.requests).toHaveLength(3);
    await expectNoDayLost(root);
  });

  it('a model that hangs past dream.timeout_s (below llm.timeout_s × max_attempts): offline, with time of its own; nothing skipped', async () => {
    const server = await startLlm([], { fallback: { text: 'too late', delayMs: 120_000 } });
    const root = await cliVault('llm:\n  timeout_s: 60\n  max_attempts: 3\ndream:\n  timeout_s: 10\n  max_retries: 1\n');
    const run = await dream(root, llmEnv(server));
    // (10 s: time enough for the offline consolidator on a loaded machine; the model hangs for 120 s.)
    expect(run.status, run.reason).toBe('ok');
    expect(run).toMatchObject({ consolidator: 'offline', watermark: { after: D2 } });
    expect(run.fallback).toBe('the LLM did not finish within dream.timeout_s (10 s)');
    await expectNoDayLost(root);
  });
});

describe('caps and outages with llm.fallback: wait', { timeout: 300_000 }, () => {
  it('a per-run cap: the run waits, is recorded as waiting, and the next try follows the backoff', async () => {
    const server = await startLlm([tools(call('read_log', { date: D1 }))]);
    const root = await cliVault('llm:\n  max_tokens_per_run: 200\n  fallback: wait\ndream:\n  max_retries: 1\n  min_facts: 1\n');
    const env = llmEnv(server);
    const run = await dream(root, env);
    expect(run).toMatchObject({ status: 'gated', consolidator: 'llm', fallback: null, watermark: { before: null, after: null } });
    expect(run.reason).toMatch(/^waiting: the LLM cannot be used \(the dream agent used its token budget .*; llm\.fallback is "wait", so the run waits for it; tried again at /);
    const state = await readState(root);
    expect(state).toMatchObject({ last_status: 'waiting', retry_count: 1, retry_at: run.retry_at, last_ok_at: null });
    // Five minutes after the run started.
    expect(Date.parse(run.retry_at!) - Date.parse(state.last_attempt_at!)).toBe(5 * 60_000);
    await expectNoDayLost(root);

    // status says so; the gate is the backoff, not min_hours.
    const status = JSON.parse((await runCli(['--vault', root, 'status', '--json'])).stdout) as { dream: Record<string, unknown> };
    expect(status.dream).toMatchObject({ last_status: 'waiting', decision: 'gated', gate: 'backoff', opens_at: run.retry_at });
    const text = await runCli(['--vault', root, 'status']);
    expect(text.stdout).toMatch(/^dream {6}last waiting \(r-/m);
    expect(text.stdout).toContain(`gated by backoff: the last run waited for the LLM; it is tried again at ${run.retry_at}`);
    const gated = await dream(root, env, []);
    expect(gated).toMatchObject({ status: 'gated', retry_at: run.retry_at });
    expect(server.requests).toHaveLength(1);
  });

  it('an outage mid-run (the connection closes): the run waits; no failure counted, no day skipped', async () => {
    const held: { server?: FakeLlm } = {};
    const server = await startLlm([
      tools(call('read_log', { date: D1 })),
      () => {
        setTimeout(() => void held.server!.close(), 50);
        return { text: 'never sent', delayMs: 60_000 };
      },
    ]);
    held.server = server;
    const root = await cliVault('llm:\n  max_attempts: 2\n  fallback: wait\ndream:\n  max_retries: 1\n');
    const run = await dream(root, llmEnv(server));
    expect(run).toMatchObject({ status: 'gated', watermark: { before: null, after: null } });
    expect(run.reason).toMatch(/^waiting: the LLM cannot be used \(the model request to http:\/\/127\.0\.0\.1:\d+\/v1 failed: /);
    expect(server.requests).toHaveLength(2);
    expect(await readState(root)).toMatchObject({ last_status: 'waiting', retry_count: 1 });
    await expectNoDayLost(root);
  });
});

const at = (iso: string): Date => new Date(iso);
const minutes = (from: Date, n: number): Date => new Date(from.getTime() + n * 60_000);

describe('the gate after a failed or waiting run, on the library clock', { timeout: 300_000 }, () => {
  it('a waiting run does not use up min_hours: after the backoff the next run goes through', async () => {
    const server = await startLlm([], { fallback: { status: 503, message: 'overloaded' } });
    const vault = await makeVault(await tempDir(), {
      config: `timezone: UTC\nindex:\n  embedder: none\ndream:\n  min_hours: 24\n  min_facts: 1\nllm:\n  base_url: ${server.baseUrl}\n  model: fake\n  max_attempts: 1\n  fallback: wait\n`,
      env: { VAULTKEEPER_LLM_BASE_URL: undefined, VAULTKEEPER_LLM_MODEL: undefined },
    });
    await vault.remember([{ text: 'Prefers dark roast coffee', date: '2026-06-01' }], { now: at('2026-06-01T09:00:00Z') });
    const first = await vault.dream({ now: at('2026-06-02T08:00:00Z'), offline: true });
    expect(first.status, first.reason).toBe('ok');

    await vault.remember([{ text: 'Plays the cello', date: '2026-06-03' }], { now: at('2026-06-03T09:00:00Z') });
    const t = at('2026-06-04T09:00:00Z');
    const waiting = await vault.dream({ now: t });
    expect(waiting).toMatchObject({ status: 'gated', retry_at: minutes(t, 5).toISOString() });
    expect(waiting.reason).toMatch(/^waiting: /);
    const status = await vault.status(minutes(t, 1));
    expect(status.dream).toMatchObject({ last_status: 'waiting', gate: 'backoff', opens_at: minutes(t, 5).toISOString() });
    expect((await vault.dream({ now: minutes(t, 4), offline: true })).status).toBe('gated');
    // Five minutes on (not 24 h after the waiting run), the retry goes through: here the LLM is "back" offline.
    const retried = await vault.dream({ now: minutes(t, 5), offline: true });
    expect(retried).toMatchObject({ status: 'ok', batch: { from: '2026-06-03', to: '2026-06-03' } });
    expect(await vault.status(minutes(t, 6))).toMatchObject({ dream: { last_status: 'ok', decision: 'noop' } });
    const state = (JSON.parse(await readFile(path.join(vault.root, '.vaultkeeper/state.json'), 'utf8')) as { dream: DreamState }).dream;
    expect(state).toMatchObject({ retry_at: null, retry_count: 0, last_ok_at: minutes(t, 5).toISOString() });
  });

  it('a failed run is retried after 5, then 10 min; a day given up is listed, takes late facts, and comes back with --retry-skipped', async () => {
    const day = '2026-06-02';
    const vault = await makeVault(await tempDir(), {
      // Two pages' worth in one day (facts and preferences): with dream.max_changed_pages 1 the day cannot pass.
      config: 'timezone: UTC\nindex:\n  embedder: none\ndream:\n  max_changed_pages: 1\n  max_retries: 3\n  min_facts: 1\n',
    });
    await vault.remember(
      [
        { text: 'Plays the cello', tags: ['music'], date: day },
        { text: 'Prefers dark roast coffee beans', category: 'preference', tags: ['coffee'], date: day },
        { text: 'Visits Lisbon often', tags: ['travel'], date: day },
      ],
      { now: at(`${day}T09:00:00Z`) },
    );
    const t0 = at('2026-06-03T08:00:00Z');
    const first = await vault.dream({ now: t0, offline: true });
    expect(first).toMatchObject({ status: 'failed', check: 'safety', retry_at: minutes(t0, 5).toISOString() });
    // One minute later: not min_hours (24) but the backoff holds it, and says until when.
    const held = await vault.dream({ now: minutes(t0, 1), offline: true });
    expect(held).toMatchObject({ status: 'gated', retry_at: minutes(t0, 5).toISOString() });
    expect(held.reason).toBe(`the last run failed; it is tried again at ${minutes(t0, 5).toISOString()} (backoff after the first such run)`);
    expect((await vault.status(minutes(t0, 1))).dream).toMatchObject({ decision: 'gated', gate: 'backoff', opens_at: minutes(t0, 5).toISOString() });

    const second = await vault.dream({ now: minutes(t0, 5), offline: true });
    expect(second).toMatchObject({ status: 'failed', retry_at: minutes(t0, 15).toISOString() });
    expect((await vault.dream({ now: minutes(t0, 14), offline: true })).status).toBe('gated');
    const third = await vault.dream({ now: minutes(t0, 15), offline: true });
    expect(third).toMatchObject({ status: 'skipped', batch: { from: day, to: day } });
    const journal = await readFile(path.join(vault.root, 'log.md'), 'utf8');
    expect(journal).toMatch(new RegExp(`gave up on ${day}\\.\\.${day} after 3 tries · skipped=${day} · watermark=${day} · check=safety · log_facts=3\\n$`));

    // Listed with its reason, in status and on the dashboard.
    const status = await vault.status(minutes(t0, 16));
    expect(status.skipped).toEqual([day]);
    const reason = expect.stringMatching(/^safety: \d+ pages changed, more than dream\.max_changed_pages \(1\)$/);
    expect(status.skipped_days).toEqual([{ date: day, reason, at: minutes(t0, 15).toISOString().replace('.000Z', 'Z'), run: third.run, retries: 0 }]);
    expect(status.dream).toMatchObject({ last_status: 'skipped', decision: 'noop' });
    await vault.dashboard(minutes(t0, 16));
    expect(await readFile(path.join(vault.root, '4_Resources/Dashboard.md'), 'utf8')).toMatch(new RegExp(`^- ${day}: safety: \\d+ pages changed, more than dream\\.max_changed_pages \\(1\\)$`, 'm'));

    // A late fact into the skipped day is pending like any other, and remember says so.
    const late = await vault.remember([{ text: 'Bought a cello case', tags: ['music'], date: day }], { now: minutes(t0, 20) });
    expect(late.late).toEqual([day]);
    expect(late.note).toBe(`${day} was skipped by the dream (its earlier facts wait for \`vaultkeeper dream --retry-skipped\`): this fact is pending like any other, and the next dream will place it on a page`);
    expect(await vault.status(minutes(t0, 21))).toMatchObject({ pending: [day], facts_pending: 1 });
    const placed = await vault.dream({ now: minutes(t0, 21), offline: true });
    expect(placed).toMatchObject({ status: 'ok', facts: 1, batch: { from: day, to: day } });
    expect(await vault.status(minutes(t0, 22))).toMatchObject({ pending: [], skipped: [day] });

    // The daemon's daily retry: still failing, the day stays skipped and goes behind the others.
    expect(await retrySkippedDays(vault, { now: minutes(t0, 30), offline: true })).toEqual({ summary: expect.stringMatching(new RegExp(`^failed ${day}\\.\\.${day}: safety: .*the days stay skipped$`)) });
    expect((await vault.status(minutes(t0, 31))).skipped_days[0]).toMatchObject({ date: day, retries: 1 });

    // Fixed, `dream --retry-skipped` places the day; log.md says retried=, and it is no longer skipped.
    const config = path.join(vault.root, '.vaultkeeper/config.yaml');
    await writeFile(config, (await readFile(config, 'utf8')).replace('max_changed_pages: 1', 'max_changed_pages: 10'));
    const retry = await runCli(['--vault', vault.root, 'dream', '--retry-skipped', '--offline', '--json']);
    expect(retry.code, retry.stderr).toBe(0);
    expect(JSON.parse(retry.stdout)).toMatchObject({ status: 'ok', batch: { from: day, to: day }, facts: 3, retried: [day] });
    expect(await readFile(path.join(vault.root, 'log.md'), 'utf8')).toMatch(new RegExp(`consolidated ${day}\\.\\.${day} · retried=${day} · watermark=${day} · pages \\+\\d+ ~\\d+ · facts 3 · placed 3 · filed 0\\n$`));
    const after = JSON.parse((await runCli(['--vault', vault.root, 'status', '--json'])).stdout) as { skipped: string[]; skipped_days: unknown[]; pending: string[] };
    expect(after).toMatchObject({ skipped: [], skipped_days: [], pending: [] });
    const none = await runCli(['--vault', vault.root, 'dream', '--retry-skipped', '--offline']);
    expect(none.stdout).toBe('dream noop: no skipped days to retry\n');
  });
});
