/**
 * The LLM executor against a scripted OpenAI-compatible server on 127.0.0.1 (the only fake): one call at
 * a time, a backoff shared by all calls that honours Retry-After (seconds, HTTP date, retry-after-ms),
 * per-call timeouts, malformed bodies, usage counted per job and per day and kept across a restart, and
 * caps per run and per day. The clock and the backoff's sleep are injected, so no test waits real seconds
 * for a backoff; only the timeout tests wait for `llm.timeout_s` (1 s).
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { VaultkeeperError } from '../../src/core/errors.js';
import { backoffMs, MAX_BACKOFF_MS, retryAfterMs } from '../../src/llm/backoff.js';
import { LlmCapError, LlmRequestError, LlmResponseError } from '../../src/llm/errors.js';
import { createExecutor, type ChatRequest, type LlmExecutor } from '../../src/llm/executor.js';
import { nextLocalMidnight, zonedInstant } from '../../src/llm/local-day.js';
import { USAGE_FILE } from '../../src/llm/usage.js';
import { useFakeLlm, type FakeLlm, type FakeLlmOptions, type Reply, type Step, type Usage } from '../helpers/fake-llm.js';
import { useTempDir } from '../helpers/tmp.js';
import { rejection } from '../helpers/errors.js';

const tempDir = useTempDir();
const startLlm = useFakeLlm();

const ZONE = 'Europe/Lisbon';
const NOON = '2026-06-09T12:00:00Z';

interface Clock {
  now: () => Date;
  /** The backoff's sleep: records the wait and moves the clock on by it, at once. */
  sleep: (ms: number) => Promise<void>;
  sleeps: number[];
  set(iso: string): void;
}

function fakeClock(start = NOON): Clock {
  let t = Date.parse(start);
  const sleeps: number[] = [];
  return {
    now: () => new Date(t),
    sleeps,
    sleep: async (ms) => {
      sleeps.push(ms);
      t += ms;
    },
    set: (iso) => {
      t = Date.parse(iso);
    },
  };
}

function llm(baseUrl: string | null, extra: Record<string, unknown> = {}) {
  return ConfigSchema.parse({ llm: { base_url: baseUrl, model: baseUrl === null ? null : 'fake-model', ...extra } }).llm;
}

interface Setup {
  server: FakeLlm;
  executor: LlmExecutor;
  root: string;
  clock: Clock;
  /** Another executor on the same vault, as after a daemon restart. */
  restart(): Promise<LlmExecutor>;
}

async function setup(
  script: Step[],
  options: { llm?: Record<string, unknown>; server?: FakeLlmOptions; clock?: Clock; random?: () => number; sleep?: (ms: number) => Promise<void> } = {},
): Promise<Setup> {
  const server = await startLlm(script, options.server);
  const root = await tempDir();
  const clock = options.clock ?? fakeClock();
  const make = () =>
    createExecutor({
      settings: llm(server.baseUrl, options.llm),
      env: {},
      root,
      timeZone: ZONE,
      now: clock.now,
      sleep: options.sleep ?? clock.sleep,
      random: options.random ?? (() => 0.5),
    });
  return { server, executor: await make(), root, clock, restart: make };
}

const ask = (text = 'hello'): ChatRequest => ({ messages: [{ role: 'user', content: text }] });
/** A text reply; usage as given, null for none, or the fake's estimate. */
const ok = (text = 'fine', usage?: Usage | null): Reply => (usage === undefined ? { text } : { text, usage });


/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the queue', () => {
  it('runs one call at a time by default: concurrent calls never overlap at the server, and keep their order', async () => {
    const t = await setup([], { server: { fallback: (request) => ({ text: `answer to ${request.body.messages[0]?.content}`, delayMs: 60 }) } });
    const answers = await Promise.all(['a', 'b', 'c'].map((text) => t.executor.chat('extract', ask(text))));
    expect(answers.map((a) => a.choices[0]?.message.content)).toEqual(['answer to a', 'answer to b', 'answer to c']);
    expect(t.server.requests.map((r) => r.body.messages[0]?.content)).toEqual(['a', 'b', 'c']);
    expect(t.server.peakInFlight).toBe(1);
  });

  it('lets llm.concurrency calls run at once', async () => {
    const t = await setup([], { llm: { concurrency: 2 }, server: { fallback: { text: 'x', delayMs: 100 } } });
    await Promise.all([1, 2, 3, 4].map(() => t.executor.chat('extract', ask())));
    expect(t.server.peakInFlight).toBe(2);
  });

  it('fills in the configured model and temperature, and keeps those a caller sets', async () => {
    const t = await setup([ok(), ok()], { llm: { temperature: 0.3 } });
    await t.executor.chat('digest', ask());
    await t.executor.chat('digest', { ...ask(), model: 'other', temperature: 0 });
    expect(t.server.requests.map((r) => [r.body.model, r.body.temperature])).toEqual([
      ['fake-model', 0.3],
      ['other', 0],
    ]);
  });

  it('an abort ends a call waiting in the queue at once, and the others go on', async () => {
    const t = await setup([], { server: { fallback: { text: 'slow', delayMs: 300 } } });
    const first = t.executor.chat('dream', ask('first'));
    const controller = new AbortController();
    const second = t.executor.chat('extract', ask('second'), { signal: controller.signal });
    const third = t.executor.chat('extract', ask('third'));
    expect(t.executor.usage().queued).toBe(2);
    controller.abort();
    expect((await rejection(second)).code).toBe('VK_LLM_ABORTED');
    await Promise.all([first, third]);
    expect(t.server.requests.map((r) => r.body.messages[0]?.content)).toEqual(['first', 'third']);
  });
});

describe('retries and the shared backoff', () => {
  it('a 429 with Retry-After in seconds waits that long (plus bounded jitter), then retries', async () => {
    const t = await setup([{ status: 429, headers: { 'retry-after': '7', 'retry-after-ms': null } }, ok('after the wait')]);
    const reply = await t.executor.chat('dream', ask());
    expect(reply.choices[0]?.message.content).toBe('after the wait');
    expect(t.server.requests).toHaveLength(2);
    expect(t.clock.sleeps).toHaveLength(1);
    expect(t.clock.sleeps[0]).toBeGreaterThanOrEqual(7_000);
    expect(t.clock.sleeps[0]).toBeLessThanOrEqual(7_700);
  });

  it('a Retry-After given as an HTTP date waits until then', async () => {
    const clock = fakeClock();
    const until = new Date(clock.now().getTime() + 30_000).toUTCString();
    const t = await setup([{ status: 503, headers: { 'retry-after': until, 'retry-after-ms': null } }, ok()], { clock, random: () => 0 });
    await t.executor.chat('dream', ask());
    expect(t.clock.sleeps).toEqual([30_000]);
  });

  it('retry-after-ms is honoured to the millisecond', async () => {
    const t = await setup([{ status: 429, headers: { 'retry-after-ms': '250' } }, ok()], { random: () => 0 });
    await t.executor.chat('dream', ask());
    expect(t.clock.sleeps).toEqual([250]);
  });

  it('a persistent 500 is tried llm.max_attempts times with growing, jittered waits, then fails with a clear error', async () => {
    const t = await setup([], { server: { fallback: { status: 500, message: 'the model crashed', headers: { 'retry-after-ms': null } } } });
    const error = await rejection(t.executor.chat('dream', ask()));
    expect(error).toBeInstanceOf(LlmRequestError);
    expect(error.code).toBe('VK_LLM_REQUEST');
    expect((error as LlmRequestError).status).toBe(500);
    expect(error.message).toContain(t.server.baseUrl);
    expect(error.message).toMatch(/HTTP 500/);
    expect(error.hint).toMatch(/busy or failing \(still after 4 tries\)/);
    expect(t.server.requests).toHaveLength(4);
    // random() = 0.5: three-quarters of 1 s, 2 s, 4 s.
    expect(t.clock.sleeps).toEqual([750, 1_500, 3_000]);
  });

  it('backoff stays within [half, full] of its step and never exceeds its cap, whatever the jitter', () => {
    for (const r of [0, 0.25, 0.999]) {
      for (let failures = 1; failures <= 30; failures++) {
        const full = Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** (failures - 1));
        const wait = backoffMs(failures, null, () => r);
        expect(wait).toBeGreaterThanOrEqual(full / 2);
        expect(wait).toBeLessThanOrEqual(full);
      }
      expect(backoffMs(1, 20_000, () => r)).toBeLessThanOrEqual(21_000);
    }
  });

  it('reads Retry-After in all its forms', () => {
    const now = new Date(NOON);
    const headers = (h: Record<string, string>) => new Headers(h);
    expect(retryAfterMs(headers({ 'retry-after': '3' }), now)).toBe(3_000);
    expect(retryAfterMs(headers({ 'retry-after': '1.5' }), now)).toBe(1_500);
    expect(retryAfterMs(headers({ 'retry-after-ms': '20', 'retry-after': '3' }), now)).toBe(20);
    expect(retryAfterMs(headers({ 'retry-after': new Date(now.getTime() + 90_000).toUTCString() }), now)).toBe(90_000);
    expect(retryAfterMs(headers({ 'retry-after': new Date(now.getTime() - 90_000).toUTCString() }), now)).toBe(0);
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }), now)).toBeNull();
    expect(retryAfterMs(headers({}), now)).toBeNull();
  });

  it('the backoff is shared: while one call waits it out, no other call reaches the server', async () => {
    const waits: Array<{ ms: number; release: () => void }> = [];
    const sleep = (ms: number) => new Promise<void>((resolve) => waits.push({ ms, release: resolve }));
    const t = await setup([{ status: 429, headers: { 'retry-after-ms': '2000' } }, ok('a'), ok('b')], { llm: { concurrency: 2 }, sleep, random: () => 0 });
    const a = t.executor.chat('dream', ask('a'));
    while (waits.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const b = t.executor.chat('extract', ask('b'));
    while (waits.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(t.executor.usage().paused_until).toBe(new Date(Date.parse(NOON) + 2_000).toISOString());
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(t.server.requests).toHaveLength(1);
    expect(waits.map((w) => w.ms)).toEqual([2_000, 2_000]);
    // The clock has not moved (the fake sleep does not advance it); each waiter waits out the pause once.
    for (const w of waits) w.release();
    expect((await Promise.all([a, b])).map((r) => r.choices[0]?.message.content).sort()).toEqual(['a', 'b']);
  });

  it('a server asking for a break longer than ten minutes is not waited for: the call fails at once, and so do later ones until then', async () => {
    const t = await setup([{ status: 429, headers: { 'retry-after': '3600', 'retry-after-ms': null } }, ok()]);
    const error = await rejection(t.executor.chat('dream', ask()));
    expect(error.code).toBe('VK_LLM_REQUEST');
    const retryAt = (error as LlmRequestError).retryAt;
    expect(retryAt?.getTime()).toBeGreaterThanOrEqual(Date.parse(NOON) + 3_600_000);
    expect(error.hint).toMatch(/no calls until/);
    const later = await rejection(t.executor.chat('extract', ask()));
    expect(later.message).toMatch(/asked for no calls until/);
    expect(t.server.requests).toHaveLength(1);
    expect(t.clock.sleeps).toEqual([]);
    t.clock.set(new Date(retryAt!.getTime() + 1).toISOString());
    await t.executor.chat('extract', ask());
    expect(t.server.requests).toHaveLength(2);
  });

  it('a client error (401) is not retried, and its hint names the key variable', async () => {
    const t = await setup([{ status: 401, message: 'bad key' }]);
    const error = await rejection(t.executor.chat('dream', ask()));
    expect(error.message).toMatch(/HTTP 401/);
    expect(error.hint).toMatch(/OPENAI_API_KEY/);
    expect(t.server.requests).toHaveLength(1);
    expect(t.clock.sleeps).toEqual([]);
  });

  it('an endpoint nobody answers is retried, then fails naming the server and the cause', async () => {
    const root = await tempDir();
    const clock = fakeClock();
    const url = `http://127.0.0.1:${await deadPort()}/v1`;
    const executor = await createExecutor({ settings: llm(url, { max_attempts: 2 }), env: {}, root, now: clock.now, sleep: clock.sleep, random: () => 0.5 });
    const error = await rejection(executor.chat('dream', ask()));
    expect(error.code).toBe('VK_LLM_REQUEST');
    expect(error.message).toContain(url);
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(error.message).toMatch(/in 2 tries/);
    expect(error.hint).toMatch(/running and reachable/);
    expect(clock.sleeps).toEqual([750]);
  });
});

describe('timeouts', () => {
  it('a call with no answer within llm.timeout_s is retried, and the retry can succeed', async () => {
    const t = await setup([{ text: 'too slow', delayMs: 10_000 }, ok('quick')], { llm: { timeout_s: 1, max_attempts: 2 } });
    const started = Date.now();
    const reply = await t.executor.chat('dream', ask());
    expect(reply.choices[0]?.message.content).toBe('quick');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(t.server.requests).toHaveLength(2);
  });

  it('a call that keeps timing out fails with a hint about llm.timeout_s, and never hangs', async () => {
    const t = await setup([], { llm: { timeout_s: 1, max_attempts: 1 }, server: { fallback: { text: 'slow', delayMs: 30_000 } } });
    const started = Date.now();
    const error = await rejection(t.executor.chat('dream', ask()));
    expect(error.code).toBe('VK_LLM_REQUEST');
    expect(error.message).toMatch(/no answer within 1s \(llm\.timeout_s\), in 1 try/);
    expect(error.hint).toMatch(/llm\.timeout_s/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('an abort stops the call in flight at once', async () => {
    const t = await setup([{ text: 'slow', delayMs: 30_000 }]);
    const controller = new AbortController();
    const pending = t.executor.chat('dream', ask(), { signal: controller.signal });
    while (t.server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const reason = new VaultkeeperError('VK_DREAM_TIMEOUT', 'the dream run took too long');
    controller.abort(reason);
    expect(await rejection(pending)).toBe(reason);
  });
});

describe('malformed replies', () => {
  it('are retried, and the call succeeds when a good reply comes', async () => {
    const t = await setup([{ raw: 'this is not json {' }, { raw: '{"choices": []}' }, { raw: '', contentType: 'text/plain' }, ok('at last')]);
    const reply = await t.executor.chat('extract', ask());
    expect(reply.choices[0]?.message.content).toBe('at last');
    expect(t.server.requests).toHaveLength(4);
    // The server did the work for the malformed replies too: they count, estimated.
    expect(t.executor.usage().jobs.extract).toMatchObject({ calls: 4, estimated_calls: 3 });
  });

  it('fail with VK_LLM_RESPONSE after llm.max_attempts tries, saying what was wrong', async () => {
    const t = await setup([], { llm: { max_attempts: 3 }, server: { fallback: { raw: '{"object": "chat.completion"}' } } });
    const error = await rejection(t.executor.chat('extract', ask()));
    expect(error).toBeInstanceOf(LlmResponseError);
    expect(error.code).toBe('VK_LLM_RESPONSE');
    expect(error.message).toMatch(/malformed reply 3 times in a row: it holds no chat completion \(choices/);
    expect((error as LlmResponseError).body).toBe('{"object": "chat.completion"}');
    expect(t.server.requests).toHaveLength(3);
  });

  it('an error sent with HTTP 200 is reported as the server sent it', async () => {
    const t = await setup([], { llm: { max_attempts: 1 }, server: { fallback: { raw: '{"error": {"message": "model overloaded"}}' } } });
    expect((await rejection(t.executor.chat('extract', ask()))).message).toMatch(/sent an error instead of a completion: model overloaded/);
  });

  it('with retryMalformed: false, a malformed reply comes back at once', async () => {
    const t = await setup([{ raw: 'null' }, ok()]);
    const error = await rejection(t.executor.chat('dream', ask(), { retryMalformed: false }));
    expect((error as LlmResponseError).problem).toMatch(/not a JSON object/);
    expect(t.server.requests).toHaveLength(1);
  });
});

describe('usage', () => {
  it('counts tokens and cost per job and per day from the API usage fields, estimating when they are absent', async () => {
    const usage = { prompt_tokens: 1_000, completion_tokens: 200 };
    const t = await setup([ok('a', usage), ok('b', usage), ok('c', null)], { llm: { prices: { input_per_million: 2, output_per_million: 10 } } });
    await t.executor.chat('dream', ask());
    await t.executor.chat('dream', ask());
    await t.executor.chat('extract', ask('what should I remember?'));
    const snapshot = t.executor.usage();
    expect(snapshot.day).toBe('2026-06-09');
    expect(snapshot.resets_at).toBe('2026-06-09T23:00:00.000Z');
    expect(snapshot.priced).toBe(true);
    expect(snapshot.jobs.dream).toEqual({ calls: 2, prompt_tokens: 2_000, completion_tokens: 400, total_tokens: 2_400, estimated_calls: 0, cost: 0.008 });
    expect(snapshot.jobs.extract).toMatchObject({ calls: 1, estimated_calls: 1 });
    expect(snapshot.jobs.extract!.total_tokens).toBeGreaterThan(0);
    expect(snapshot.today.calls).toBe(3);
    expect(snapshot.today.total_tokens).toBe(2_400 + snapshot.jobs.extract!.total_tokens);
  });

  it('keeps the counters in .vaultkeeper/llm-usage.json, so a new executor (a restart) sees them', async () => {
    const t = await setup([ok('a', { prompt_tokens: 50, completion_tokens: 5 })]);
    await t.executor.chat('digest', ask());
    const file = JSON.parse(await readFile(path.join(t.root, USAGE_FILE), 'utf8')) as unknown;
    expect(file).toEqual({
      version: 1,
      days: { '2026-06-09': { jobs: { digest: { calls: 1, prompt_tokens: 50, completion_tokens: 5, total_tokens: 55, estimated_calls: 0, cost: 0 } } } },
    });
    const again = await t.restart();
    expect(again.usage().jobs.digest).toMatchObject({ calls: 1, total_tokens: 55 });
    expect(again.usage().today.total_tokens).toBe(55);
  });

  it('starts a new day at local midnight in the vault time zone', async () => {
    const t = await setup([ok('a', { prompt_tokens: 10, completion_tokens: 0 }), ok('b', { prompt_tokens: 20, completion_tokens: 0 })]);
    t.clock.set('2026-06-09T22:59:00Z'); // 23:59 in Lisbon (summer time)
    await t.executor.chat('dream', ask());
    t.clock.set('2026-06-09T23:01:00Z'); // 00:01 on the 10th
    await t.executor.chat('dream', ask());
    expect(t.executor.usage()).toMatchObject({ day: '2026-06-10', today: { total_tokens: 20 } });
    const file = JSON.parse(await readFile(path.join(t.root, USAGE_FILE), 'utf8')) as { days: Record<string, unknown> };
    expect(Object.keys(file.days).sort()).toEqual(['2026-06-09', '2026-06-10']);
  });
});

describe('caps', () => {
  const usage = { prompt_tokens: 100, completion_tokens: 20 };

  it('over the daily token cap a call is refused, says when the cap resets, and stays refused after a restart', async () => {
    const t = await setup([], { llm: { max_tokens_per_day: 200 }, server: { fallback: ok('x', usage) } });
    await t.executor.chat('dream', ask());
    await t.executor.chat('extract', ask()); // 240 tokens now: the cap is checked before a call
    const error = await rejection(t.executor.chat('digest', ask()));
    expect(error).toBeInstanceOf(LlmCapError);
    expect(error.code).toBe('VK_LLM_CAP');
    expect((error as LlmCapError).cap).toBe('day');
    expect((error as LlmCapError).resetsAt?.toISOString()).toBe('2026-06-09T23:00:00.000Z');
    expect(error.message).toMatch(/daily LLM token cap is reached: 240 tokens used today of llm\.max_tokens_per_day = 200; it resets at 2026-06-10 00:00 \(Europe\/Lisbon\)/);
    expect(t.server.requests).toHaveLength(2);
    expect(t.executor.canSpend('promote')).toMatchObject({ ok: false, cap: 'day' });

    const again = await t.restart();
    expect(again.canSpend('dream')).toMatchObject({ ok: false, cap: 'day' });
    expect((await rejection(again.chat('dream', ask()))).code).toBe('VK_LLM_CAP');
    expect(t.server.requests).toHaveLength(2);

    t.clock.set('2026-06-09T23:00:00Z');
    expect(again.canSpend('dream')).toEqual({ ok: true });
    await again.chat('dream', ask());
    expect(t.server.requests).toHaveLength(3);
  });

  it('over the daily cost cap a call is refused', async () => {
    const t = await setup([], {
      llm: { max_cost_per_day: 0.001, prices: { input_per_million: 5, output_per_million: 15 } },
      server: { fallback: ok('x', usage) },
    });
    // Each call costs 100·5/1e6 + 20·15/1e6 = 0.0008.
    await t.executor.chat('dream', ask());
    await t.executor.chat('dream', ask());
    const error = await rejection(t.executor.chat('dream', ask()));
    expect(error.code).toBe('VK_LLM_CAP');
    expect(error.message).toMatch(/daily LLM cost cap is reached: 0\.0016 spent today of llm\.max_cost_per_day = 0\.001/);
  });

  it('a cost cap without prices is a config error', () => {
    expect(() => ConfigSchema.parse({ llm: { max_cost_per_day: 1 } })).toThrow(/a cost cap needs prices/);
  });

  it('the run cap counts the tokens of one run of a job; a new run starts afresh', async () => {
    const t = await setup([], { llm: { max_tokens_per_run: 200 }, server: { fallback: ok('x', usage) } });
    await t.executor.chat('extract', ask(), { run: 'r1' });
    await t.executor.chat('extract', ask(), { run: 'r1' });
    const error = await rejection(t.executor.chat('extract', ask(), { run: 'r1' }));
    expect(error.code).toBe('VK_LLM_CAP');
    expect((error as LlmCapError).cap).toBe('run');
    expect((error as LlmCapError).resetsAt).toBeNull();
    expect(error.message).toMatch(/this extract run reached its LLM token cap: 240 tokens used of llm\.max_tokens_per_run = 200/);
    // Other jobs have runs of their own.
    expect(t.executor.canSpend('dream')).toEqual({ ok: true });
    expect(t.executor.canSpend('extract', 'r2')).toEqual({ ok: true });
    await t.executor.chat('extract', ask(), { run: 'r2' });
    expect(t.executor.usage().runs.extract).toEqual({ run: 'r2', tokens: 120 });
    expect(t.server.requests).toHaveLength(3);
  });
});

describe('check', () => {
  it('says the endpoint answered', async () => {
    const t = await setup([ok('OK')]);
    const result = await t.executor.check();
    expect(result.ok).toBe(true);
    expect(result.message).toMatch(new RegExp(`the LLM at ${t.server.baseUrl.replace(/[.]/g, '\\.')} \\(model fake-model\\) answered in \\d+ ms`));
    expect(t.server.requests).toHaveLength(1);
    expect(t.executor.usage().jobs.check?.calls).toBe(1);
  });

  it('says plainly when the endpoint cannot be reached, after one try', async () => {
    const root = await tempDir();
    const clock = fakeClock();
    const url = `http://127.0.0.1:${await deadPort()}/v1`;
    const executor = await createExecutor({ settings: llm(url), env: {}, root, now: clock.now, sleep: clock.sleep });
    const result = await executor.check();
    expect(result.ok).toBe(false);
    expect(result.message).toMatch(/the LLM cannot be used: the model request to http:\/\/127\.0\.0\.1:\d+\/v1 failed: .*ECONNREFUSED.*running and reachable/);
    expect(clock.sleeps).toEqual([]);
  });

  it('says so when no LLM is configured, and chat refuses with VK_LLM_CONFIG', async () => {
    const executor = await createExecutor({ settings: llm(null), env: {}, root: await tempDir() });
    expect(executor.configured).toBe(false);
    expect(await executor.check()).toEqual({ ok: false, message: expect.stringMatching(/no LLM is configured/) });
    expect((await rejection(executor.chat('dream', ask()))).code).toBe('VK_LLM_CONFIG');
  });

  it('sends the key from the named environment variable', async () => {
    const server = await startLlm([ok()]);
    const executor = await createExecutor({ settings: llm(server.baseUrl, { api_key_env: 'VK_TEST_KEY' }), env: { VK_TEST_KEY: 'sk-test-123' }, root: await tempDir() });
    await executor.chat('dream', ask());
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test-123');
  });
});

describe('local days', () => {
  it('finds local midnight and wall-clock times across DST changes', () => {
    expect(nextLocalMidnight(new Date('2026-06-09T12:00:00Z'), ZONE).toISOString()).toBe('2026-06-09T23:00:00.000Z');
    expect(nextLocalMidnight(new Date('2026-01-09T12:00:00Z'), ZONE).toISOString()).toBe('2026-01-10T00:00:00.000Z');
    expect(nextLocalMidnight(new Date('2026-06-09T23:30:00Z'), ZONE).toISOString()).toBe('2026-06-10T23:00:00.000Z');
    expect(nextLocalMidnight(new Date('2026-06-09T12:00:00Z'), 'America/New_York').toISOString()).toBe('2026-06-10T04:00:00.000Z');
    // Lisbon springs forward at 01:00 on 2026-03-29: 01:30 does not exist and falls an hour later.
    expect(zonedInstant('2026-03-29', '01:30', ZONE).toISOString()).toBe('2026-03-29T01:30:00.000Z');
    // ...and falls back at 02:00 on 2026-10-25: 01:30 happens twice, the first is taken.
    expect(zonedInstant('2026-10-25', '01:30', ZONE).toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(zonedInstant('2026-06-09', '03:00', 'Asia/Kolkata').toISOString()).toBe('2026-06-08T21:30:00.000Z');
  });
});
