/**
 * The LLM executor of a hosted job: the vault's own executor (llm/executor.ts: its queue, retries and per-vault
 * caps) behind two limits kept in Postgres, so that they hold across every worker process: the tenant's daily
 * tokens and cost (over a cap a call is refused with the cap error, and the dream goes offline as on one machine),
 * and a global budget of calls per minute shared by all workers (a call over it waits for the next minute).
 * Each call's spend is metered to the tenant in vk_llm_usage.
 */
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { LlmCapError } from '../llm/errors.js';
import type { ChatOptions, ChatRequest, LlmExecutor, SpendCheck } from '../llm/executor.js';
import type { Db } from './db.js';
import type { ServerSettings } from './settings.js';

export interface TenantUsage {
  day: string;
  calls: number;
  total_tokens: number;
  cost: number;
}

/** Today (UTC: tenants span time zones; the caps reset at 00:00 UTC). */
const utcDay = (now: Date): string => now.toISOString().slice(0, 10);
const nextUtcMidnight = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));

export async function tenantUsage(db: Db, tenant: string, now = new Date()): Promise<TenantUsage> {
  const day = utcDay(now);
  const { rows } = await db.query<{ calls: string; total_tokens: string; cost: number }>('SELECT calls, total_tokens, cost FROM vk_llm_usage WHERE tenant = $1 AND day = $2', [tenant, day]);
  const row = rows[0];
  return { day, calls: Number(row?.calls ?? 0), total_tokens: Number(row?.total_tokens ?? 0), cost: row?.cost ?? 0 };
}

export async function meter(db: Db, tenant: string, spend: { prompt_tokens: number; completion_tokens: number; total_tokens: number; cost: number }, now = new Date()): Promise<void> {
  await db.query(
    `INSERT INTO vk_llm_usage (tenant, day, calls, prompt_tokens, completion_tokens, total_tokens, cost) VALUES ($1, $2, 1, $3, $4, $5, $6)
     ON CONFLICT (tenant, day) DO UPDATE SET calls = vk_llm_usage.calls + 1, prompt_tokens = vk_llm_usage.prompt_tokens + $3,
       completion_tokens = vk_llm_usage.completion_tokens + $4, total_tokens = vk_llm_usage.total_tokens + $5, cost = vk_llm_usage.cost + $6`,
    [tenant, utcDay(now), Math.round(spend.prompt_tokens), Math.round(spend.completion_tokens), Math.round(spend.total_tokens), spend.cost],
  );
}

export interface TenantCaps {
  tokensPerDay: number | null;
  costPerDay: number | null;
}

export async function tenantCaps(db: Db, settings: ServerSettings, tenant: string): Promise<TenantCaps> {
  const { rows } = await db.query<{ tokens_per_day: string | null; cost_per_day: number | null }>('SELECT tokens_per_day, cost_per_day FROM vk_tenants WHERE name = $1', [tenant]);
  const row = rows[0];
  return {
    tokensPerDay: row?.tokens_per_day != null ? Number(row.tokens_per_day) : settings.tenantTokensPerDay,
    costPerDay: row?.cost_per_day ?? settings.tenantCostPerDay,
  };
}

export async function setTenantCaps(db: Db, tenant: string, caps: { tokensPerDay?: number | null; costPerDay?: number | null }): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE vk_tenants SET tokens_per_day = CASE WHEN $2 THEN $3::bigint ELSE tokens_per_day END, cost_per_day = CASE WHEN $4 THEN $5::double precision ELSE cost_per_day END WHERE name = $1`,
    [tenant, caps.tokensPerDay !== undefined, caps.tokensPerDay ?? null, caps.costPerDay !== undefined, caps.costPerDay ?? null],
  );
  return (rowCount ?? 0) > 0;
}

/** Why the tenant may not call the LLM now, or null. */
export async function overCap(db: Db, settings: ServerSettings, tenant: string, now = new Date()): Promise<string | null> {
  const caps = await tenantCaps(db, settings, tenant);
  if (caps.tokensPerDay === null && caps.costPerDay === null) return null;
  const used = await tenantUsage(db, tenant, now);
  if (caps.tokensPerDay !== null && used.total_tokens >= caps.tokensPerDay) return `tenant ${tenant} reached its daily LLM token cap: ${used.total_tokens} of ${caps.tokensPerDay} tokens today (UTC)`;
  if (caps.costPerDay !== null && used.cost >= caps.costPerDay) return `tenant ${tenant} reached its daily LLM cost cap: ${used.cost} of ${caps.costPerDay} today (UTC)`;
  return null;
}

/** Takes one call from this minute's shared budget, waiting for the next minute while it is spent. */
export async function takeRateSlot(db: Db, perMinute: number, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<void> {
  for (;;) {
    const { rows } = await db.query<{ calls: number; minute: Date }>(
      `INSERT INTO vk_llm_rate (minute, calls) VALUES (date_trunc('minute', now()), 1)
       ON CONFLICT (minute) DO UPDATE SET calls = vk_llm_rate.calls + 1 WHERE vk_llm_rate.calls < $1 RETURNING calls, minute`,
      [perMinute],
    );
    if (rows.length > 0) {
      if (Math.random() < 0.01) await db.query(`DELETE FROM vk_llm_rate WHERE minute < now() - interval '1 hour'`);
      return;
    }
    await sleep(60_000 - (Date.now() % 60_000) + Math.floor(Math.random() * 250));
  }
}

export function cappedExecutor(inner: LlmExecutor, db: Db, settings: ServerSettings, tenant: string): LlmExecutor {
  const capError = (message: string): LlmCapError => new LlmCapError('day', message, nextUtcMidnight(new Date()), 'the tenant\'s LLM jobs run offline until the cap resets (docs/hosting.md)');
  return {
    configured: inner.configured,
    usage: () => inner.usage(),
    check: () => inner.check(),
    canSpend: (job: string, run?: string): SpendCheck => inner.canSpend(job, run),
    async chat(job: string, request: ChatRequest, options?: ChatOptions): Promise<ChatCompletion> {
      const over = await overCap(db, settings, tenant);
      if (over !== null) throw capError(over);
      if (settings.llmCallsPerMinute !== null) await takeRateSlot(db, settings.llmCallsPerMinute);
      const before = inner.usage().today;
      try {
        return await inner.chat(job, request, options);
      } finally {
        const after = inner.usage().today;
        const spent = {
          // A local midnight between the two reads starts the counts afresh: then `after` is the call's own.
          prompt_tokens: Math.max(0, after.prompt_tokens - before.prompt_tokens),
          completion_tokens: Math.max(0, after.completion_tokens - before.completion_tokens),
          total_tokens: Math.max(0, after.total_tokens - before.total_tokens),
          cost: Math.max(0, after.cost - before.cost),
        };
        if (after.calls > before.calls) await meter(db, tenant, spent);
      }
    },
  };
}
