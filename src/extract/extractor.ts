/**
 * The extractor a run uses: the LLM when one is configured (or a chat function is given), else the
 * rules. A reply the LLM botches falls back to the rules for its turns, so a turn is never just lost. An
 * LLM that cannot be used (unreachable, failing, over a cap) falls back to the rules for the rest of the
 * run with `llm.fallback: offline` (the default), saying why in `fallback`; with `wait` its error stands,
 * so the daemon tries the session again later.
 */
import type { VaultContext } from '../vault/context.js';
import type { DatedCandidate, ExtractedFact } from './extracted.js';
import { VaultkeeperError } from '../core/errors.js';
import { executorChat, extractWithLlm, type ChatFn } from './llm.js';
import { extractByRules } from './rules.js';

export interface ExtractorOptions {
  /** Use the rules even when an LLM is configured. */
  offline?: boolean | undefined;
  /** The chat function to call instead of the configured endpoint (the daemon's LLM executor). */
  chat?: ChatFn | undefined;
}

export interface ExtractionCounts {
  llm_calls: number;
  tokens: number;
  /** Replies that were not the JSON asked for (their turns went through the rules instead). */
  invalid_replies: number;
  /** Items of replies that were not facts. */
  invalid_facts: number;
  /** Facts dropped below `extract.min_confidence`. */
  low_confidence: number;
}

export interface Extraction extends ExtractionCounts {
  facts: ExtractedFact[];
}

export interface Extractor {
  readonly mode: 'llm' | 'rules';
  /** Why the rules took over from the LLM in this run (it could not be used), else null. */
  readonly fallback: string | null;
  extract(candidates: readonly DatedCandidate[]): Promise<Extraction>;
}

/** An LLM that cannot be used, as opposed to a reply it botched: unreachable, failing, over a cap. */
const LLM_DOWN = new Set(['VK_LLM_REQUEST', 'VK_LLM_CAP', 'VK_LLM_CONFIG']);

export const emptyCounts = (): ExtractionCounts => ({ llm_calls: 0, tokens: 0, invalid_replies: 0, invalid_facts: 0, low_confidence: 0 });

export function addCounts(into: ExtractionCounts, from: ExtractionCounts): void {
  into.llm_calls += from.llm_calls;
  into.tokens += from.tokens;
  into.invalid_replies += from.invalid_replies;
  into.invalid_facts += from.invalid_facts;
  into.low_confidence += from.low_confidence;
}

export function createExtractor(ctx: VaultContext, options: ExtractorOptions = {}): Extractor {
  const rules = (candidates: readonly DatedCandidate[]): ExtractedFact[] => candidates.flatMap((c) => extractByRules(c, ctx.timeZone));
  if (options.offline === true || (options.chat === undefined && ctx.config.llm.base_url === null)) {
    return { mode: 'rules', fallback: null, extract: async (candidates) => ({ ...emptyCounts(), facts: rules(candidates) }) };
  }
  const chat = options.chat ?? ownExecutorChat(ctx);
  const { max_turns_per_call: perCall, min_confidence: minConfidence } = ctx.config.extract;
  let fallback: string | null = null;
  return {
    mode: 'llm',
    get fallback() {
      return fallback;
    },
    async extract(candidates) {
      const result: Extraction = { ...emptyCounts(), facts: [] };
      for (let start = 0; start < candidates.length; start += perCall) {
        const chunk = candidates.slice(start, start + perCall);
        // Once the LLM could not be used, the rest of the run goes by the rules: no more waits on a dead endpoint.
        if (fallback !== null) {
          result.facts.push(...rules(chunk));
          continue;
        }
        let reply: Awaited<ReturnType<typeof extractWithLlm>>;
        try {
          reply = await extractWithLlm(chunk, { chat, timeZone: ctx.timeZone, minConfidence });
        } catch (error) {
          if (!(error instanceof VaultkeeperError) || !LLM_DOWN.has(error.code) || ctx.config.llm.fallback !== 'offline') throw error;
          fallback = `the LLM cannot be used (${error.message}); rule-based extraction instead (llm.fallback: offline)`;
          result.facts.push(...rules(chunk));
          continue;
        }
        result.llm_calls++;
        result.tokens += reply.tokens;
        result.invalid_facts += reply.invalidFacts;
        result.low_confidence += reply.lowConfidence;
        if (reply.facts === null) {
          result.invalid_replies++;
          result.facts.push(...rules(chunk));
        } else {
          result.facts.push(...reply.facts);
        }
      }
      return result;
    },
  };
}

/** Without the daemon's executor, a private one (its usage file and caps are shared with the daemon's). */
function ownExecutorChat(ctx: VaultContext): ChatFn {
  let chat: Promise<ChatFn> | undefined;
  return async (request) => {
    chat ??= import('../llm/executor.js').then(async ({ createExecutor }) =>
      executorChat(await createExecutor({ settings: ctx.config.llm, env: ctx.env, root: ctx.root, timeZone: ctx.timeZone })),
    );
    try {
      return await (await chat)(request);
    } catch (error) {
      // Rules need no model: say so where a person reads the error.
      if (error instanceof VaultkeeperError && error.code === 'VK_LLM_REQUEST') {
        throw new VaultkeeperError(error.code, error.message, { hint: `${error.hint ?? 'check the LLM endpoint'}, or use --offline for rule-based extraction`, cause: error });
      }
      throw error;
    }
  };
}
