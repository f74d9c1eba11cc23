/**
 * The scheduler core on an injected clock (ticks are given their time; nothing waits): interval
 * catch-up runs once after a long sleep, daily windows in the vault's time zone (run late inside the
 * window, skip a window that passed), after-chains, events, failure backoff that never stops the other
 * jobs, idle-only holding, and job state that survives a restart (a new scheduler on the same vault).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VaultkeeperError } from '../../src/core/errors.js';
import { JOBS_FILE } from '../../src/daemon/jobs-state.js';
import { createScheduler, type Job, type JobContext, type JobOutcome, type SchedulerOptions, type TickEntry, type Trigger } from '../../src/daemon/scheduler.js';
import { zonedInstant } from '../../src/llm/local-day.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();

const MIN = 60_000;
const HOUR = 60 * MIN;
const LISBON = 'Europe/Lisbon';
const T0 = new Date('2026-06-09T12:00:00Z');
const plus = (ms: number, from: Date = T0): Date => new Date(from.getTime() + ms);
/** A wall-clock time in Lisbon. */
const lisbon = (date: string, time: string): Date => zonedInstant(date, time, LISBON);

interface Recorder {
  runs: Array<{ job: string; reasons: string[]; at: string }>;
  job(name: string, trigger: Trigger | Trigger[], options?: { idleOnly?: boolean; fail?: () => boolean; outcome?: JobOutcome; body?: (ctx: JobContext) => Promise<void> }): Job;
}

function recorder(): Recorder {
  const runs: Recorder['runs'] = [];
  return {
    runs,
    job: (name, trigger, options = {}) => ({
      name,
      trigger,
      ...(options.idleOnly === undefined ? {} : { idleOnly: options.idleOnly }),
      async run(ctx) {
        runs.push({ job: name, reasons: ctx.reasons, at: ctx.now.toISOString() });
        await options.body?.(ctx);
        if (options.fail?.() === true) throw new VaultkeeperError('VK_TEST', `${name} broke`);
        return options.outcome;
      },
    }),
  };
}

async function scheduler(root: string, jobs: Job[], extra: Partial<SchedulerOptions> = {}) {
  return createScheduler({ root, jobs, timeZone: 'UTC', ...extra });
}

const summary = (entries: TickEntry[]) => entries.map((e) => `${e.job}:${e.status}`);

describe('interval triggers', () => {
  it('a new job runs at once, then every interval; after a long sleep it catches up once, not once per missed interval', async () => {
    const root = await tempDir();
    const r = recorder();
    const s = await scheduler(root, [r.job('health', { every: HOUR })]);

    expect(summary(await s.tick(T0))).toEqual(['health:ok']);
    expect(s.states().health!.next_due_at).toBe(plus(HOUR).toISOString());
    expect(await s.tick(plus(30 * MIN))).toEqual([]);
    expect(summary(await s.tick(plus(HOUR)))).toEqual(['health:ok']);

    // The machine sleeps through ten intervals.
    const woke = plus(11 * HOUR + 7 * MIN);
    const entries = await s.tick(woke);
    expect(summary(entries)).toEqual(['health:ok']);
    expect(entries[0]!.reasons).toEqual(['every']);
    expect(s.states().health!.next_due_at).toBe(plus(HOUR, woke).toISOString());
    expect(await s.tick(plus(MIN, woke))).toEqual([]);
    expect(r.runs).toHaveLength(3);
  });

  it('a job missed while the daemon was down runs at the first tick of the next start, once', async () => {
    const root = await tempDir();
    const r = recorder();
    const first = await scheduler(root, [r.job('index', { every: 10 * MIN })]);
    await first.tick(T0);
    // Down for a day; a new process, a new scheduler, the same vault.
    const second = await scheduler(root, [r.job('index', { every: 10 * MIN })]);
    expect(second.states().index!.last_run_at).toBe(T0.toISOString());
    expect(summary(await second.tick(plus(24 * HOUR)))).toEqual(['index:ok']);
    expect(await second.tick(plus(24 * HOUR + MIN))).toEqual([]);
    expect(r.runs.map((run) => run.at)).toEqual([T0.toISOString(), plus(24 * HOUR).toISOString()]);
  });

  it('a changed interval (a config reload) reschedules from the last run', async () => {
    const root = await tempDir();
    const r = recorder();
    await (await scheduler(root, [r.job('digest', { every: 24 * HOUR })])).tick(T0);
    const shorter = await scheduler(root, [r.job('digest', { every: HOUR })]);
    expect(summary(await shorter.tick(plus(HOUR)))).toEqual(['digest:ok']);
  });
});

describe('daily windows', () => {
  // Documented choice: with a window, a tick inside the window runs the job (late is fine); a window that
  // passed entirely while the daemon was down is skipped, and the job waits for the next day's window.
  it('runs inside the window in the vault time zone, late after a restart, and skips a window that passed while down', async () => {
    const root = await tempDir();
    const r = recorder();
    const jobs = [r.job('dream', { daily: '03:00', window: 60 })];
    const options = { timeZone: LISBON };

    const s1 = await scheduler(root, jobs, options);
    // A new daily job waits for its time: 01:00 in Lisbon.
    expect(await s1.tick(lisbon('2026-06-09', '01:00'))).toEqual([]);
    expect(s1.states().dream!.next_due_at).toBe(lisbon('2026-06-09', '03:00').toISOString());
    expect(s1.states().dream!.next_due_at).toBe('2026-06-09T02:00:00.000Z');
    expect(summary(await s1.tick(lisbon('2026-06-09', '03:10')))).toEqual(['dream:ok']);
    expect(s1.states().dream!.next_due_at).toBe(lisbon('2026-06-10', '03:00').toISOString());

    // Down from 04:00; back at 03:40 the next day, inside the window: it runs at the first tick.
    const s2 = await scheduler(root, jobs, options);
    const late = await s2.tick(lisbon('2026-06-10', '03:40'));
    expect(summary(late)).toEqual(['dream:ok']);
    expect(late[0]!.reasons).toEqual(['daily']);

    // Down again; back at 09:00 the day after: the 06-11 window (03:00-04:00) passed, so it waits for 06-12's.
    const s3 = await scheduler(root, jobs, options);
    const missed = await s3.tick(lisbon('2026-06-11', '09:00'));
    expect(missed).toEqual([
      {
        job: 'dream',
        reasons: ['daily'],
        status: 'missed',
        window_start: lisbon('2026-06-11', '03:00').toISOString(),
        next_due_at: lisbon('2026-06-12', '03:00').toISOString(),
      },
    ]);
    expect(s3.states().dream).toMatchObject({ last_missed_at: lisbon('2026-06-11', '03:00').toISOString(), next_due_at: lisbon('2026-06-12', '03:00').toISOString() });
    expect(await s3.tick(lisbon('2026-06-11', '10:00'))).toEqual([]);
    expect(summary(await s3.tick(lisbon('2026-06-12', '03:01')))).toEqual(['dream:ok']);
    expect(r.runs).toHaveLength(3);
  });

  it('a window missed by several days jumps to the window open now, and runs once', async () => {
    const root = await tempDir();
    const r = recorder();
    const jobs = [r.job('dream', { daily: '03:00', window: 120 })];
    await (await scheduler(root, jobs, { timeZone: LISBON })).tick(lisbon('2026-06-09', '03:00'));
    const s = await scheduler(root, jobs, { timeZone: LISBON });
    expect(summary(await s.tick(lisbon('2026-06-14', '04:30')))).toEqual(['dream:ok']);
    expect(s.states().dream!.next_due_at).toBe(lisbon('2026-06-15', '03:00').toISOString());
  });

  it('without a window, a missed day runs at the next tick however late, once', async () => {
    const root = await tempDir();
    const r = recorder();
    const jobs = [r.job('digest', { daily: '06:00' })];
    const s = await scheduler(root, jobs, { timeZone: LISBON });
    await s.tick(lisbon('2026-06-09', '05:00'));
    expect(summary(await s.tick(lisbon('2026-06-09', '06:00')))).toEqual(['digest:ok']);
    // Asleep for three days, woken at 22:00.
    expect(summary(await s.tick(lisbon('2026-06-12', '22:00')))).toEqual(['digest:ok']);
    expect(s.states().digest!.next_due_at).toBe(lisbon('2026-06-13', '06:00').toISOString());
    expect(await s.tick(lisbon('2026-06-12', '23:00'))).toEqual([]);
  });

  it('a failure inside the window is retried after its backoff while the window lasts', async () => {
    const root = await tempDir();
    let broken = true;
    const r = recorder();
    const s = await scheduler(root, [r.job('dream', { daily: '03:00', window: 30 }, { fail: () => broken })], { timeZone: LISBON });
    await s.tick(lisbon('2026-06-09', '02:00'));
    expect(summary(await s.tick(lisbon('2026-06-09', '03:00')))).toEqual(['dream:failed']);
    broken = false;
    expect(await s.tick(lisbon('2026-06-09', '03:00'))).toEqual([]);
    expect(summary(await s.tick(lisbon('2026-06-09', '03:01')))).toEqual(['dream:ok']);
  });
});

describe('after and event triggers', () => {
  it('runs a chain of jobs after the one before succeeded, in the same tick, whatever their order of declaration', async () => {
    const root = await tempDir();
    const r = recorder();
    const jobs = [r.job('promote', { after: 'dream' }), r.job('dream', { after: 'index' }), r.job('index', { every: HOUR })];
    const s = await scheduler(root, jobs);
    const entries = await s.tick(T0);
    expect(summary(entries)).toEqual(['index:ok', 'dream:ok', 'promote:ok']);
    expect(entries.map((e) => e.reasons)).toEqual([['every'], ['after:index'], ['after:dream']]);
    expect(await s.tick(plus(MIN))).toEqual([]);
  });

  it('a failed job does not trigger the jobs after it', async () => {
    const root = await tempDir();
    const r = recorder();
    const s = await scheduler(root, [r.job('dream', { every: HOUR }, { fail: () => true }), r.job('promote', { after: 'dream' })]);
    expect(summary(await s.tick(T0))).toEqual(['dream:failed']);
    expect(s.states().promote!.pending).toEqual([]);
  });

  it('event triggers run their jobs only when the tick is told of the event', async () => {
    const root = await tempDir();
    const r = recorder();
    const jobs = [r.job('dream', [{ every: 24 * HOUR }, { event: 'sigusr1' }]), r.job('index', { event: 'file-changed' })];
    const s = await scheduler(root, jobs);
    expect(summary(await s.tick(T0))).toEqual(['dream:ok']);
    expect(await s.tick(plus(MIN))).toEqual([]);
    const entries = await s.tick(plus(2 * MIN), { events: ['sigusr1', 'file-changed', 'unknown'] });
    expect(entries.map((e) => [e.job, e.status, e.reasons])).toEqual([
      ['dream', 'ok', ['event:sigusr1']],
      ['index', 'ok', ['event:file-changed']],
    ]);
    // An event run leaves the daily schedule where it was.
    expect(s.states().dream!.next_due_at).toBe(plus(24 * HOUR).toISOString());
    expect(s.states().dream!.pending).toEqual([]);
  });

  it('an event seen while the daemon cannot serve it is kept on disk and served after a restart', async () => {
    const root = await tempDir();
    const r = recorder();
    const jobs = [r.job('extract', { event: 'session-idle' }, { idleOnly: true })];
    const busy = await scheduler(root, jobs, { lastWriteAt: () => plus(-MIN) });
    expect(summary(await busy.tick(T0, { events: ['session-idle'] }))).toEqual(['extract:held']);
    const onDisk = JSON.parse(await readFile(path.join(root, JOBS_FILE), 'utf8')) as { jobs: Record<string, { pending: string[] }> };
    expect(onDisk.jobs.extract!.pending).toEqual(['event:session-idle']);
    const later = await scheduler(root, jobs, { lastWriteAt: () => plus(-MIN) });
    const entries = await later.tick(plus(HOUR));
    expect(entries.map((e) => [e.job, e.status, e.reasons])).toEqual([['extract', 'ok', ['event:session-idle']]]);
  });
});

describe('failures', () => {
  it('a failing job backs off exponentially up to its cap, and the other jobs keep running', async () => {
    const root = await tempDir();
    const r = recorder();
    let broken = true;
    const jobs = [r.job('discover', { every: MIN }, { fail: () => broken }), r.job('health', { every: MIN })];
    const s = await scheduler(root, jobs, { backoff: { baseMs: MIN, maxMs: 8 * MIN } });

    const first = await s.tick(T0);
    expect(summary(first)).toEqual(['discover:failed', 'health:ok']);
    expect(first[0]).toMatchObject({ status: 'failed', error: 'VK_TEST: discover broke', retry_at: plus(MIN).toISOString() });
    expect(s.states().discover).toMatchObject({ last_result: 'failed', last_error: 'VK_TEST: discover broke', consecutive_failures: 1, running: false });

    // Retries at 1, 2, 4, 8, 8 minutes after each failure; health runs every minute all along.
    let now = T0;
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const retryAt = Date.parse(s.states().discover!.retry_at!);
      waits.push((retryAt - now.getTime()) / MIN);
      while (now.getTime() + MIN < retryAt) {
        now = plus(MIN, now);
        expect(summary(await s.tick(now))).toEqual(['health:ok']);
      }
      now = new Date(retryAt);
      expect(summary(await s.tick(now))).toEqual(['discover:failed', 'health:ok']);
    }
    expect(waits).toEqual([1, 2, 4, 8, 8]);
    expect(s.states().discover!.consecutive_failures).toBe(6);

    broken = false;
    now = new Date(s.states().discover!.retry_at!);
    expect(summary(await s.tick(now))).toEqual(['discover:ok', 'health:ok']);
    expect(s.states().discover).toMatchObject({ last_result: 'ok', last_error: null, consecutive_failures: 0, retry_at: null });
  });

  it('a job still marked running at start (the daemon died in it) counts as a failure', async () => {
    const root = await tempDir();
    const r = recorder();
    await (await scheduler(root, [r.job('dream', { every: HOUR })])).tick(T0);
    const file = path.join(root, JOBS_FILE);
    const state = JSON.parse(await readFile(file, 'utf8')) as { jobs: { dream: Record<string, unknown> } };
    state.jobs.dream = { ...state.jobs.dream, running: true, next_due_at: T0.toISOString() };
    await writeFile(file, JSON.stringify(state));

    const s = await scheduler(root, [r.job('dream', { every: HOUR })]);
    expect(await s.tick(plus(MIN))).toEqual([]);
    expect(s.states().dream).toMatchObject({ running: false, last_result: 'failed', consecutive_failures: 1, last_error: expect.stringMatching(/interrupted/) });
    expect(summary(await s.tick(plus(2 * MIN)))).toEqual(['dream:ok']);
  });

  it('a stop signal aborts the running job, starts no other, and leaves both due for the next start', async () => {
    const root = await tempDir();
    const r = recorder();
    const controller = new AbortController();
    const jobs = [
      r.job('dream', { every: HOUR }, {
        body: async (ctx) => {
          controller.abort();
          if (ctx.signal.aborted) throw new Error('stopped');
        },
      }),
      r.job('health', { every: HOUR }),
    ];
    const s = await scheduler(root, jobs);
    const entries = await s.tick(T0, { signal: controller.signal });
    expect(entries).toMatchObject([{ job: 'dream', status: 'aborted', error: 'stopped' }]);
    expect(s.states().dream).toMatchObject({ last_result: 'aborted', consecutive_failures: 0, running: false, retry_at: null });

    const next = await scheduler(root, [r.job('dream', { every: HOUR }), r.job('health', { every: HOUR })]);
    expect(summary(await next.tick(plus(MIN)))).toEqual(['dream:ok', 'health:ok']);
  });
});

describe('idle-only jobs', () => {
  it('are held while the vault was written in the last N minutes; the others run', async () => {
    const root = await tempDir();
    const r = recorder();
    let lastWrite: Date | null = plus(-2 * MIN);
    const jobs = [r.job('digest', { every: HOUR }, { idleOnly: true }), r.job('index', { every: HOUR })];
    const s = await scheduler(root, jobs, { idleMinutes: 10, lastWriteAt: async () => lastWrite });

    const held = await s.tick(T0);
    expect(held).toEqual([
      { job: 'digest', reasons: ['every'], status: 'held', until: plus(8 * MIN).toISOString() },
      expect.objectContaining({ job: 'index', status: 'ok' }),
    ]);
    expect(s.nextWakeAt()?.toISOString()).toBe(plus(8 * MIN).toISOString());
    expect(summary(await s.tick(plus(5 * MIN)))).toEqual(['digest:held']);
    expect(summary(await s.tick(plus(8 * MIN)))).toEqual(['digest:ok']);

    lastWrite = null;
    expect(summary(await s.tick(plus(HOUR + 8 * MIN)))).toEqual(['digest:ok', 'index:ok']);
  });
});

describe('state and API', () => {
  it('keeps every job state field in .vaultkeeper/jobs.json', async () => {
    const root = await tempDir();
    const r = recorder();
    const s = await scheduler(root, [r.job('health', { every: HOUR }, { outcome: { summary: '12 facts today' } })]);
    await s.tick(T0);
    const file = JSON.parse(await readFile(path.join(root, JOBS_FILE), 'utf8')) as unknown;
    expect(file).toEqual({
      version: 1,
      updated_at: T0.toISOString(),
      jobs: {
        health: {
          next_due_at: plus(HOUR).toISOString(),
          trigger: '{"every":3600000}',
          pending: [],
          retry_at: null,
          last_run_at: T0.toISOString(),
          last_finished_at: expect.any(String),
          last_result: 'ok',
          last_error: null,
          last_summary: '12 facts today',
          last_missed_at: null,
          consecutive_failures: 0,
          running: false,
        },
      },
    });
  });

  it('is marked running on disk while a job runs', async () => {
    const root = await tempDir();
    const r = recorder();
    let during: unknown;
    const s = await scheduler(root, [
      r.job('dream', { every: HOUR }, {
        body: async () => {
          during = JSON.parse(await readFile(path.join(root, JOBS_FILE), 'utf8'));
        },
      }),
    ]);
    await s.tick(T0);
    expect(during).toMatchObject({ jobs: { dream: { running: true, last_run_at: T0.toISOString() } } });
  });

  it('a job may name its next due time (e.g. when an LLM cap resets)', async () => {
    const root = await tempDir();
    const r = recorder();
    const s = await scheduler(root, [r.job('extract', { every: MIN }, { outcome: { summary: 'over the daily cap', nextDueAt: plus(11 * HOUR) } })]);
    await s.tick(T0);
    expect(s.states().extract!.next_due_at).toBe(plus(11 * HOUR).toISOString());
    expect(await s.tick(plus(HOUR))).toEqual([]);
    expect(s.nextWakeAt()?.toISOString()).toBe(plus(11 * HOUR).toISOString());
  });

  it('an unreadable jobs.json is replaced, and says so', async () => {
    const root = await tempDir();
    await writeTree(root, { [JOBS_FILE]: '{ not json' });
    const r = recorder();
    const s = await scheduler(root, [r.job('health', { every: HOUR })]);
    expect(s.loadProblem).toMatch(/jobs\.json is not JSON/);
    expect(summary(await s.tick(T0))).toEqual(['health:ok']);
  });

  it('a tick asked for while one runs returns nothing', async () => {
    const root = await tempDir();
    const r = recorder();
    let inner: TickEntry[] | undefined;
    const holder: { s?: Awaited<ReturnType<typeof scheduler>> } = {};
    holder.s = await scheduler(root, [
      r.job('dream', { every: HOUR }, {
        body: async () => {
          inner = await holder.s!.tick(T0);
        },
      }),
    ]);
    expect(summary(await holder.s.tick(T0))).toEqual(['dream:ok']);
    expect(inner).toEqual([]);
  });

  it('refuses job lists that cannot work', async () => {
    const root = await tempDir();
    const r = recorder();
    const bad = async (jobs: Job[]) => (await scheduler(root, jobs).then(() => null, (e: unknown) => e)) as VaultkeeperError | null;
    expect((await bad([r.job('a', { every: 0 })]))?.message).toMatch(/every must be a positive/);
    expect((await bad([r.job('a', { daily: '25:00' })]))?.message).toMatch(/HH:MM/);
    expect((await bad([r.job('a', { daily: '03:00', window: 1440 })]))?.message).toMatch(/window/);
    expect((await bad([r.job('a', { after: 'b' })]))?.message).toMatch(/after names no other job/);
    expect((await bad([r.job('a', [{ every: MIN }, { daily: '03:00' }])]))?.message).toMatch(/at most one time trigger/);
    expect((await bad([r.job('a', { every: MIN }), r.job('a', { every: MIN })]))?.code).toBe('VK_SCHEDULER');
    expect((await bad([r.job('a', [])]))?.message).toMatch(/no trigger/);
  });
});
