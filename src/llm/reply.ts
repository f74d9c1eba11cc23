/** Reading a chat completion's body, and what a call spent: the API's usage fields, or an estimate when it sends none. */
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { z } from 'zod';
import type { Config } from '../core/config.js';
import type { Spend } from './usage.js';

/** Without `usage` in a reply, tokens are estimated at one per four characters sent and received. */
const CHARS_PER_TOKEN = 4;
const EXCERPT_CHARS = 2_000;

const CompletionShape = z.looseObject({
  choices: z.array(z.looseObject({ message: z.looseObject({}) })).min(1),
});

const UsageShape = z.looseObject({
  usage: z.looseObject({
    prompt_tokens: z.number().nonnegative().optional(),
    completion_tokens: z.number().nonnegative().optional(),
    total_tokens: z.number().nonnegative().optional(),
  }),
});

/** The completion in a body, or what is wrong with the body. */
export function parseCompletion(text: string): { completion: ChatCompletion } | { problem: string } {
  if (text.trim() === '') return { problem: 'the body is empty' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: 'the body is not JSON' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { problem: 'the body is not a JSON object' };
  const parsed = CompletionShape.safeParse(json);
  if (parsed.success) return { completion: json as ChatCompletion };
  // Some proxies answer an error with HTTP 200.
  const message = (json as { error?: { message?: unknown } }).error?.message;
  if (typeof message === 'string') return { problem: `the server sent an error instead of a completion: ${message}` };
  const issue = parsed.error.issues[0];
  return { problem: `it holds no chat completion (${issue === undefined ? 'invalid' : `${issue.path.join('.') || 'body'}: ${issue.message}`})` };
}

/** What a completed call spent: the reply's usage, or an estimate from the characters of the request and the reply. */
export function spendOf(request: ChatCompletionCreateParamsNonStreaming, reply: unknown, prices: Config['llm']['prices']): Spend {
  const usage = UsageShape.safeParse(reply);
  const { prompt_tokens: p, completion_tokens: c, total_tokens: t } = usage.success ? usage.data.usage : {};
  if (p === undefined && c === undefined && t === undefined) {
    const replied = (reply as { choices?: Array<{ message?: unknown }> } | null)?.choices?.map((choice) => choice.message);
    return estimate(request, replied === undefined ? JSON.stringify(reply ?? '') : JSON.stringify(replied), prices);
  }
  const prompt = p ?? Math.max(0, (t ?? 0) - (c ?? 0));
  const completion = c ?? Math.max(0, (t ?? 0) - prompt);
  return priced({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: t ?? prompt + completion, estimated: false, cost: 0 }, prices);
}

/** An estimate for a call whose reply carries no usage (or could not be read): the server did the work all the same. */
export function estimate(request: ChatCompletionCreateParamsNonStreaming, replyText: string, prices: Config['llm']['prices']): Spend {
  const sent = JSON.stringify(request.messages).length + (request.tools === undefined ? 0 : JSON.stringify(request.tools).length);
  const prompt = Math.ceil(sent / CHARS_PER_TOKEN);
  const completion = Math.ceil(replyText.length / CHARS_PER_TOKEN);
  return priced({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, estimated: true, cost: 0 }, prices);
}

function priced(spend: Spend, prices: Config['llm']['prices']): Spend {
  if (prices === null) return spend;
  return { ...spend, cost: (spend.prompt_tokens * prices.input_per_million + spend.completion_tokens * prices.output_per_million) / 1_000_000 };
}

export function excerpt(text: string): string {
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}
