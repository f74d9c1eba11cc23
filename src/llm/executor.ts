/**
 * The one LLM executor (DESIGN §8): every chat call (dream, extract, digest, promote) goes through it.
 * Calls wait in one queue (`llm.concurrency` in flight, one by default). A timeout, connection error,
 * 408/409/429/5xx or malformed reply is retried up to `llm.max_attempts` tries, after a backoff with
 * jitter that honours Retry-After and is shared: while it lasts, no call goes out. Each try has its own
 * timeout (`llm.timeout_s`), and every wait is bounded. Tokens and cost are counted per job and per local
 * day in `.vaultkeeper/llm-usage.json`; a call over a cap (per run, per day) is refused with VK_LLM_CAP.
 * The SDK's own retries are off: retrying is this module's job.
 */
import type * as OpenAISdk from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { localStamp, resolveTimeZone } from '../core/clock.js';
import type { Config } from '../core/config.js';
import { errorMessage, VaultkeeperError } from '../core/errors.js';
import { backoffMs, MAX_RETRY_AFTER_MS, retryAfterMs } from './backoff.js';
import { LlmCapError, LlmRequestError, LlmResponseError } from './errors.js';
import { nextLocalMidnight } from './local-day.js';
import { abortable, abortError, createSlots } from './queue.js';
import { estimate, excerpt, parseCompletion, spendOf } from './reply.js';
import { dayUsage, readUsage, recordUsage, type Counts, type Spend, type UsageFile } from './usage.js';

export type LlmSettings = Config['llm'];

/** A chat request; `model` and `temperature` default to the configured ones. */
export type ChatRequest = Omit<ChatCompletionCreateParamsNonStreaming, 'model'> & { model?: string };

export interface ExecutorOptions {
  /** The config's `llm` section. */
  settings: LlmSettings;
  /** Where the API key is read from: `env[settings.api_key_env]`. */
  env: NodeJS.ProcessEnv;
  /** The vault root; usage is kept in its `.vaultkeeper/llm-usage.json`. */
  root: string;
  /** IANA zone whose local days the daily counters and caps follow. Default: the system's. */
  timeZone?: string;
  /** Tries of one call; default `settings.max_attempts`. */
  maxAttempts?: number;
  now?: () => Date;
  /** Waits out a backoff. Default: a timer. */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1). */
  random?: () => number;
}

export interface ChatOptions {
  signal?: AbortSignal;
  /**
   * The run the call belongs to (e.g. a dream run's id); `llm.max_tokens_per_run` counts per run of a job.
   * A call naming a new run starts the job's count afresh; a call naming none continues the current one.
   */
  run?: string;
  /** false: a malformed reply fails at once with VK_LLM_RESPONSE, for a caller that handles malformed replies itself. Default true. */
  retryMalformed?: boolean;
}

export type SpendCheck = { ok: true } | { ok: false; cap: 'run' | 'day'; message: string; resetsAt: Date | null };

export interface UsageSnapshot {
  /** Today in the vault's time zone (YYYY-MM-DD). */
  day: string;
  /** When today's counters and caps reset (the next local midnight), ISO. */
  resets_at: string;
  today: Counts;
  /** Today's counts per job. */
  jobs: Record<string, Counts>;
  /** Tokens of each job's current run (this process only). */
  runs: Record<string, { run: string | null; tokens: number }>;
  caps: { tokens_per_run: number; tokens_per_day: number | null; cost_per_day: number | null };
  /** false: no llm.prices, so costs read 0. */
  priced: boolean;
  /** While a backoff lasts, ISO; else null. */
  paused_until: string | null;
  in_flight: number;
  queued: number;
}

export interface LlmExecutor {
  /** false without llm.base_url and llm.model: every call fails with VK_LLM_CONFIG. */
  readonly configured: boolean;
  chat(job: string, request: ChatRequest, options?: ChatOptions): Promise<ChatCompletion>;
  usage(): UsageSnapshot;
  /** One trivial call (for the daemon's start): says plainly whether the endpoint can be used. */
  check(): Promise<{ ok: boolean; message: string }>;
  /** Whether a call of `job` (in `run`) would be let through the caps now. */
  canSpend(job: string, run?: string): SpendCheck;
}

// The SDK refuses to start without a key; keyless local servers ignore whatever is sent.
const PLACEHOLDER_KEY = 'vaultkeeper-no-key';
const CHECK_PROMPT = 'Reply with the single word OK.';

type Failure =
  | { kind: 'timeout' | 'connection'; error: unknown }
  | { kind: 'http'; status: number; retryable: boolean; retryAfter: number | null; error: unknown }
  | { kind: 'malformed'; problem: string; body: string };

type Attempt = { ok: true; completion: ChatCompletion; spend: Spend } | { ok: false; failure: Failure; spend?: Spend };

interface Sdk {
  sdk: typeof OpenAISdk;
  client: OpenAISdk.OpenAI;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function createExecutor(options: ExecutorOptions): Promise<LlmExecutor> {
  const { settings, env, root } = options;
  const now = options.now ?? (() => new Date());
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const timeZone = options.timeZone ?? resolveTimeZone('system');
  const maxAttempts = Math.max(1, options.maxAttempts ?? settings.max_attempts);
  const timeoutMs = settings.timeout_s * 1000;
  const baseUrl = settings.base_url;
  const model = settings.model;
  const where = baseUrl === null ? '(no llm.base_url)' : displayUrl(baseUrl);
  const slots = createSlots(settings.concurrency);
  const runs = new Map<string, { run: string | null; tokens: number }>();
  let file: UsageFile = await readUsage(root);
  let pausedUntil = 0;
  let loaded: Promise<Sdk> | undefined;

  const load = (): Promise<Sdk> =>
    (loaded ??= import('openai').then((sdk) => {
      const key = env[settings.api_key_env];
      const endpoint = baseUrl === null ? null : splitCredentials(baseUrl);
      const hasKey = key !== undefined && key !== '';
      const client = new sdk.OpenAI({
        apiKey: hasKey ? key : PLACEHOLDER_KEY,
        baseURL: endpoint?.url ?? undefined,
        // user:password@ in the base URL is sent as basic auth (fetch refuses a URL with credentials), never kept.
        ...(endpoint?.basic !== undefined && !hasKey ? { defaultHeaders: { Authorization: `Basic ${endpoint.basic}` } } : {}),
        timeout: timeoutMs,
        maxRetries: 0,
        logLevel: 'off',
      });
      return { sdk, client };
    }));

  const canSpend = (job: string, run?: string): SpendCheck => {
    const at = now();
    const { total } = dayUsage(file, localStamp(at, timeZone).date);
    const resetsAt = nextLocalMidnight(at, timeZone);
    const resets = `${localStamp(resetsAt, timeZone).date} 00:00 (${timeZone})`;
    if (settings.max_tokens_per_day !== null && total.total_tokens >= settings.max_tokens_per_day) {
      const message = `the daily LLM token cap is reached: ${total.total_tokens} tokens used today of llm.max_tokens_per_day = ${settings.max_tokens_per_day}; it resets at ${resets}`;
      return { ok: false, cap: 'day', message, resetsAt };
    }
    if (settings.max_cost_per_day !== null && total.cost >= settings.max_cost_per_day) {
      const message = `the daily LLM cost cap is reached: ${round(total.cost)} spent today of llm.max_cost_per_day = ${settings.max_cost_per_day}; it resets at ${resets}`;
      return { ok: false, cap: 'day', message, resetsAt };
    }
    const current = runs.get(job);
    const spent = current !== undefined && (run === undefined || current.run === run) ? current.tokens : 0;
    if (spent >= settings.max_tokens_per_run) {
      const message = `this ${job} run reached its LLM token cap: ${spent} tokens used of llm.max_tokens_per_run = ${settings.max_tokens_per_run}; the next run starts afresh`;
      return { ok: false, cap: 'run', message, resetsAt: null };
    }
    return { ok: true };
  };

  const record = async (job: string, spend: Spend): Promise<void> => {
    const current = runs.get(job) ?? { run: null, tokens: 0 };
    runs.set(job, { ...current, tokens: current.tokens + spend.total_tokens });
    file = await recordUsage(root, localStamp(now(), timeZone).date, job, spend);
  };

  /** Waits while a backoff lasts; a pause longer than any wait we allow fails at once instead. */
  const waitForPause = async (signal: AbortSignal | undefined): Promise<void> => {
    let seen = -1;
    while (pausedUntil > now().getTime() && pausedUntil !== seen) {
      seen = pausedUntil;
      const wait = pausedUntil - now().getTime();
      if (wait > MAX_RETRY_AFTER_MS) {
        const retryAt = new Date(pausedUntil);
        throw new LlmRequestError(`the LLM at ${where} asked for no calls until ${retryAt.toISOString()}`, {
          hint: 'LLM jobs resume after then; nothing needs to be done',
          retryAt,
        });
      }
      await abortable(sleep(wait), signal);
    }
  };

  const attempt = async (request: ChatCompletionCreateParamsNonStreaming, signal: AbortSignal | undefined): Promise<Attempt> => {
    const { sdk, client } = await load();
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(), timeoutMs);
    const combined = signal === undefined ? timer.signal : AbortSignal.any([signal, timer.signal]);
    let text: string;
    try {
      // The raw response, so that this module, not the SDK, decides what a malformed body is; the
      // timeout covers reading the body too.
      const response = await client.chat.completions.create(request, { signal: combined, timeout: timeoutMs, maxRetries: 0 }).asResponse();
      text = await response.text();
    } catch (error) {
      if (signal?.aborted === true) throw abortError(signal);
      if (timer.signal.aborted || error instanceof sdk.APIConnectionTimeoutError) return { ok: false, failure: { kind: 'timeout', error } };
      if (error instanceof sdk.APIError && typeof error.status === 'number') {
        const status = error.status;
        const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
        return { ok: false, failure: { kind: 'http', status, retryable, retryAfter: retryAfterMs(error.headers, now()), error } };
      }
      return { ok: false, failure: { kind: 'connection', error } };
    } finally {
      clearTimeout(timeout);
    }
    const parsed = parseCompletion(text);
    if ('problem' in parsed) {
      return { ok: false, failure: { kind: 'malformed', problem: parsed.problem, body: excerpt(text) }, spend: estimate(request, text, settings.prices) };
    }
    return { ok: true, completion: parsed.completion, spend: spendOf(request, parsed.completion, settings.prices) };
  };

  const failed = (failure: Failure, tries: number): VaultkeeperError => {
    const prefix = `the model request to ${where} failed`;
    const inTries = `in ${tries} ${tries === 1 ? 'try' : 'tries'}`;
    switch (failure.kind) {
      case 'timeout':
        return new LlmRequestError(`${prefix}: no answer within ${settings.timeout_s}s (llm.timeout_s), ${inTries}`, {
          hint: 'raise llm.timeout_s, or use a faster model or server',
          cause: failure.error,
        });
      case 'connection':
        return new LlmRequestError(`${prefix}: ${connectionProblem(failure.error)}, ${inTries}`, {
          hint: `check that the server at ${where} is running and reachable`,
          cause: failure.error,
        });
      case 'http': {
        const { status } = failure;
        const retryAt = failure.retryAfter !== null && failure.retryAfter > MAX_RETRY_AFTER_MS ? new Date(pausedUntil) : null;
        const hint =
          retryAt !== null
            ? `the server asks for no calls until ${retryAt.toISOString()}; LLM jobs resume after then`
            : status === 401 || status === 403
              ? `check the API key in ${settings.api_key_env}`
              : status === 404
                ? `check llm.model ("${model}") and llm.base_url (it usually ends in /v1)`
                : status === 400 || status === 422
                  ? `check that llm.model ("${model}") supports what was asked (e.g. tool calling)`
                  : failure.retryable
                    ? `the server is busy or failing (still after ${tries} ${tries === 1 ? 'try' : 'tries'}); try again later`
                    : 'check the llm settings';
        return new LlmRequestError(`${prefix} with HTTP ${status}: ${errorMessage(failure.error)}`, { hint, status, retryAt, cause: failure.error });
      }
      case 'malformed':
        return new LlmResponseError(
          `the model at ${where} sent a malformed reply${tries > 1 ? ` ${tries} times in a row` : ''}: ${failure.problem}`,
          failure.problem,
          failure.body,
          `check that llm.base_url points at an OpenAI-compatible API (it usually ends in /v1) and that llm.model ("${model}") is a chat model`,
        );
    }
  };

  const call = async (job: string, request: ChatRequest, options: ChatOptions, tries: number): Promise<ChatCompletion> => {
    const { signal, run } = options;
    if (baseUrl === null || model === null) {
      throw new VaultkeeperError('VK_LLM_CONFIG', 'no LLM is configured: llm.base_url and llm.model are not both set', {
        hint: 'set llm.base_url and llm.model in .vaultkeeper/config.yaml (or VAULTKEEPER_LLM_BASE_URL and VAULTKEEPER_LLM_MODEL)',
      });
    }
    if (run !== undefined && runs.get(job)?.run !== run) runs.set(job, { run, tokens: 0 });
    const body = {
      ...request,
      model: request.model ?? model,
      ...(request.temperature === undefined && settings.temperature !== null ? { temperature: settings.temperature } : {}),
    } as ChatCompletionCreateParamsNonStreaming;
    await slots.acquire(signal);
    try {
      // Another process (a dream run from the shell) may have spent since.
      file = await readUsage(root);
      let failure: Failure | undefined;
      let made = 0;
      while (made < tries) {
        await waitForPause(signal);
        const allowed = canSpend(job, run);
        if (!allowed.ok) {
          throw new LlmCapError(
            allowed.cap,
            allowed.message,
            allowed.resetsAt,
            allowed.cap === 'day'
              ? 'LLM jobs wait for the reset or fall back as llm.fallback says; raise llm.max_tokens_per_day or llm.max_cost_per_day to allow more'
              : 'raise llm.max_tokens_per_run, or make runs smaller (e.g. dream.max_days)',
          );
        }
        const result = await attempt(body, signal);
        made++;
        if (result.spend !== undefined) await record(job, result.spend);
        if (result.ok) return result.completion;
        failure = result.failure;
        const retryable = failure.kind === 'http' ? failure.retryable : failure.kind !== 'malformed' || options.retryMalformed !== false;
        if (!retryable || made >= tries) break;
        const retryAfter = failure.kind === 'http' ? failure.retryAfter : null;
        pausedUntil = Math.max(pausedUntil, now().getTime() + backoffMs(made, retryAfter, random));
        // A server that asks for a longer break than we wait out gets none of our calls until then.
        if (retryAfter !== null && retryAfter > MAX_RETRY_AFTER_MS) break;
      }
      throw failed(failure!, made);
    } finally {
      slots.release();
    }
  };

  return {
    configured: baseUrl !== null && model !== null,
    chat: (job, request, options = {}) => call(job, request, options, maxAttempts),
    canSpend,
    usage() {
      const at = now();
      const day = localStamp(at, timeZone).date;
      const { total, jobs } = dayUsage(file, day);
      return {
        day,
        resets_at: nextLocalMidnight(at, timeZone).toISOString(),
        today: total,
        jobs,
        runs: Object.fromEntries([...runs].map(([job, r]) => [job, { ...r }])),
        caps: { tokens_per_run: settings.max_tokens_per_run, tokens_per_day: settings.max_tokens_per_day, cost_per_day: settings.max_cost_per_day },
        priced: settings.prices !== null,
        paused_until: pausedUntil > at.getTime() ? new Date(pausedUntil).toISOString() : null,
        in_flight: slots.active,
        queued: slots.waiting,
      };
    },
    async check() {
      if (baseUrl === null || model === null) {
        return { ok: false, message: 'no LLM is configured (llm.base_url and llm.model are not both set); LLM jobs use their offline fallback' };
      }
      const allowed = canSpend('check');
      if (!allowed.ok) return { ok: false, message: allowed.message };
      const started = Date.now();
      try {
        // One try, counted as a run of its own: a check says how the endpoint is now, it does not wait it out.
        await call('check', { messages: [{ role: 'user', content: CHECK_PROMPT }] }, { run: `check-${started}` }, 1);
        return { ok: true, message: `the LLM at ${where} (model ${model}) answered in ${Date.now() - started} ms` };
      } catch (error) {
        const hint = error instanceof VaultkeeperError && error.hint !== undefined ? `; ${error.hint}` : '';
        return { ok: false, message: `the LLM cannot be used: ${errorMessage(error)}${hint}` };
      }
    },
  };
}

/** The SDK's "Connection error." with its root cause, e.g. "connect ECONNREFUSED 127.0.0.1:1". */
function connectionProblem(error: unknown): string {
  let root: unknown = error;
  while (root instanceof Error && root.cause instanceof Error) root = root.cause;
  const head = errorMessage(error).replace(/\.$/, '');
  return root === error ? head : `${head} (${errorMessage(root)})`;
}

/** A base URL without its userinfo, and the userinfo as a basic-auth token. */
export function splitCredentials(url: string): { url: string; basic?: string } {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return { url };
    const basic = Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64');
    parsed.username = '';
    parsed.password = '';
    return { url: parsed.toString(), basic };
  } catch {
    return { url };
  }
}

/** The endpoint without credentials or query, for messages and logs. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

function round(value: number): string {
  return value.toFixed(4).replace(/\.?0+$/, '');
}
