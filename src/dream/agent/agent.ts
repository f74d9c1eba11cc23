/**
 * The LLM consolidator (DESIGN §7): a tool-calling loop against any OpenAI-compatible chat endpoint,
 * with the whitelisted file tools as its only way to act. Each model turn's tool calls run one by one and
 * their results go back to the model; the run ends when `finish` succeeds, and fails, with a typed error
 * the runner answers by rolling back, when the step or token budget runs out, the endpoint keeps failing
 * or the run is aborted. A malformed reply or tool call never crashes the loop. Every model call goes
 * through the LLM executor (queue, shared backoff, caps, usage counters): the daemon's when it passes
 * one, else a private one. Everything sent and received is logged to `.vaultkeeper/runs/<run>.jsonl`,
 * never the key.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import type { Config } from '../../core/config.js';
import { errorMessage, VaultkeeperError } from '../../core/errors.js';
import { LlmResponseError } from '../../llm/errors.js';
import { createExecutor, displayUrl, type LlmExecutor } from '../../llm/executor.js';
import type { ConsolidationInput, ConsolidationResult, Consolidator, DreamEvent } from '../consolidator.js';
import { pageOwners } from '../ownership.js';
import { createToolbox, DEFAULT_TOOL_LIMITS, type Toolbox, type ToolLimits, type ToolResult } from '../tools/tools.js';
import { buildPrompt } from './prompt.js';
import { openRunLog, type RunLog } from './runlog.js';

export type LlmSettings = Config['llm'];

export interface LlmConsolidatorOptions {
  /** Limits of the file tools (page size, bytes a run may write); their defaults otherwise. */
  toolLimits?: Partial<ToolLimits>;
  /** The executor every model call goes through (the daemon's); without one the run makes a private one. */
  executor?: LlmExecutor;
  /** Without `executor`: retries of one call after a timeout, 408, 409, 429 or 5xx (honouring Retry-After). Default llm.max_attempts - 1. */
  maxRetries?: number;
  /** Malformed replies in a row (no choices, a body that is not JSON) before the run fails. Default 3. */
  maxMalformedReplies?: number;
}

export interface LlmUsage {
  calls: number;
  tokens: number;
}

/** A failed agent run: what went wrong, and what the run had spent by then. */
export class LlmRunError extends VaultkeeperError {
  readonly llm: LlmUsage;

  constructor(code: string, message: string, llm: LlmUsage, options: { hint?: string; cause?: unknown } = {}) {
    super(code, message, options);
    this.name = 'LlmRunError';
    this.llm = { ...llm };
  }
}

const DEFAULT_MAX_MALFORMED = 3;
/** Turns left, or share of the token budget used, at which the model is told to wrap up (once). */
const WRAP_UP_STEPS = 3;
const WRAP_UP_TOKEN_SHARE = 0.85;
/** Without `usage` in a reply, tokens are estimated at one per four characters sent and received. */
const CHARS_PER_TOKEN = 4;
const MAX_DETAIL_CHARS = 200;
/** Arguments longer than any call the tools accept (a page, JSON-escaped) are not sent back on every later turn. */
const echoLimit = (limits: Partial<ToolLimits>): number => (limits.maxPageBytes ?? DEFAULT_TOOL_LIMITS.maxPageBytes) * 6 + 64 * 1024;

const NUDGE =
  'You replied without calling a tool. Keep working through tool calls: place every fact of the batch on a page with its citation, ' +
  'then call finish({"summary": "…"}) when done.';

const ReplySchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          tool_calls: z.array(z.unknown()).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
});

const UsageSchema = z.object({
  usage: z.object({
    prompt_tokens: z.number().nonnegative().optional(),
    completion_tokens: z.number().nonnegative().optional(),
    total_tokens: z.number().nonnegative().optional(),
  }),
});

const ToolCallSchema = z.object({
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({ name: z.string().min(1), arguments: z.unknown().optional() }),
});

interface ToolCall {
  id: string;
  name: string;
  arguments: string;
  /** Why the call cannot run as sent: answered with this error instead of running. */
  problem?: string;
}

interface Reply {
  content: string;
  calls: ToolCall[];
  finishReason: string | null;
}

interface AgentSetup {
  settings: LlmSettings;
  env: NodeJS.ProcessEnv;
  executor: LlmExecutor | undefined;
  baseUrl: string;
  model: string;
  secrets: string[];
  maxRetries: number;
  maxMalformed: number;
  toolLimits: Partial<ToolLimits>;
}

/**
 * The dream agent as a consolidator. `settings` is the config's `llm` section (base_url and model set);
 * the key is read from `env[settings.api_key_env]`, a placeholder when unset (keyless local servers).
 */
export function createLlmConsolidator(settings: LlmSettings, env: NodeJS.ProcessEnv, options: LlmConsolidatorOptions = {}): Consolidator {
  if (settings.base_url === null || settings.model === null) {
    throw new VaultkeeperError('VK_LLM_CONFIG', 'the dream agent needs an LLM: llm.base_url and llm.model are not both set', {
      hint: 'set llm.base_url and llm.model in .vaultkeeper/config.yaml (or VAULTKEEPER_LLM_BASE_URL and VAULTKEEPER_LLM_MODEL), or dream --offline',
    });
  }
  const key = env[settings.api_key_env];
  const hasKey = key !== undefined && key !== '';
  const setup: AgentSetup = {
    settings,
    env,
    executor: options.executor,
    baseUrl: settings.base_url,
    model: settings.model,
    secrets: [...(hasKey ? [key] : []), ...urlPassword(settings.base_url)],
    // llm.max_attempts counts the first try too.
    maxRetries: options.maxRetries ?? settings.max_attempts - 1,
    maxMalformed: Math.max(1, options.maxMalformedReplies ?? DEFAULT_MAX_MALFORMED),
    toolLimits: options.toolLimits ?? {},
  };
  return { name: 'llm', consolidate: (input) => runAgent(setup, input) };
}

async function runAgent(setup: AgentSetup, input: ConsolidationInput): Promise<ConsolidationResult> {
  const log = await openRunLog(input.vaultRoot, input.run, { secrets: setup.secrets });
  const usage: LlmUsage = { calls: 0, tokens: 0 };
  try {
    const result = await agentLoop(setup, input, log, usage);
    await log.write('end', { status: 'finished', summary: result.summary, conflicts: result.conflicts.length, llm: usage });
    return result;
  } catch (error) {
    const failure = asRunError(error, usage);
    await log
      .write('end', {
        status: failure.code === 'VK_DREAM_ABORTED' || input.signal.aborted ? 'aborted' : 'failed',
        code: failure.code,
        error: errorMessage(failure),
        llm: usage,
      })
      .catch(() => undefined);
    throw failure;
  }
}

async function agentLoop(setup: AgentSetup, input: ConsolidationInput, log: RunLog, usage: LlmUsage): Promise<ConsolidationResult> {
  const { settings, model } = setup;
  const toolbox = createToolbox({
    root: input.root,
    batchDates: input.dates,
    search: input.search,
    limits: setup.toolLimits,
    secrets: setup.secrets,
    pageOwner: async (rel) => (await pageOwners(input.root, [rel])).get(rel) ?? 'new',
    ...(input.readOnly === undefined ? {} : { readOnly: input.readOnly }),
  });
  const prompt = await buildPrompt(input);
  const executor = setup.executor ?? (await createExecutor({ settings, env: setup.env, root: input.vaultRoot, maxAttempts: setup.maxRetries + 1 }));
  await log.write('start', {
    run: input.run,
    model,
    base_url: displayUrl(setup.baseUrl),
    dates: input.dates,
    facts: input.facts.length,
    tools: toolbox.definitions.map((d) => d.function.name),
    budgets: { max_steps: settings.max_steps, max_tokens_per_run: settings.max_tokens_per_run, timeout_s: settings.timeout_s },
    schema: prompt.schemaSource,
    system: prompt.system,
    user: prompt.user,
  });

  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: prompt.system },
    { role: 'user', content: prompt.user },
  ];
  let chars = prompt.system.length + prompt.user.length;
  const push = (message: ChatCompletionMessageParam): void => {
    messages.push(message);
    chars += JSON.stringify(message).length;
  };
  const emit = (event: DreamEvent): void => {
    try {
      input.onEvent?.(event);
    } catch {
      // A watcher's failure is not the run's.
    }
  };
  let malformedInRow = 0;
  let warned = false;

  for (let step = 1; ; step++) {
    throwIfAborted(input.signal, usage);
    emit({ type: 'step', message: `model turn ${step} of at most ${settings.max_steps}` });
    await log.write('request', { step, messages: messages.length, chars, last: messages.at(-1)?.role });

    let body: unknown;
    let transportProblem: string | null = null;
    try {
      body = await executor.chat(
        'dream',
        {
          model,
          messages,
          tools: toolbox.definitions,
          tool_choice: 'auto',
          ...(settings.temperature === null ? {} : { temperature: settings.temperature }),
        },
        // The loop counts malformed replies in a row itself, so the executor hands each one back.
        { signal: input.signal, run: input.run, retryMalformed: false },
      );
    } catch (error) {
      if (input.signal.aborted) throw abortError(input.signal, usage, error);
      if (!(error instanceof LlmResponseError)) throw executorFailed(error, usage);
      // A malformed reply, not a dead endpoint.
      transportProblem = error.problem;
      body = error.body;
    }
    usage.calls++;

    const reply = transportProblem === null ? parseReply(body, step) : transportProblem;
    const replyChars = typeof reply === 'string' ? 0 : reply.content.length + reply.calls.reduce((n, c) => n + c.arguments.length, 0);
    const spent = tokensOf(body) ?? Math.ceil((chars + replyChars) / CHARS_PER_TOKEN);
    usage.tokens += spent;

    if (typeof reply === 'string') {
      malformedInRow++;
      await log.write('reply', { step, malformed: reply, body: excerpt(body), tokens: spent, estimated: tokensOf(body) === null, llm: usage });
      if (malformedInRow >= setup.maxMalformed) {
        throw new LlmRunError('VK_LLM_RESPONSE', `the model at ${displayUrl(setup.baseUrl)} sent ${malformedInRow} malformed replies in a row (last: ${reply})`, usage, {
          hint: `check that llm.base_url points at an OpenAI-compatible API (it usually ends in /v1) and that llm.model ("${model}") supports tool calling`,
        });
      }
    } else {
      malformedInRow = 0;
      await log.write('reply', {
        step,
        finish_reason: reply.finishReason,
        content: reply.content,
        tool_calls: reply.calls.map(({ id, name, arguments: args, problem }) => ({ id, name, arguments: args, ...(problem === undefined ? {} : { problem }) })),
        tokens: spent,
        estimated: tokensOf(body) === null,
        llm: usage,
      });
      if (reply.calls.length === 0) {
        push({ role: 'assistant', content: reply.content });
        push({ role: 'user', content: NUDGE });
      } else {
        // A reply of thousands of calls would run until the timeout: the first few run, the model hears of the rest.
        const calls = reply.calls.slice(0, MAX_TOOL_CALLS_PER_REPLY);
        push({
          role: 'assistant',
          content: reply.content === '' ? null : reply.content,
          tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: echoed(c.arguments, echoLimit(setup.toolLimits)) } })),
        });
        for (const call of calls) {
          throwIfAborted(input.signal, usage);
          push(await runTool(call, step, toolbox, log, emit));
        }
        if (reply.calls.length > calls.length) {
          push({ role: 'user', content: `${reply.calls.length - calls.length} more tool calls in your last reply were not run: at most ${MAX_TOOL_CALLS_PER_REPLY} run per reply. Send the ones still needed again.` });
        }
      }
    }

    const finished = toolbox.finished;
    if (finished !== null) return { summary: finished.summary, conflicts: [...toolbox.conflicts], llm: { ...usage } };
    const exhausted = budgetExhausted(settings, usage, step);
    if (exhausted !== null) throw exhausted;
    if (!warned && (settings.max_steps - step <= WRAP_UP_STEPS || usage.tokens >= settings.max_tokens_per_run * WRAP_UP_TOKEN_SHARE)) {
      warned = true;
      push({
        role: 'user',
        content: `This run is close to its budget (${settings.max_steps - step} model turns left, ${usage.tokens} of ${settings.max_tokens_per_run} tokens used). Place the remaining facts on their pages, cited, and call finish now; a run that does not finish is rolled back, and one that leaves many facts unplaced (or only in 0_Inbox/) fails.`,
      });
    }
  }
}

/** Tool calls run from one reply; the rest are dropped with a note to the model. */
export const MAX_TOOL_CALLS_PER_REPLY = 32;

/** The typed error for a run that has spent its token or step budget without finishing, else null. */
function budgetExhausted(settings: LlmSettings, usage: LlmUsage, step: number): LlmRunError | null {
  if (usage.tokens >= settings.max_tokens_per_run) {
    return new LlmRunError(
      'VK_DREAM_BUDGET',
      `the dream agent used its token budget (${usage.tokens} of llm.max_tokens_per_run = ${settings.max_tokens_per_run}) without calling finish; the run is rolled back`,
      usage,
      { hint: 'raise llm.max_tokens_per_run, or lower dream.max_days so a batch is smaller' },
    );
  }
  if (step >= settings.max_steps) {
    return new LlmRunError(
      'VK_DREAM_BUDGET',
      `the dream agent used its step budget (llm.max_steps = ${settings.max_steps} model turns) without calling finish; the run is rolled back`,
      usage,
      { hint: 'raise llm.max_steps, lower dream.max_days so a batch is smaller, or use a model that calls finish' },
    );
  }
  return null;
}

/** Runs one tool call (or answers its problem), logs it, reports it, and returns the tool message for the model. */
async function runTool(call: ToolCall, step: number, toolbox: Toolbox, log: RunLog, emit: (event: DreamEvent) => void): Promise<ChatCompletionMessageParam> {
  const started = Date.now();
  const result: ToolResult = call.problem === undefined ? await toolbox.call(call.name, call.arguments) : { ok: false, error: call.problem };
  await log.write('tool', {
    step,
    id: call.id,
    name: call.name,
    arguments: call.arguments,
    ok: result.ok,
    ...(result.ok ? { result: result.result } : { error: result.error }),
    ms: Date.now() - started,
  });
  emit({ type: 'tool', name: call.name, ok: result.ok, detail: describeResult(result) });
  const page = pageEvent(call.name, result);
  if (page !== null) emit(page);
  return { role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) };
}

/** The reply's text and tool calls, or why it is malformed. Bad tool calls are kept, each with its problem. */
function parseReply(body: unknown, step: number): Reply | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return `the body is ${body === null || body === undefined ? 'empty' : typeof body === 'string' ? 'not JSON' : 'not a JSON object'}`;
  }
  const parsed = ReplySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `it does not hold a chat completion (${issue === undefined ? 'invalid' : `${issue.path.join('.') || 'body'}: ${issue.message}`})`;
  }
  const choice = parsed.data.choices[0]!;
  const ids = new Set<string>();
  const calls = (choice.message.tool_calls ?? []).map((raw, index) => toolCall(raw, `call_${step}_${index}`, ids));
  const content = choice.message.content ?? choice.message.refusal ?? '';
  return { content, calls, finishReason: choice.finish_reason ?? null };
}

function toolCall(raw: unknown, fallbackId: string, ids: Set<string>): ToolCall {
  const parsed = ToolCallSchema.safeParse(raw);
  const rawId = parsed.success ? parsed.data.id : (raw as { id?: unknown } | null)?.id;
  // Tool results are matched to calls by id, so each call of a reply gets its own.
  let id = typeof rawId === 'string' && rawId !== '' && !ids.has(rawId) ? rawId : fallbackId;
  while (ids.has(id)) id = `${id}_`;
  ids.add(id);
  if (!parsed.success) {
    return { id, name: 'invalid_tool_call', arguments: '', problem: 'malformed tool call: it names no function; call a tool by its name with a JSON object of arguments, e.g. list_pages with {}' };
  }
  const { type, function: fn } = parsed.data;
  if (type !== undefined && type !== null && type !== 'function') {
    return { id, name: fn.name, arguments: '', problem: `malformed tool call: only function tools exist, not '${type}'; call one of the tools you were given` };
  }
  const args = fn.arguments;
  if (args === undefined || args === null) return { id, name: fn.name, arguments: '' };
  if (typeof args === 'string') return { id, name: fn.name, arguments: args };
  // Some servers send the arguments as an object rather than a JSON string; they mean the same.
  if (typeof args === 'object') return { id, name: fn.name, arguments: JSON.stringify(args) };
  return { id, name: fn.name, arguments: String(args), problem: `the arguments of ${fn.name} must be one JSON object, sent as a string` };
}

function echoed(args: string, limit: number): string {
  if (args.length <= limit) return args;
  return JSON.stringify({ omitted: `${args.length} characters of arguments, refused as too long` });
}

function tokensOf(body: unknown): number | null {
  const parsed = UsageSchema.safeParse(body);
  if (!parsed.success) return null;
  const { total_tokens: total, prompt_tokens: prompt, completion_tokens: completion } = parsed.data.usage;
  if (total !== undefined) return total;
  if (prompt !== undefined || completion !== undefined) return (prompt ?? 0) + (completion ?? 0);
  return null;
}

function describeResult(result: ToolResult): string {
  const text = result.ok ? summarize(result.result) : result.error;
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text;
}

function summarize(value: unknown): string {
  const r = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof r.from === 'string' && typeof r.to === 'string') return `${r.from} → ${r.to}`;
  if (r.finished === true) return 'finished';
  if (typeof r.path === 'string') return r.created === true ? `${r.path} (new)` : r.unchanged === true ? `${r.path} (unchanged)` : r.path;
  if (typeof r.date === 'string' && Array.isArray(r.facts)) return `${r.date}: ${r.facts.length} facts`;
  if (Array.isArray(r.pages)) return `${r.pages.length} pages`;
  if (Array.isArray(r.results)) return `${r.results.length} results`;
  const flagged = r.flagged as { subject?: unknown } | undefined;
  if (typeof flagged?.subject === 'string') return `conflict: ${flagged.subject}`;
  return 'ok';
}

function pageEvent(name: string, result: ToolResult): DreamEvent | null {
  if (!result.ok) return null;
  const r = result.result as Record<string, unknown>;
  if ((name === 'write_page' || name === 'edit_page') && typeof r.path === 'string' && r.unchanged !== true) {
    return { type: 'page', path: r.path, action: r.created === true ? 'created' : 'updated' };
  }
  if (name === 'archive_page' && typeof r.from === 'string') return { type: 'page', path: r.from, action: 'archived' };
  return null;
}

function throwIfAborted(signal: AbortSignal, usage: LlmUsage): void {
  if (signal.aborted) throw abortError(signal, usage);
}

/** The abort's own reason when it is a typed error (e.g. the runner's timeout), else VK_DREAM_ABORTED. */
function abortError(signal: AbortSignal, usage: LlmUsage, cause?: unknown): VaultkeeperError {
  const reason: unknown = signal.aborted ? signal.reason : cause;
  if (reason instanceof VaultkeeperError) return reason;
  const why = reason instanceof Error && reason.name !== 'AbortError' ? `: ${reason.message}` : '';
  return new LlmRunError('VK_DREAM_ABORTED', `the dream run was aborted${why}`, usage, {
    hint: 'nothing was kept: the batch stays pending for the next run',
    cause: reason,
  });
}

/** The executor's errors (VK_LLM_REQUEST, VK_LLM_CAP, …) keep their code and hint, and carry what the run spent. */
function executorFailed(error: unknown, usage: LlmUsage): VaultkeeperError {
  if (!(error instanceof VaultkeeperError)) return asRunError(error, usage);
  return new LlmRunError(error.code, error.message, usage, { ...(error.hint === undefined ? {} : { hint: error.hint }), cause: error });
}

function asRunError(error: unknown, usage: LlmUsage): VaultkeeperError {
  if (error instanceof VaultkeeperError) return error;
  return new LlmRunError('VK_DREAM_AGENT', `the dream agent failed: ${errorMessage(error)}`, usage, { cause: error });
}


function excerpt(body: unknown): string {
  if (body === undefined) return '';
  const text = typeof body === 'string' ? body : (JSON.stringify(body) ?? String(body));
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

/** The password of a base URL with user:password@, a secret like the key. */
function urlPassword(url: string): string[] {
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === '' ? [] : [password];
  } catch {
    return [];
  }
}
