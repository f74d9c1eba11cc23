/** The LLM executor's typed errors: each says what happened and what to do next. */
import { VaultkeeperError } from '../core/errors.js';

/** A call refused because a token or cost cap is reached (code VK_LLM_CAP). */
export class LlmCapError extends VaultkeeperError {
  /** Which cap: the run's tokens, or the day's tokens or cost. */
  readonly cap: 'run' | 'day';
  /** When the cap resets: the next local midnight for a daily cap; null for a run's (the next run starts afresh). */
  readonly resetsAt: Date | null;

  constructor(cap: 'run' | 'day', message: string, resetsAt: Date | null, hint: string) {
    super('VK_LLM_CAP', message, { hint });
    this.name = 'LlmCapError';
    this.cap = cap;
    this.resetsAt = resetsAt;
  }
}

/** The endpoint could not be used: unreachable, timed out, or an HTTP error (code VK_LLM_REQUEST). */
export class LlmRequestError extends VaultkeeperError {
  /** The HTTP status of the last try, if it got that far. */
  readonly status: number | null;
  /** When the server said calls may resume (a Retry-After longer than the executor waits), else null. */
  readonly retryAt: Date | null;

  constructor(message: string, options: { hint: string; status?: number | null; retryAt?: Date | null; cause?: unknown }) {
    super('VK_LLM_REQUEST', message, { hint: options.hint, cause: options.cause });
    this.name = 'LlmRequestError';
    this.status = options.status ?? null;
    this.retryAt = options.retryAt ?? null;
  }
}

/** The endpoint answered with something that is not a chat completion (code VK_LLM_RESPONSE). */
export class LlmResponseError extends VaultkeeperError {
  /** What is wrong with the reply, e.g. 'the body is not JSON'. */
  readonly problem: string;
  /** The start of the body as received, for logs. */
  readonly body: string;

  constructor(message: string, problem: string, body: string, hint: string) {
    super('VK_LLM_RESPONSE', message, { hint });
    this.name = 'LlmResponseError';
    this.problem = problem;
    this.body = body;
  }
}
