/** forecast.ts: a job's next run from its state (schedule, retry after a failure, owed work, event only). */
import { describe, expect, it } from 'vitest';
import { newJobState } from '../../src/daemon/jobs-state.js';
import { jobSchedules, nextDreamCheck } from '../../src/vault/forecast.js';

const NOW = new Date('2026-06-09T10:00:00Z');

describe('job schedules', () => {
  it('says when and why each job runs next', () => {
    const jobs = {
      index: { ...newJobState(), last_run_at: '2026-06-09T09:55:00Z', last_result: 'ok' as const, next_due_at: '2026-06-09T10:05:00Z' },
      dream: { ...newJobState(), last_result: 'failed' as const, next_due_at: '2026-06-09T10:05:00Z', retry_at: '2026-06-09T10:30:00Z' },
      promote: { ...newJobState(), next_due_at: '2026-06-10T04:00:00Z', pending: ['after:dream'] },
      watch: newJobState(),
    };
    expect(jobSchedules(jobs).map((j) => [j.job, j.next_run_at, j.next_reason])).toEqual([
      ['dream', '2026-06-09T10:30:00Z', 'retry'],
      ['index', '2026-06-09T10:05:00Z', 'schedule'],
      ['promote', null, 'owed'],
      ['watch', null, 'event'],
    ]);
    expect(nextDreamCheck(jobs.dream, NOW)?.toISOString()).toBe('2026-06-09T10:30:00.000Z');
    // Overdue: the next tick, which is now.
    expect(nextDreamCheck({ ...newJobState(), next_due_at: '2026-06-09T09:00:00Z' }, NOW)).toEqual(NOW);
    expect(nextDreamCheck(undefined, NOW)).toBeNull();
  });
});
