/**
 * A scripted OpenAI-compatible chat server on 127.0.0.1 that plays the model (the network edge is the
 * only fake, so the real openai client runs). Each request to /v1/chat/completions takes the next step
 * of the script, a reply or a function of the request (the messages so far) returning one: tool calls,
 * text, an HTTP error status, a malformed body, with an optional delay. Every request is recorded (and
 * the peak of requests answered at once), and each reply reports `usage` tokens.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface ChatToolCall {
  id: string;
  type: string;
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | string;
  content?: string | null;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
}

export interface ChatRequest {
  /** 0-based position among all requests the server received (retries included). */
  readonly index: number;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly raw: string;
  readonly body: {
    model?: string;
    messages: ChatMessage[];
    tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
    tool_choice?: unknown;
    temperature?: number;
    [key: string]: unknown;
  };
}

/** A tool call the model makes: arguments as a JSON string (sent as is) or an object (serialized). */
export interface ScriptedCall {
  name: string;
  arguments: string | Record<string, unknown>;
  id?: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

interface Common {
  /** Milliseconds to wait before answering (the client may give up first). */
  delayMs?: number;
}

export type Reply =
  | (Common & {
      toolCalls: Array<ScriptedCall | { raw: unknown }>;
      content?: string;
      /** null: no usage in the reply; default: one token per four characters. */
      usage?: Usage | null;
    })
  | (Common & { text: string; usage?: Usage | null })
  /** An HTTP error; `headers` add to (or, given null, drop) the default `retry-after-ms: 5`. */
  | (Common & { status: number; message?: string; headers?: Record<string, string | null> })
  | (Common & { raw: string; status?: number; contentType?: string });

export type Step = Reply | ((request: ChatRequest) => Reply);

export interface FakeLlmOptions {
  /** The step for every request after the script: by default an HTTP 400 saying the script ran out. */
  fallback?: Step;
}

export interface FakeLlm {
  /** Base URL to configure, e.g. http://127.0.0.1:PORT/v1 */
  readonly baseUrl: string;
  readonly requests: ChatRequest[];
  /** The most requests the server was answering at one time. */
  readonly peakInFlight: number;
  close(): Promise<void>;
}

export const call = (name: string, args: string | Record<string, unknown> = {}, id?: string): ScriptedCall => ({
  name,
  arguments: args,
  ...(id === undefined ? {} : { id }),
});

export const tools = (...calls: Array<ScriptedCall | { raw: unknown }>): Reply => ({ toolCalls: calls });

/** The tool results the client sent in `request` since the model's last reply, parsed. */
export function toolResults(request: ChatRequest): Array<{ id: string; ok: boolean; result?: unknown; error?: string }> {
  const messages = request.body.messages;
  let start = messages.length;
  while (start > 0 && messages[start - 1]!.role !== 'assistant') start--;
  return messages
    .slice(start)
    .filter((m) => m.role === 'tool')
    .map((m) => ({ id: m.tool_call_id ?? '', ...(JSON.parse(m.content ?? 'null') as { ok: boolean; result?: unknown; error?: string }) }));
}

/** Starts fake servers closed after the current test. */
export function useFakeLlm(): (script: Step[], options?: FakeLlmOptions) => Promise<FakeLlm> {
  const started: FakeLlm[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => server.close()));
  });
  return async (script, options) => {
    const server = await startFakeLlm(script, options);
    started.push(server);
    return server;
  };
}

const estimate = (chars: number): number => Math.ceil(chars / 4);

function completion(reply: Extract<Reply, { toolCalls: unknown } | { text: string }>, request: ChatRequest): unknown {
  let message: Record<string, unknown>;
  let replyChars: number;
  if ('toolCalls' in reply) {
    const toolCalls = reply.toolCalls.map((c, i) =>
      'raw' in c
        ? c.raw
        : {
            id: c.id ?? `call_${request.index}_${i}`,
            type: 'function',
            function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
          },
    );
    message = { role: 'assistant', content: reply.content ?? null, tool_calls: toolCalls };
    replyChars = JSON.stringify(toolCalls).length + (reply.content ?? '').length;
  } else {
    message = { role: 'assistant', content: reply.text };
    replyChars = reply.text.length;
  }
  const usage =
    reply.usage === null
      ? undefined
      : (reply.usage ?? { prompt_tokens: estimate(request.raw.length), completion_tokens: estimate(replyChars) + 1 });
  return {
    id: `chatcmpl-${request.index}`,
    object: 'chat.completion',
    created: 1_780_000_000,
    model: request.body.model ?? 'fake',
    choices: [{ index: 0, message, logprobs: null, finish_reason: 'toolCalls' in reply ? 'tool_calls' : 'stop' }],
    ...(usage === undefined ? {} : { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }),
  };
}

export async function startFakeLlm(script: readonly Step[], options: FakeLlmOptions = {}): Promise<FakeLlm> {
  const requests: ChatRequest[] = [];
  let inFlight = 0;
  let peakInFlight = 0;
  const fallback: Step = options.fallback ?? { status: 400, message: `the fake model's script ran out after ${script.length} steps` };
  const http = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      inFlight++;
      peakInFlight = Math.max(peakInFlight, inFlight);
      res.once('close', () => inFlight--);
      const index = requests.length;
      let body: ChatRequest['body'];
      try {
        body = JSON.parse(raw || '{}') as ChatRequest['body'];
      } catch {
        body = { messages: [] };
      }
      const request: ChatRequest = { index, method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, body };
      requests.push(request);
      const send = (status: number, payload: string, headers: Record<string, string | null> = {}): void => {
        if (res.destroyed || res.writableEnded) return;
        const all = Object.entries({ 'content-type': 'application/json', ...headers }).filter((entry): entry is [string, string] => entry[1] !== null);
        res.writeHead(status, Object.fromEntries(all));
        res.end(payload);
      };
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        return send(404, JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      }
      const chatCount = requests.filter((r) => r.path === '/v1/chat/completions').length - 1;
      const step = script[chatCount] ?? fallback;
      let reply: Reply;
      try {
        reply = typeof step === 'function' ? step(request) : step;
      } catch (error) {
        // A failing script assertion: answered with a 400 (not retried) so the test sees the message.
        return send(400, JSON.stringify({ error: { message: `fake model script failed: ${(error as Error).message}` } }));
      }
      const answer = (): void => {
        if ('status' in reply && !('raw' in reply)) {
          const type = reply.status === 429 ? 'rate_limit_exceeded' : 'server_error';
          // retry-after-ms keeps the SDK's backoff short in tests.
          send(reply.status, JSON.stringify({ error: { message: reply.message ?? `scripted HTTP ${reply.status}`, type } }), {
            'retry-after-ms': '5',
            ...reply.headers,
          });
        } else if ('raw' in reply) {
          send(reply.status ?? 200, reply.raw, { 'content-type': reply.contentType ?? 'application/json' });
        } else {
          send(200, JSON.stringify(completion(reply, request)));
        }
      };
      if (reply.delayMs === undefined) return answer();
      const timer = setTimeout(answer, reply.delayMs);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get peakInFlight() {
      return peakInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
