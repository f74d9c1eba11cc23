/**
 * `npm run bench -- --only server-load`: the hosted server under load (issue 28, deliverable 5), on 127.0.0.1.
 * A throwaway PostgreSQL (test/helpers/postgres.ts), the built CLI as child processes (`server --no-workers` and W
 * `worker`s), N vaults, C clients mixing remember, search and forget for D seconds over real HTTP, with a dream
 * queued for every vault at once a quarter of the way in. Then the crash half: a worker killed (SIGKILL) as a dream
 * starts and the API killed while remembers are in flight, both restarted, the queue drained; and the checks:
 * every acknowledged fact is in its vault's logs exactly once (in the working copy and in the remote), no vault ran
 * two dreams at once (the workers' own start/done lines, timed as they arrive), and `vaultkeeper doctor` passes on
 * every working copy. Flags: --vaults 200 --clients 50 --seconds 120 --workers 4 (see bench.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { copyPath, ensureCopy, remoteOf } from '#src/server/copies.js';
import { openDb, type Db } from '#src/server/db.js';
import { openQueue } from '#src/server/jobs.js';
import { migrate } from '#src/server/migrations.js';
import { createToken, createVaultRow, type VaultRow } from '#src/server/registry.js';
import { SERVER_MACHINE } from '#src/server/serve.js';
import { serverSettings } from '#src/server/settings.js';
import { startPostgres, type Postgres } from '../test/helpers/postgres.js';
import { CLI, runCli } from './child.js';
import { createRandom, type Random } from './random.js';
import { progress } from './report.js';
import { markdownTable, ms, summarize, type Summary } from './stats.js';

export interface ServerLoadOptions {
  vaults: number;
  clients: number;
  seconds: number;
  workers: number;
  seed: number;
  env: NodeJS.ProcessEnv;
}

interface Endpoint {
  name: string;
  ok: number;
  errors: number;
  latency: Summary;
}

interface Crash {
  /** The dream job whose worker was killed, and whether it completed after a retry. */
  killedDreamJob: string | null;
  killedDreamState: string | null;
  killedDreamRetries: number | null;
  /** Remembers in flight when the API was killed: answered before, and never answered. */
  apiInflight: number;
  /** When the API was killed: right after the first remember was answered. */
  apiKilledAfterMs: number;
  apiAnswered: number;
  apiUnanswered: number;
}

interface Checks {
  acknowledged: number;
  /** Acknowledged facts not found exactly once in the working copy's logs, and in the remote's. */
  missingOrDoubled: number;
  remoteMissingOrDoubled: number;
  /** Unacknowledged facts (the API died before answering) found more than once. */
  unacknowledgedDoubled: number;
  unacknowledgedPresent: number;
  vaultsWithOverlappingDreams: number;
  dreamAttempts: number;
  /** Dream attempts that failed before dreaming, with their reasons (distinct, counted). */
  refusedAttempts: number;
  refusedReasons: string[];
  /** Dream attempts refused by the job lease and re-queued (worker.ts `requeue`); attempts that found their lease lost. */
  requeuedAttempts: number;
  leaseLostAttempts: number;
  doctorFailures: string[];
  remotesBehind: number;
}

export interface ServerLoadResult {
  options: Omit<ServerLoadOptions, 'env'>;
  setupSeconds: number;
  requests: number;
  throughput: number;
  endpoints: Endpoint[];
  dreamWait: Summary;
  dreamRun: Summary;
  syncWait: Summary;
  dreamsCompleted: number;
  dreamsFailed: number;
  drainSeconds: number;
  cpuSeconds: { api: number; workers: number };
  crash: Crash;
  checks: Checks;
}

interface Proc {
  child: ChildProcess;
  url: string;
  /** Each stderr line with the time it arrived. */
  lines: Array<{ at: number; text: string }>;
  exited: Promise<void>;
}

function startProc(args: readonly string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Proc> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const proc: Proc = { child, url: '', lines: [], exited: new Promise((done) => child.on('exit', () => done())) };
    let buffer = '';
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
      reject(new Error(`vaultkeeper ${args.join(' ')} did not start within 60 s`));
    }, 60_000);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const text of parts) {
        proc.lines.push({ at: Date.now(), text });
        const match = ready.exec(text);
        if (match !== null && !settled) {
          settled = true;
          clearTimeout(timer);
          proc.url = match[1] ?? '';
          resolve(proc);
        }
      }
    });
    void proc.exited.then(() => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`vaultkeeper ${args.join(' ')} exited before it was ready:\n${proc.lines.map((l) => l.text).join('\n')}`));
    });
  });
}

const startApi = (env: NodeJS.ProcessEnv): Promise<Proc> => startProc(['server', '--port', '0', '--no-workers'], env, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
const startWorker = (env: NodeJS.ProcessEnv): Promise<Proc> => startProc(['worker'], env, /vaultkeeper worker: running/);

async function stopProc(proc: Proc): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGTERM');
  const killer = setTimeout(() => proc.child.kill('SIGKILL'), 15_000);
  await proc.exited;
  clearTimeout(killer);
}

/** user + system CPU seconds of a live process (Linux /proc; 0 elsewhere). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

async function pool<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const WORDS = ['garden', 'invoice', 'Lisbon', 'piano', 'deadline', 'coffee', 'marathon', 'Kubernetes', 'birthday', 'dentist', 'recipe', 'quarterly', 'bicycle', 'novel', 'Tokyo', 'budget'];
const PEOPLE = ['Ana', 'Bruno', 'Chen', 'Dara', 'Emil', 'Farah'];

function factText(random: Random, vault: string, seq: number): string {
  return `${random.pick(PEOPLE)} talked about the ${random.pick(WORDS)} and the ${random.pick(WORDS)} (load ${vault} #${seq})`;
}

/** A past day, so each vault's dream has batches to consolidate. */
function pastDay(random: Random): string {
  return new Date(Date.now() - (1 + random.int(30)) * 86_400_000).toISOString().slice(0, 10);
}

interface Client {
  url: () => string;
  tokens: Map<string, string>;
}

async function request(client: Client, row: VaultRow, method: string, endpoint: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${client.url()}/v1/vaults/${row.name}/${endpoint}`, {
    method,
    headers: { authorization: `Bearer ${client.tokens.get(row.tenant)!}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

const tenantOf = (i: number): string => `t${String(Math.floor(i / 10)).padStart(3, '0')}`;
const vaultName = (i: number): string => `v${String(i).padStart(4, '0')}`;

async function allQueued(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM pgboss.job WHERE name LIKE 'vk-%' AND state IN ('created', 'retry', 'active')`);
  return Number(rows[0]!.n);
}

async function drain(db: Db, limitMs: number): Promise<number> {
  const started = Date.now();
  while ((await allQueued(db)) > 0) {
    if (Date.now() - started > limitMs) throw new Error(`the queue did not drain within ${limitMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  return (Date.now() - started) / 1000;
}

/** Each fact line's id in a vault's logs (working copy: files; remote: `git grep` at HEAD). */
async function idsInCopy(root: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const dir = path.join(root, 'logs');
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.name.endsWith('.md')) {
        for (const match of (await readFile(full, 'utf8')).matchAll(/^- .*\^(f-[0-9a-z]+)\s*$/gm)) counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + 1);
      }
    }
  };
  await walk(dir).catch(() => undefined);
  return counts;
}

function gitOut(args: readonly string[]): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('git', args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('exit', () => resolve(out));
  });
}

async function idsInRemote(remote: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const out = await gitOut(['--git-dir', remote, 'grep', '-h', '-E', '^- .*\\^f-[0-9a-z]+\\s*$', 'HEAD', '--', 'logs/']);
  for (const match of out.matchAll(/\^(f-[0-9a-z]+)\s*$/gm)) counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + 1);
  return counts;
}

/**
 * Per vault, the dream attempts as [start, end] from the workers' lines; a killed attempt ends at the kill. An attempt
 * that failed, or was refused by the job lease (its job expired and was retried while the first still ran; it is
 * re-queued), is counted apart: it ran no dream. One job id may start twice in one worker (pg-boss gives up waiting
 * for a handler at its expiry and fetches again while the first handler runs on): a refusal closes the newest
 * attempt of that id, a done or failed line the oldest.
 */
function dreamIntervals(workers: readonly Proc[], kills: ReadonlyMap<Proc, number>): { byVault: Map<string, Array<[number, number]>>; refused: string[]; requeued: number; leaseLost: number } {
  const byVault = new Map<string, Array<[number, number]>>();
  const refused: string[] = [];
  let requeued = 0;
  let leaseLost = 0;
  for (const worker of workers) {
    const open = new Map<string, Array<{ vault: string; at: number }>>();
    for (const { at, text } of worker.lines) {
      const start = /job dream (\S+) of vault (\S+) started/.exec(text);
      if (start !== null) {
        open.set(start[1]!, [...(open.get(start[1]!) ?? []), { vault: start[2]!, at }]);
        continue;
      }
      if (/job dream \S+: the job lease was lost/.test(text)) leaseLost++;
      const busy = /job dream (\S+) refused: /.exec(text);
      if (busy !== null) {
        if (open.get(busy[1]!)?.pop() !== undefined) requeued++;
        continue;
      }
      const end = /job dream (\S+) (done|failed)(?: in \d+ ms: (.*))?/.exec(text);
      const began = end === null ? undefined : open.get(end[1]!)?.shift();
      if (began === undefined) continue;
      if (end![2] === 'failed') refused.push(end![3] ?? 'failed');
      else byVault.set(began.vault, [...(byVault.get(began.vault) ?? []), [began.at, at]]);
    }
    // Still open: the worker was killed (its attempt ends there) or it was stopped mid-job.
    for (const list of open.values()) {
      for (const began of list) byVault.set(began.vault, [...(byVault.get(began.vault) ?? []), [began.at, kills.get(worker) ?? Date.now()]]);
    }
  }
  return { byVault, refused, requeued, leaseLost };
}

export async function measureServerLoad(base: string, options: ServerLoadOptions): Promise<ServerLoadResult> {
  const random = createRandom(options.seed);
  const dir = path.join(base, 'server-load');
  const setupStarted = Date.now();
  progress(`server-load: starting PostgreSQL`);
  const postgres: Postgres = await startPostgres();
  const env: NodeJS.ProcessEnv = {
    ...options.env,
    DATABASE_URL: postgres.url,
    VAULTKEEPER_SERVER_DATA: path.join(dir, 'data'),
    VAULTKEEPER_REMOTES: path.join(dir, 'remotes'),
    HOME: path.join(dir, 'home'),
    LANCE_CPU_THREADS: '2',
    VAULTKEEPER_MACHINE: SERVER_MACHINE,
    // A dream whose worker died is found lost after 120 s and retried a second later. pg-boss 10 has no heartbeat:
    // the expiry must outlast the slowest dream on this (shared, loaded) machine, or a slow dream is retried beside
    // itself (the vault's lock refuses the retry).
    VAULTKEEPER_JOB_EXPIRE_S: '120',
    VAULTKEEPER_JOB_RETRY_DELAY_S: '1',
  };
  const settings = serverSettings(env);
  const db = await openDb(postgres.url, 4);
  const procs: Proc[] = [];
  const workers: Proc[] = [];
  const kills = new Map<Proc, number>();
  try {
    await migrate(db);
    const rows: VaultRow[] = [];
    const tokens = new Map<string, string>();
    for (let i = 0; i < options.vaults; i++) rows.push((await createVaultRow(db, tenantOf(i), vaultName(i))).row);
    for (const tenant of new Set(rows.map((r) => r.tenant))) tokens.set(tenant, (await createToken(db, tenant, null, ['read', 'write'])).token);
    progress(`server-load: creating ${rows.length} working copies and remotes`);
    const saved = process.env.VAULTKEEPER_MACHINE;
    process.env.VAULTKEEPER_MACHINE = SERVER_MACHINE;
    await pool(rows, 4, async (row) => void (await ensureCopy(settings, row)));
    if (saved === undefined) delete process.env.VAULTKEEPER_MACHINE;
    else process.env.VAULTKEEPER_MACHINE = saved;

    let api = await startApi(env);
    procs.push(api);
    for (let i = 0; i < options.workers; i++) workers.push(await startWorker(env));
    procs.push(...workers);
    const setupSeconds = (Date.now() - setupStarted) / 1000;
    const client: Client = { url: () => api.url, tokens };

    // The load: each client loops until the deadline.
    const latencies = new Map<string, number[]>();
    const errors = new Map<string, number>();
    const acknowledged = new Map<string, { vault: VaultRow }>();
    const live = new Map<string, string[]>(rows.map((r) => [r.id, []]));
    let seq = 0;
    const timed = async (name: string, work: () => Promise<{ status: number; json: unknown }>): Promise<{ status: number; json: unknown } | null> => {
      const started = performance.now();
      try {
        const result = await work();
        if (result.status >= 300) {
          errors.set(name, (errors.get(name) ?? 0) + 1);
          if ((errors.get(name) ?? 0) <= 3) progress(`server-load: ${name} answered ${result.status}: ${JSON.stringify(result.json).slice(0, 200)}`);
          return null;
        }
        latencies.set(name, [...(latencies.get(name) ?? []), performance.now() - started]);
        return result;
      } catch (error) {
        errors.set(name, (errors.get(name) ?? 0) + 1);
        if ((errors.get(name) ?? 0) <= 3) progress(`server-load: ${name} failed: ${String(error)}`);
        return null;
      }
    };
    const remember = async (row: VaultRow): Promise<void> => {
      const n = 1 + random.int(3);
      const date = pastDay(random);
      const facts = Array.from({ length: n }, () => ({ text: factText(random, row.name, ++seq), category: 'moment', date }));
      const result = await timed('remember', () => request(client, row, 'POST', 'remember', { facts }));
      for (const f of (result?.json as { facts?: Array<{ id: string }> } | null)?.facts ?? []) {
        acknowledged.set(f.id, { vault: row });
        live.get(row.id)!.push(f.id);
      }
    };
    const search = async (row: VaultRow): Promise<void> => {
      await timed('search', () => request(client, row, 'GET', `search?q=${encodeURIComponent(`${random.pick(PEOPLE)} ${random.pick(WORDS)}`)}&k=5`));
    };
    const forget = async (row: VaultRow): Promise<void> => {
      const ids = live.get(row.id)!;
      if (ids.length === 0) return remember(row);
      const id = ids.splice(random.int(ids.length), 1)[0]!;
      await timed('forget', () => request(client, row, 'POST', 'forget', { id, reason: 'load test' }));
    };

    progress(`server-load: ${options.clients} clients for ${options.seconds} s on ${rows.length} vaults, ${options.workers} workers`);
    const cpuBefore = { api: cpuSeconds(api.child.pid), workers: workers.reduce((s, w) => s + cpuSeconds(w.child.pid), 0) };
    const loadStarted = Date.now();
    const deadline = loadStarted + options.seconds * 1000;
    const dreamWave = new Promise<void>((resolve) => {
      setTimeout(() => {
        progress(`server-load: a dream queued for every vault`);
        void pool(rows, 16, async (row) => void (await timed('dream', () => request(client, row, 'POST', 'dream', { force: true })))).then(resolve);
      }, (options.seconds * 1000) / 4);
    });
    await Promise.all(
      Array.from({ length: options.clients }, async () => {
        while (Date.now() < deadline) {
          const row = random.pick(rows);
          const dice = random.next();
          if (dice < 0.5) await remember(row);
          else if (dice < 0.9) await search(row);
          else await forget(row);
        }
      }),
    );
    await dreamWave;
    const loadSeconds = (Date.now() - loadStarted) / 1000;
    // The figures of the load alone (the crash half below makes a few more requests).
    const endpoints: Endpoint[] = ['remember', 'search', 'forget', 'dream'].map((name) => ({ name, ok: latencies.get(name)?.length ?? 0, errors: errors.get(name) ?? 0, latency: summarize(latencies.get(name) ?? [0]) }));
    const requests = endpoints.filter((e) => e.name !== 'dream').reduce((s, e) => s + e.ok, 0);
    const cpu = { api: cpuSeconds(api.child.pid) - cpuBefore.api, workers: workers.reduce((s, w) => s + cpuSeconds(w.child.pid), 0) - cpuBefore.workers };
    progress(`server-load: load done; draining the dreams`);
    const drainSeconds = await drain(db, 20 * 60_000);

    // Crash 1: a worker killed (SIGKILL) as a dream starts in it.
    progress(`server-load: killing a worker mid-dream`);
    const crashRows = rows.slice(0, Math.min(8, rows.length));
    for (const row of crashRows) await remember(row);
    const linesBefore = new Map(workers.map((w) => [w, w.lines.length]));
    for (const row of crashRows) await timed('dream', () => request(client, row, 'POST', 'dream', { force: true }));
    let killedDreamJob: string | null = null;
    const killDeadline = Date.now() + 120_000;
    while (killedDreamJob === null && Date.now() < killDeadline) {
      for (const worker of workers) {
        const started = worker.lines.slice(linesBefore.get(worker)).find((l) => /job dream (\S+) of vault \S+ started/.test(l.text));
        if (started !== undefined && !kills.has(worker)) {
          worker.child.kill('SIGKILL');
          kills.set(worker, Date.now());
          killedDreamJob = /job dream (\S+)/.exec(started.text)![1]!;
          break;
        }
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const replacement = await startWorker(env);
    workers.push(replacement);
    procs.push(replacement);

    // Crash 2: the API killed while remembers are in flight; answered ones are acknowledged.
    progress(`server-load: killing the API mid-remember`);
    let answered = 0;
    let unanswered = 0;
    const unacknowledged = new Map<string, VaultRow>();
    const inflight = rows.slice(0, Math.min(40, rows.length)).map(async (row) => {
      const text = factText(random, row.name, ++seq);
      try {
        const result = await request(client, row, 'POST', 'remember', { facts: [{ text, category: 'moment', date: pastDay(random) }] });
        if (result.status !== 200) throw new Error(String(result.status));
        for (const f of (result.json as { facts: Array<{ id: string }> }).facts) acknowledged.set(f.id, { vault: row });
        answered++;
      } catch {
        unanswered++;
        unacknowledged.set(text, row);
      }
    });
    // Killed right after the first answer (an acknowledged commit), with the others still in flight.
    const sent = Date.now();
    while (answered === 0 && Date.now() - sent < 60_000) await new Promise((r) => setTimeout(r, 2));
    const killedAfterMs = Date.now() - sent;
    api.child.kill('SIGKILL');
    await Promise.all(inflight);
    await api.exited;
    api = await startApi(env);
    procs.push(api);

    // Every vault's last writes pushed, then the queue drained (the killed dream retried after it expires).
    progress(`server-load: draining the queue (the lost dream is retried after it expires)`);
    const queue = await openQueue(settings, { supervise: false });
    try {
      await drain(db, 20 * 60_000);
      for (const row of rows) await queue.send('sync', { vault: row.id });
      await drain(db, 20 * 60_000);
    } finally {
      await queue.stop();
    }

    // The checks.
    progress(`server-load: checking every fact, the dreams' timing and doctor on ${rows.length} vaults`);
    let missingOrDoubled = 0;
    let remoteMissingOrDoubled = 0;
    let unacknowledgedDoubled = 0;
    let unacknowledgedPresent = 0;
    let remotesBehind = 0;
    const byVault = new Map<string, string[]>();
    for (const [id, { vault }] of acknowledged) byVault.set(vault.id, [...(byVault.get(vault.id) ?? []), id]);
    for (const row of rows) {
      const root = copyPath(settings, row);
      const inCopy = await idsInCopy(root);
      const inRemote = await idsInRemote(remoteOf(settings, row));
      for (const id of byVault.get(row.id) ?? []) {
        if (inCopy.get(id) !== 1) missingOrDoubled++;
        if (inRemote.get(id) !== 1) remoteMissingOrDoubled++;
      }
      if ((await gitOut(['-C', root, 'rev-parse', 'HEAD'])) !== (await gitOut(['--git-dir', remoteOf(settings, row), 'rev-parse', 'HEAD']))) remotesBehind++;
    }
    for (const [text, row] of unacknowledged) {
      const out = await gitOut(['-C', copyPath(settings, row), 'grep', '-h', '-F', text, '--', 'logs/']);
      const n = out.split('\n').filter((l) => l.includes(text)).length;
      if (n > 0) unacknowledgedPresent++;
      if (n > 1) unacknowledgedDoubled++;
    }
    const { byVault: intervals, refused, requeued, leaseLost } = dreamIntervals(workers, kills);
    let overlapping = 0;
    let attempts = 0;
    for (const list of intervals.values()) {
      attempts += list.length;
      const sorted = [...list].sort((a, b) => a[0] - b[0]);
      if (sorted.some((span, i) => i > 0 && span[0] < sorted[i - 1]![1])) overlapping++;
    }
    const doctorFailures: string[] = [];
    await pool(rows, 3, async (row) => {
      const result = await runCli(['doctor', '--json', '--vault', copyPath(settings, row)], { env });
      if (result.code !== 0) doctorFailures.push(`${row.tenant}/${row.name}: ${(result.stdout + result.stderr).split('\n').find((l) => l.trim() !== '') ?? `exit ${result.code}`}`);
    });

    // Queue wait (created, or due, to started) and run time, from the job rows.
    const jobs = await db.query<{ name: string; state: string; wait_ms: number; run_ms: number | null; retry_count: number; id: string }>(
      `SELECT id::text, name, state, retry_count, EXTRACT(EPOCH FROM (started_on - GREATEST(created_on, start_after))) * 1000 AS wait_ms,
              EXTRACT(EPOCH FROM (completed_on - started_on)) * 1000 AS run_ms
         FROM (SELECT id, name, state, retry_count, created_on, start_after, started_on, completed_on FROM pgboss.job
               UNION ALL SELECT id, name, state, retry_count, created_on, start_after, started_on, completed_on FROM pgboss.archive) j
        WHERE name IN ('vk-dream', 'vk-sync') AND started_on IS NOT NULL`,
    );
    const dreams = jobs.rows.filter((j) => j.name === 'vk-dream');
    const killed = killedDreamJob === null ? undefined : dreams.find((j) => j.id === killedDreamJob);
    return {
      options: { vaults: options.vaults, clients: options.clients, seconds: options.seconds, workers: options.workers, seed: options.seed },
      setupSeconds,
      requests,
      throughput: requests / loadSeconds,
      endpoints,
      dreamWait: summarize(dreams.map((j) => Number(j.wait_ms))),
      dreamRun: summarize(dreams.filter((j) => j.run_ms !== null).map((j) => Number(j.run_ms))),
      syncWait: summarize(jobs.rows.filter((j) => j.name === 'vk-sync').map((j) => Number(j.wait_ms))),
      dreamsCompleted: dreams.filter((j) => j.state === 'completed').length,
      dreamsFailed: dreams.filter((j) => j.state === 'failed').length,
      drainSeconds,
      cpuSeconds: cpu,
      crash: { killedDreamJob, killedDreamState: killed?.state ?? null, killedDreamRetries: killed?.retry_count ?? null, apiInflight: Math.min(40, rows.length), apiKilledAfterMs: killedAfterMs, apiAnswered: answered, apiUnanswered: unanswered },
      checks: {
        acknowledged: acknowledged.size,
        missingOrDoubled,
        remoteMissingOrDoubled,
        unacknowledgedDoubled,
        unacknowledgedPresent,
        vaultsWithOverlappingDreams: overlapping,
        dreamAttempts: attempts,
        refusedAttempts: refused.length,
        refusedReasons: [...new Set(refused.map((r) => r.replace(/\d+/g, 'N').slice(0, 160)))],
        requeuedAttempts: requeued,
        leaseLostAttempts: leaseLost,
        doctorFailures,
        remotesBehind,
      },
    };
  } finally {
    await Promise.all(procs.map((p) => stopProc(p).catch(() => undefined)));
    await db.end().catch(() => undefined);
    await postgres.stop().catch(() => undefined);
  }
}

export function renderServerLoad(r: ServerLoadResult): string {
  const o = r.options;
  const c = r.checks;
  const lines = [
    '### The hosted server under load',
    '',
    `${o.vaults} vaults (10 per tenant), ${o.clients} concurrent HTTP clients for ${o.seconds} s (remember 50 %, search 40 %, forget 10 %), ` +
      `a dream queued for every vault at once ${o.seconds / 4} s in, ${o.workers} worker processes (2 jobs of each kind at once each), ` +
      `the API in its own process (\`server --no-workers\`), a throwaway PostgreSQL, bare repositories as remotes; all on 127.0.0.1. ` +
      `\`npm run bench -- --only server-load --vaults ${o.vaults} --clients ${o.clients} --seconds ${o.seconds} --workers ${o.workers}\` (bench/server-load.ts).`,
    '',
    `Throughput: **${r.throughput.toFixed(1)} requests/s** (${r.requests} answered). CPU during the load: API ${r.cpuSeconds.api.toFixed(1)} s, workers ${r.cpuSeconds.workers.toFixed(1)} s in all. Set-up ${r.setupSeconds.toFixed(0)} s.`,
    '',
    markdownTable([
      ['endpoint', 'answered', 'errors', 'p50', 'p95', 'max'],
      ...r.endpoints.map((e) => [e.name, String(e.ok), String(e.errors), ms(e.latency.p50), ms(e.latency.p95), ms(e.latency.max)]),
    ]),
    '',
    markdownTable([
      ['queue', 'jobs', 'wait p50', 'wait p95', 'wait max', 'run p50', 'run p95'],
      ['dream', String(r.dreamWait.n), ms(r.dreamWait.p50), ms(r.dreamWait.p95), ms(r.dreamWait.max), ms(r.dreamRun.p50), ms(r.dreamRun.p95)],
      ['sync (due 2 s after a write)', String(r.syncWait.n), ms(r.syncWait.p50), ms(r.syncWait.p95), ms(r.syncWait.max), '', ''],
    ]),
    '',
    `Queue wait is a job's start minus the later of its creation and its start-after time. Dreams: ${r.dreamsCompleted} completed, ${r.dreamsFailed} failed; the queue drained ${r.drainSeconds.toFixed(0)} s after the load ended.`,
    '',
    `Crashes: a worker killed (SIGKILL) as dream job ${r.crash.killedDreamJob ?? '(none started)'} began; that job ended ${r.crash.killedDreamState ?? 'unknown'} after ${r.crash.killedDreamRetries ?? '?'} retries. ` +
      `The API killed (SIGKILL) ${r.crash.apiKilledAfterMs} ms after ${r.crash.apiInflight} remembers were sent, as the first was answered: ${r.crash.apiAnswered} answered before, ${r.crash.apiUnanswered} never answered.`,
    '',
    markdownTable([
      ['check', 'result'],
      ['acknowledged facts in their working copy\'s logs exactly once', `${c.acknowledged - c.missingOrDoubled} of ${c.acknowledged}`],
      ['… and in the remote\'s (after one sync per vault)', `${c.acknowledged - c.remoteMissingOrDoubled} of ${c.acknowledged}`],
      ['unanswered remembers found in the logs (at most once each)', `${c.unacknowledgedPresent} present, ${c.unacknowledgedDoubled} twice or more`],
      ['vaults with two dreams at once (workers\' start/done lines)', `${c.vaultsWithOverlappingDreams} (of ${c.dreamAttempts} dreams run)`],
      ['dream attempts that failed', c.refusedAttempts === 0 ? '0' : `${c.refusedAttempts}: ${c.refusedReasons.slice(0, 2).join('; ')}`],
      ['dream attempts refused by the job lease (re-queued); attempts that lost their lease', `${c.requeuedAttempts}; ${c.leaseLostAttempts}`],
      ['working copies behind or ahead of their remote', String(c.remotesBehind)],
      ['`vaultkeeper doctor` failing', c.doctorFailures.length === 0 ? `0 of ${o.vaults}` : `${c.doctorFailures.length}: ${c.doctorFailures.slice(0, 3).join('; ')}`],
    ]),
  ];
  return lines.join('\n');
}


