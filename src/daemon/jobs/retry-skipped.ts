/**
 * The daemon's daily retry of skipped days (issue 26): a day the dream gave up on comes back once a day as
 * one batch (`vault.dream({ retrySkipped: true })`, what `dream --retry-skipped` runs). A retry that fails
 * leaves the days skipped and is not the job's failure: the next try is tomorrow's, not the scheduler's
 * backoff a minute later.
 */
import type { LlmExecutor } from '../../llm/executor.js';
import type { Vault } from '../../vault/vault.js';

export interface RetrySkippedOptions {
  now: Date;
  executor?: LlmExecutor | undefined;
  /** The LLM is known to be down and llm.fallback is offline: go offline at once. */
  offline?: boolean;
}

export async function retrySkippedDays(vault: Vault, options: RetrySkippedOptions): Promise<{ summary: string }> {
  const result = await vault.dream({
    retrySkipped: true,
    now: options.now,
    offline: options.offline ?? false,
    ...(options.executor === undefined ? {} : { executor: options.executor }),
  });
  if (result.status === 'noop') return { summary: 'no skipped days' };
  const days = result.batch === null ? '' : ` ${result.batch.from}..${result.batch.to}`;
  return { summary: `${result.status}${days}: ${result.reason}` };
}
