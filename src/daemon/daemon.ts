/**
 * The daemon (DESIGN §8): one long-running loop per vault (daemon/many.ts runs several in one process). It keeps the index current (a watcher
 * plus a periodic reconcile), dreams when the gate opens, extracts facts from agent sessions, writes
 * digests and health snapshots, and can always say what it did and why (status.json, daemon.log).
 * Every LLM call goes through one executor. SIGTERM/SIGINT finish or abort the current job; SIGHUP
 * reloads the config; SIGUSR1 dreams now.
 */
import { localStamp } from '../core/clock.js';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import { acquireLock } from '../core/lock.js';
import { executorChat } from '../extract/llm.js';
import type { LlmExecutor } from '../llm/executor.js';
import { openVault, type Vault } from '../vault/vault.js';
import { discoverLinks } from './jobs/discover.js';
import { recordHealth } from './jobs/health.js';
import { writeDigests } from './jobs/digest.js';
import { promoteMemory } from './jobs/promote.js';
import { retrySkippedDays } from './jobs/retry-skipped.js';
import { openLogger, type DaemonLogger } from './log.js';
import { removePidFile, runningDaemon, writePidFile } from './pidfile.js';
import { createScheduler, type Job, type Scheduler, type TickEntry } from './scheduler.js';
import { startWarm, type WarmVault } from './warm.js';
import { mkdirConfined, writeConfined } from '../vault/confined-write.js';
import { redactDeep } from '../core/redact.js';

export const STATUS_FILE = '.vaultkeeper/status.json';
const MINUTE = 60_000;
/** The longest the loop sleeps between ticks, so time-based jobs are never late by more than this. */
const MAX_SLEEP_MS = MINUTE;

export interface DaemonOptions {
  root: string;
  env?: NodeJS.ProcessEnv;
  /** Also print log lines: true to stderr (foreground runs), or to this function (daemon/many.ts prefixes each vault's). */
  echo?: boolean | ((line: string) => void);
}

interface Running {
  vault: Vault;
  executor: LlmExecutor | null;
  note: string | null;
  /** The start-up check of the LLM endpoint, for status. */
  check: { ok: boolean; message: string; at: string } | null;
  /** Set while a cap or an unreachable endpoint makes LLM jobs fall back or wait; shown by status. */
  fallback: { mode: 'offline' | 'wait'; reason: string; since: string } | null;
}

/** Runs until SIGTERM/SIGINT; resolves with the exit code. */
export async function runDaemon(options: DaemonOptions): Promise<number> {
  const root = options.root;
  const env = options.env ?? process.env;
  const other = await runningDaemon(root);
  if (other !== null) {
    throw new VaultkeeperError('VK_DAEMON_RUNNING', `a daemon already runs for this vault (pid ${other.pid})`, { hint: 'see `vaultkeeper status`, or stop it with `vaultkeeper daemon stop`' });
  }
  await mkdirConfined(root, '.vaultkeeper/locks');
  let release: () => Promise<void>;
  try {
    // Held for the daemon's life: two daemons started at the same moment cannot both pass.
    release = await acquireLock(root, 'daemon', { waitMs: 0 });
  } catch {
    throw new VaultkeeperError('VK_DAEMON_RUNNING', 'another daemon is starting or running for this vault', { hint: 'see `vaultkeeper status`' });
  }
  const echo = typeof options.echo === 'function' ? options.echo : options.echo ? (line: string) => void process.stderr.write(`${line}\n`) : undefined;
  const logger = openLogger(root, echo === undefined ? {} : { echo });
  const stop = new AbortController();
  const events: string[] = [];
  let wake: (() => void) | null = null;
  const poke = (): void => {
    wake?.();
  };

  let loaded: Running | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signal === 'SIGHUP') {
      const state = loaded;
      if (state === null) return; // still starting: the config being loaded is the current one
      logger.log('info', 'reloading the config (SIGHUP)');
      void load(root, env, logger).then(
        async (next) => {
          await state.vault.close();
          Object.assign(state, next);
        },
        (error: unknown) => logger.log('error', `config reload failed; keeping the old one: ${errorMessage(error)}`),
      );
      return;
    }
    if (signal === 'SIGUSR1') {
      logger.log('info', 'dream requested (SIGUSR1)');
      events.push('sigusr1');
      poke();
      return;
    }
    if (!stop.signal.aborted) logger.log('info', `stopping (${signal}): the current job finishes or aborts`);
    stop.abort();
    poke();
  };
  // Handlers go in before the PID file exists: a signal sent as soon as the daemon is seen is never lost
  // (an unhandled SIGUSR1 would open Node's inspector instead).
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGUSR1'] as const) process.on(signal, onSignal);
  const pid = await writePidFile(root, logger.file);
  const state: Running = await load(root, env, logger).catch(async (error: unknown) => {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGUSR1'] as const) process.off(signal, onSignal);
    await removePidFile(root, pid.pid);
    await release();
    throw error;
  });
  loaded = state;

  let lastWrite: Date | null = null;
  let warm: WarmVault | null = null;
  let stopped = false;
  try {
    const scheduler = await createScheduler({
      root,
      jobs: jobs(state, logger),
      timeZone: state.vault.ctx.timeZone,
      lastWriteAt: () => lastWrite,
      idleMinutes: state.vault.ctx.config.daemon.llm_idle_minutes,
      urgentEvents: ['sigusr1'],
    });
    if (scheduler.loadProblem !== null) logger.log('warn', `jobs.json was unreadable and starts afresh: ${scheduler.loadProblem}`);
    logger.log('info', `started (pid ${pid.pid}) for ${root}`, { llm: state.note ?? 'none' });
    warm = await startWarm(() => state.vault, {
      onIndexed: (changed) => {
        lastWrite = new Date();
        events.push('indexed');
        poke();
        logger.log('info', `indexed ${indexedList(changed)}`, { job: 'index' });
      },
      onIndexError: (error) => logger.log('error', `indexing failed: ${errorMessage(error)}`, { job: 'index' }),
    });
    if (warm.socketProblem !== null) logger.log('warn', `quick queries are answered in process: ${warm.socketProblem}`);
    await writeStatus(root, pid.pid, pid.started_at, scheduler, state, []);

    while (!stop.signal.aborted) {
      const now = new Date();
      const entries = await scheduler.tick(now, { events: events.splice(0), signal: stop.signal });
      for (const entry of entries) logEntry(logger, entry);
      await writeStatus(root, pid.pid, pid.started_at, scheduler, state, entries);
      if (stop.signal.aborted) break;
      const next = scheduler.nextWakeAt();
      const sleep = Math.max(50, Math.min(MAX_SLEEP_MS, next === null ? MAX_SLEEP_MS : next.getTime() - Date.now()));
      if (events.length === 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, sleep);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    }
    stopped = true;
    return 0;
  } finally {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGUSR1'] as const) process.off(signal, onSignal);
    // A watcher pass in flight finishes (and logs) first, so "stopped" is the log's last word.
    await warm?.close();
    await state.vault.close().catch(() => undefined);
    if (stopped) logger.log('info', 'stopped');
    await removePidFile(root, pid.pid);
    await release().catch(() => undefined);
  }
}

/** The vault and the LLM executor for the current config; says plainly when the LLM cannot be reached. */
async function load(root: string, env: NodeJS.ProcessEnv, logger: DaemonLogger): Promise<Running> {
  const vault = await openVault({ vault: root, env });
  const { llm } = vault.ctx.config;
  if (llm.base_url === null || llm.model === null) return { vault, executor: null, note: null, check: null, fallback: null };
  const { createExecutor } = await import('../llm/executor.js');
  const executor = await createExecutor({ settings: llm, env, root, timeZone: vault.ctx.timeZone });
  const check = await executor.check();
  logger.log(check.ok ? 'info' : 'warn', `LLM ${llm.model} at ${llm.base_url}: ${check.message}`, { job: 'llm' });
  if (!check.ok) logger.log('warn', llm.fallback === 'offline' ? 'dreams use the offline consolidator until the LLM answers' : 'LLM jobs wait until the LLM answers', { job: 'llm' });
  return {
    vault,
    executor,
    note: `${llm.model} (${check.ok ? 'reachable' : 'unreachable'})`,
    check: { ok: check.ok, message: check.message, at: new Date().toISOString() },
    fallback: check.ok ? null : { mode: llm.fallback, reason: `the LLM cannot be reached: ${check.message}`, since: new Date().toISOString() },
  };
}

function jobs(state: Running, logger: DaemonLogger): Job[] {
  const today = (now: Date): string => localStamp(now, state.vault.ctx.timeZone).date;
  // Jobs that call the LLM wait for a quiet vault (daemon.llm_idle_minutes); offline work never waits.
  const llmIdle = state.executor !== null && state.vault.ctx.config.daemon.llm_idle_minutes > 0;
  return [
    {
      name: 'index',
      trigger: { every: 10 * MINUTE },
      // The watcher indexes changes as they happen; this reconciles what it may have missed (sleep, bursts).
      run: async () => {
        const result = await state.vault.reindex({ verify: true, idle: true });
        return { summary: `${result.rows} rows; ${result.added} written, ${result.removed} removed` };
      },
    },
    {
      name: 'dream',
      trigger: [{ every: 15 * MINUTE }, { event: 'sigusr1' }],
      idleOnly: llmIdle,
      run: async (ctx) => {
        const forced = ctx.reasons.includes('event:sigusr1');
        let offline = false;
        if (state.executor !== null) {
          const mode = state.vault.ctx.config.llm.fallback;
          if (state.check !== null && !state.check.ok) {
            // It could not be reached at start (or last time): ask again before trusting a run to it.
            const check = await state.executor.check();
            state.check = { ok: check.ok, message: check.message, at: ctx.now.toISOString() };
            if (!check.ok) {
              state.fallback = { mode, reason: `the LLM cannot be reached: ${check.message}`, since: state.fallback?.since ?? ctx.now.toISOString() };
              if (mode === 'wait') return { summary: `waiting: ${check.message}` };
              offline = true;
            }
          }
          const spend = state.executor.canSpend('dream');
          if (offline) {
            // already falling back: the endpoint is down
          } else if (!spend.ok) {
            state.fallback = { mode, reason: spend.message, since: state.fallback?.since ?? ctx.now.toISOString() };
            if (mode === 'wait') return { summary: `waiting: ${spend.message}`, ...(spend.resetsAt ? { nextDueAt: spend.resetsAt } : {}) };
            logger.log('warn', `${spend.message}; dreaming with the offline consolidator`, { job: 'dream' });
            offline = true;
          } else if (state.fallback !== null && state.check?.ok !== false) {
            state.fallback = null;
          }
        }
        const result = await state.vault.dream({
          force: forced,
          offline,
          now: ctx.now,
          ...(state.executor === null ? {} : { executor: state.executor }),
          onEvent: (event) => {
            if (event.type === 'page') logger.log('info', `${event.action} ${event.path}`, { job: 'dream' });
          },
        });
        if (result.status === 'failed') throw new VaultkeeperError('VK_DREAM_FAILED', result.reason);
        // Held by the backoff after a failed or waiting run: check again when it ends, not a tick later.
        return { summary: `${result.status}: ${result.reason}`, ...(result.retry_at === undefined ? {} : { nextDueAt: new Date(result.retry_at) }) };
      },
    },
    {
      name: 'extract',
      trigger: { every: 5 * MINUTE },
      idleOnly: llmIdle,
      run: async (ctx) => {
        const { scanSessions } = await import('../extract/sessions.js');
        const chat = state.executor === null ? undefined : executorChat(state.executor);
        const result = await scanSessions(state.vault, { now: ctx.now, ...(chat === undefined ? { offline: true } : { chat }) });
        if (result.notice !== null) logger.log('warn', result.notice, { job: 'extract' });
        return { summary: `${result.facts} facts from ${result.sessions.length} sessions${result.fallback === null ? '' : `; ${result.fallback}`}` };
      },
    },
    {
      // Skipped days come back: once a day, as one batch (jobs/retry-skipped.ts).
      name: 'retry-skipped',
      trigger: { daily: '03:30' },
      idleOnly: llmIdle,
      run: async (ctx) => {
        if (state.fallback?.mode === 'wait') return { summary: `waiting: ${state.fallback.reason}` };
        return retrySkippedDays(state.vault, { now: ctx.now, executor: state.executor ?? undefined, offline: state.fallback?.mode === 'offline' });
      },
    },
    ...(state.vault.ctx.config.daemon.sync_minutes > 0
      ? [
          {
            // The vault's remote, when it has one (sync/sync.ts): on a schedule, after a dream and after writes.
            name: 'sync',
            trigger: [{ every: state.vault.ctx.config.daemon.sync_minutes * MINUTE }, { after: 'dream' }, { event: 'indexed' }],
            run: async () => {
              try {
                const result = await state.vault.sync();
                return { summary: `${result.received} in, ${result.sent} out${result.merge === null ? '' : `, merged ${result.merge.slice(0, 8)}`}` };
              } catch (error) {
                if (error instanceof VaultkeeperError && error.code === 'VK_SYNC_NO_REMOTE') return { summary: 'no remote' };
                throw error;
              }
            },
          } satisfies Job,
        ]
      : []),
    {
      name: 'digest',
      trigger: { daily: '23:50' },
      run: async (ctx) => {
        const result = await writeDigests(state.vault, today(ctx.now));
        return { summary: result.written.length === 0 ? 'nothing new' : `wrote ${result.written.join(', ')}` };
      },
    },
    {
      name: 'health',
      trigger: { every: 60 * MINUTE },
      run: async (ctx) => {
        const snapshot = await recordHealth(state.vault, ctx.now);
        const dashboard = await state.vault.dashboard(ctx.now);
        return { summary: `${snapshot.pending_days} pending days, ${snapshot.problems} problems, ${snapshot.open_conflicts} open conflicts; dashboard ${dashboard.changed ? 'rewritten' : 'unchanged'}` };
      },
    },
    {
      name: 'promote',
      trigger: [{ after: 'dream' }, { daily: '04:00' }],
      run: async (ctx) => {
        const result = await promoteMemory(state.vault, { now: ctx.now });
        return { summary: result.changed ? 'MEMORY.md regenerated' : 'MEMORY.md unchanged' };
      },
    },
    ...(state.vault.ctx.config.daemon.discover && state.executor !== null
      ? [
          {
            name: 'discover',
            trigger: { every: 7 * 24 * 60 * MINUTE },
            idleOnly: llmIdle,
            run: async (ctx) => {
              // A config reload may have taken the LLM away since the job was registered.
              if (state.executor === null) return { summary: 'no LLM configured' };
              const result = await discoverLinks(state.vault, state.executor, { now: ctx.now, signal: ctx.signal });
              const stopped = result.stopped === null ? '' : `; stopped early: ${result.stopped}`;
              return { summary: `${result.pages} pages: +${result.links} links, ${result.contradictions} contradictions, ${result.questions} questions, ${result.invalid} bad replies${stopped}` };
            },
          } satisfies Job,
        ]
      : []),
  ];
}


function logEntry(logger: DaemonLogger, entry: TickEntry): void {
  if (entry.status === 'ok') logger.log('info', entry.outcome?.summary ?? 'done', { job: entry.job, ms: Math.round(entry.ms), why: entry.reasons.join(',') });
  else if (entry.status === 'failed') logger.log('error', entry.error, { job: entry.job, retry_at: entry.retry_at });
  else if (entry.status === 'aborted') logger.log('warn', entry.error, { job: entry.job });
  else if (entry.status === 'held') logger.log('info', `held while the vault is being written (until ${entry.until})`, { job: entry.job });
  else logger.log('warn', `its window passed; next at ${entry.next_due_at}`, { job: entry.job });
}

async function writeStatus(root: string, pid: number, startedAt: string, scheduler: Scheduler, state: Running, entries: TickEntry[]): Promise<void> {
  const errors = entries.filter((e) => e.status === 'failed').map((e) => ({ job: e.job, error: e.status === 'failed' ? e.error : '' }));
  const status = {
    pid,
    started_at: startedAt,
    updated_at: new Date().toISOString(),
    jobs: scheduler.states(),
    llm: state.executor === null ? { configured: false } : { configured: true, ...state.executor.usage(), check: state.check, fallback: state.fallback },
    next_wake_at: scheduler.nextWakeAt()?.toISOString() ?? null,
    last_errors: errors,
  };
  await writeConfined(root, STATUS_FILE, `${JSON.stringify(redactDeep(status), null, 2)}\n`);
}

/** What a watcher pass indexed, for the log: the paths themselves (a person greps for a file), at most five. */
function indexedList(changed: readonly string[]): string {
  if (changed.length === 1) return changed[0]!;
  const shown = changed.slice(0, 5).join(', ');
  return `${changed.length} changes: ${shown}${changed.length > 5 ? ', …' : ''}`;
}
