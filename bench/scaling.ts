/**
 * A discrete-event simulation behind docs/scaling.md: one day of dream jobs for many vaults, queued and
 * run through one rate-limited LLM executor with per-tenant caps. Virtual time, seeded, so a run is
 * repeatable and takes a second. `node dist-bench/bench/scaling.js [--vaults 1000] [--seed 7]`.
 *
 * The model: each vault dreams once a day, its job due at 03:00 in its own time zone (24 zones, skewed to
 * Europe and the Americas) plus up to an hour of jitter; a job is 4–40 LLM calls in sequence, each
 * 1.5–9k tokens and 2–12 s; the provider allows REQ_PER_MIN requests and TOK_PER_MIN tokens a minute over
 * at most WORKERS calls in flight; each tenant has a daily token cap, past which its dream runs the offline
 * consolidator (no LLM calls). Jobs queue per tenant (one dream per vault at a time: the vault's lock) and
 * workers pick the tenant whose job has waited longest (fair across tenants, not first-come per call).
 */
import { parseArgs } from 'node:util';
import { createRandom } from './random.js';
import { markdownTable, percentile } from './stats.js';

const { values } = parseArgs({
  options: {
    vaults: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '7' },
    workers: { type: 'string', default: '16' },
    'req-per-min': { type: 'string', default: '500' },
    /** 'spread' (24 zones) or 'one' (every vault dreams at 03:00 in the same zone: the worst burst). */
    zones: { type: 'string', default: 'spread' },
  },
});
const VAULTS = Number(values.vaults);
const WORKERS = Number(values.workers);
const REQ_PER_MIN = Number(values['req-per-min']);
const TOK_PER_MIN = 2_000_000;
const TENANT_DAILY_TOKENS = 150_000;

interface Job {
  tenant: number;
  due: number;
  calls: Array<{ tokens: number; seconds: number }>;
  started?: number;
  finished?: number;
  offline?: boolean;
}

const rng = createRandom(Number(values.seed));
const zoneWeights = Array.from({ length: 24 }, (_, z) => (z >= 5 && z <= 9 ? 3 : z >= 13 && z <= 17 ? 4 : 1));
const totalWeight = zoneWeights.reduce((a, b) => a + b, 0);
const pickZone = (): number => {
  if (values.zones === 'one') return 0;
  let r = rng.next() * totalWeight;
  for (let z = 0; z < 24; z++) if ((r -= zoneWeights[z]!) < 0) return z;
  return 23;
};
const between = (lo: number, hi: number): number => lo + (hi - lo) * rng.next();

const jobs: Job[] = [];
const spent = new Map<number, number>();
for (let tenant = 0; tenant < VAULTS; tenant++) {
  const heavy = rng.next() < 0.05; // a few tenants with big backlogs
  const n = Math.round(heavy ? between(30, 40) : between(4, 16));
  jobs.push({
    tenant,
    due: ((3 + pickZone()) % 24) * 3600 + between(0, 3600),
    calls: Array.from({ length: n }, () => ({ tokens: Math.round(between(1_500, 9_000)), seconds: between(2, 12) })),
  });
}
jobs.sort((a, b) => a.due - b.due);

// Event loop over virtual seconds: a call starts when a worker is free and the last minute's request and
// token budgets allow it; a job's calls run one after another.
const requests: number[] = []; // start times of calls (sliding one-minute window)
const tokensAt: Array<[number, number]> = [];
let inFlight = 0;
let maxInFlight = 0;
let maxPerMinute = 0;
let maxTokensPerMinute = 0;
const ready: Job[] = []; // jobs due and waiting for their next call
const running = new Map<Job, { next: number; callIndex: number }>();
let nextJob = 0;
let now = 0;
const capBreaches: number[] = [];
const perTenantConcurrent = new Map<number, number>();
let maxTenantConcurrent = 0;

const windowCount = (t: number): { req: number; tok: number } => {
  while (requests.length > 0 && requests[0]! <= t - 60) requests.shift();
  while (tokensAt.length > 0 && tokensAt[0]![0] <= t - 60) tokensAt.shift();
  return { req: requests.length, tok: tokensAt.reduce((a, [, k]) => a + k, 0) };
};

while (nextJob < jobs.length || ready.length > 0 || running.size > 0) {
  while (nextJob < jobs.length && jobs[nextJob]!.due <= now) ready.push(jobs[nextJob++]!);
  // Calls that finished free their worker; their job's next call queues again.
  for (const [job, state] of running) {
    if (state.next > now) continue;
    running.delete(job);
    inFlight--;
    if (state.callIndex + 1 < job.calls.length) {
      (job as Job & { cursor?: number }).cursor = state.callIndex + 1;
      ready.push(job);
    } else {
      job.finished = now;
      perTenantConcurrent.set(job.tenant, (perTenantConcurrent.get(job.tenant) ?? 1) - 1);
    }
  }
  // Longest-waiting job first (fair across tenants).
  ready.sort((a, b) => a.due - b.due);
  for (let i = 0; i < ready.length && inFlight < WORKERS; ) {
    const job = ready[i]!;
    const cursor = (job as Job & { cursor?: number }).cursor ?? 0;
    const call = job.calls[cursor]!;
    const used = spent.get(job.tenant) ?? 0;
    if (cursor === 0 && used + job.calls.reduce((a, c) => a + c.tokens, 0) > TENANT_DAILY_TOKENS) {
      // Over the tenant's cap: the offline consolidator, no LLM call (DESIGN §8).
      job.offline = true;
      job.started = now;
      job.finished = now + 5;
      ready.splice(i, 1);
      continue;
    }
    const w = windowCount(now);
    if (w.req + 1 > REQ_PER_MIN || w.tok + call.tokens > TOK_PER_MIN) break; // the provider's budget: wait
    if (used + call.tokens > TENANT_DAILY_TOKENS) capBreaches.push(job.tenant);
    spent.set(job.tenant, used + call.tokens);
    if (cursor === 0) {
      job.started = now;
      const c = (perTenantConcurrent.get(job.tenant) ?? 0) + 1;
      perTenantConcurrent.set(job.tenant, c);
      maxTenantConcurrent = Math.max(maxTenantConcurrent, c);
    }
    requests.push(now);
    tokensAt.push([now, call.tokens]);
    running.set(job, { next: now + call.seconds, callIndex: cursor });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const w2 = windowCount(now);
    maxPerMinute = Math.max(maxPerMinute, w2.req);
    maxTokensPerMinute = Math.max(maxTokensPerMinute, w2.tok);
    ready.splice(i, 1);
  }
  now += 1;
}

const done = jobs.filter((j) => j.finished !== undefined);
const waits = done.map((j) => j.started! - j.due);
const spans = done.map((j) => j.finished! - j.due);
const llmJobs = done.filter((j) => !j.offline);
const first = Math.min(...done.map((j) => j.due));
const last = Math.max(...done.map((j) => j.finished!));
const busiestHour = Math.max(
  ...Array.from({ length: 24 }, (_, h) => done.filter((j) => j.finished! >= h * 3600 && j.finished! < (h + 1) * 3600).length),
);
const minutes = (s: number): string => `${(s / 60).toFixed(1)} min`;
const tokens = [...spent.values()];

console.log(`### ${VAULTS} vaults' dreams through one rate-limited executor (seed ${values.seed}, ${values.zones === 'one' ? 'all in one time zone' : 'spread over 24 time zones'})\n`);
console.log(`Provider budget ${REQ_PER_MIN} requests and ${(TOK_PER_MIN / 1e6).toFixed(1)}M tokens a minute, ${WORKERS} calls in flight at most; tenant cap ${TENANT_DAILY_TOKENS.toLocaleString('en-US')} tokens a day.\n`);
console.log(
  markdownTable([
    ['measure', 'value'],
    ['dream jobs run', `${done.length} of ${jobs.length} (${llmJobs.length} with the LLM, ${done.length - llmJobs.length} offline: over the tenant cap)`],
    ['LLM calls', String(llmJobs.reduce((a, j) => a + j.calls.length, 0))],
    ['span of the day\'s work', `${((last - first) / 3600).toFixed(1)} h`],
    ['busiest hour', `${busiestHour} jobs finished`],
    ['queue wait (due → first call) p50 / p95 / max', `${minutes(percentile(waits, 50))} / ${minutes(percentile(waits, 95))} / ${minutes(Math.max(...waits))}`],
    ['due → done p50 / p95', `${minutes(percentile(spans, 50))} / ${minutes(percentile(spans, 95))}`],
    ['most requests in any minute', `${maxPerMinute} (budget ${REQ_PER_MIN})`],
    ['most tokens in any minute', `${maxTokensPerMinute.toLocaleString('en-US')} (budget ${TOK_PER_MIN.toLocaleString('en-US')})`],
    ['most calls in flight', `${maxInFlight} (workers ${WORKERS})`],
    ['most dreams of one vault at once', String(maxTenantConcurrent)],
    ['tenant tokens p50 / max', `${percentile(tokens, 50).toLocaleString('en-US')} / ${Math.max(...tokens).toLocaleString('en-US')} (cap ${TENANT_DAILY_TOKENS.toLocaleString('en-US')})`],
    ['calls that would pass a tenant cap', String(capBreaches.length)],
  ]),
);
