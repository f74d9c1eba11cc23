/**
 * `status` says what will happen: the dream's next check, whether it will run, the gate holding it and
 * what opens it (the gate's own decision, so `dream` agrees), and each daemon job's last and next run.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const started: string[] = [];

afterEach(async () => {
  for (const root of started.splice(0)) await runCli(['--vault', root, 'daemon', 'stop']);
});

function daysAgo(n: number): string {
  return new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
}

interface Forecast {
  next_check_at: string | null;
  will_run: boolean;
  decision: string;
  gate: string | null;
  reason: string;
  opens: string | null;
  opens_at: string | null;
}

interface StatusJson {
  watermark: string | null;
  pending_days: number;
  facts_pending: number;
  dream: Forecast & { last_status: string | null };
  schedule: Array<{ job: string; last_run_at: string | null; last_result: string | null; next_run_at: string | null; next_reason: string }>;
  jobs: Record<string, unknown>;
  daemon: { running: boolean };
}

async function vault(config: string): Promise<string> {
  const root = path.join(await tempDir(), 'vault');
  await runJson(['init', root]);
  await writeFile(path.join(root, '.vaultkeeper/config.yaml'), `index:\n  embedder: none\nextract:\n  sessions: []\n${config}`);
  execFileSync('git', ['commit', '-qam', 'person: config'], { cwd: root });
  return root;
}

describe('status: what will happen', () => {
  it('names the gate holding the dream and what opens it, as `dream` decides', async () => {
    const root = await vault('');
    await runJson(['--vault', root, 'remember', 'Learning Portuguese on Tuesdays', '--date', daysAgo(2)]);
    await runJson(['--vault', root, 'remember', 'Walks the dog at seven', '--date', daysAgo(1)]);
    const status = await runJson<StatusJson>(['--vault', root, 'status']);
    expect(status.dream).toMatchObject({ next_check_at: null, will_run: false, decision: 'gated', gate: 'min_facts', opens_at: null });
    expect(status.dream.reason).toBe('2 pending facts, fewer than min_facts 20; it opens when 18 more arrive');
    expect(status.dream.opens).toMatch(/^18 more pending facts, or a backlog of more than 14 pending days$/);
    expect(status.schedule).toEqual([]); // no daemon has run yet
    const text = await runCli(['--vault', root, 'status']);
    expect(text.stdout).toContain('gated by min_facts: 2 pending facts, fewer than min_facts 20');
    expect(text.stdout).toContain('no daemon runs');
    // The dream's own gate says the same.
    const dream = await runJson<{ status: string; reason: string }>(['--vault', root, 'dream']);
    expect(dream).toMatchObject({ status: 'gated', reason: status.dream.reason });
  }, 60_000);

  it('says a backlog runs, and when min_hours holds it', async () => {
    const root = await vault('dream:\n  max_days: 1\n  min_facts: 1\n');
    await runJson(['--vault', root, 'remember', 'Learning Portuguese on Tuesdays', '--date', daysAgo(2)]);
    await runJson(['--vault', root, 'remember', 'Walks the dog at seven', '--date', daysAgo(1)]);
    const backlog = await runJson<StatusJson>(['--vault', root, 'status']);
    expect(backlog.dream).toMatchObject({ will_run: true, decision: 'backlog', gate: null, opens: null });
    expect(backlog.dream.reason).toMatch(/^a backlog of 2 pending days \(more than max_days 1\)/);
    // One run consolidates a day; the other is left, no longer a backlog, and min_hours (24) holds it.
    expect((await runJson<{ status: string }>(['--vault', root, 'dream'])).status).toBe('ok');
    const held = await runJson<StatusJson>(['--vault', root, 'status']);
    expect(held.dream).toMatchObject({ will_run: false, decision: 'gated', gate: 'min_hours' });
    expect(Date.parse(held.dream.opens_at!) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(held.dream.reason).toContain(`the gate opens at ${held.dream.opens_at}`);
    expect((await runJson<{ status: string; reason: string }>(['--vault', root, 'dream'])).reason).toBe(held.dream.reason);
  }, 60_000);

  it("shows the daemon's next dream check and each job's last and next run", async () => {
    const root = await vault('');
    await runJson(['--vault', root, 'remember', 'Learning Portuguese on Tuesdays', '--date', daysAgo(1)]);
    await runJson(['--vault', root, 'daemon', 'start', '--background']);
    started.push(root);
    let status: StatusJson | null = null;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      const s = await runJson<StatusJson>(['--vault', root, 'status']);
      if (s.schedule.some((j) => j.job === 'health' && j.last_result === 'ok') && s.schedule.some((j) => j.job === 'dream' && j.last_result === 'ok')) {
        status = s;
        break;
      }
    }
    expect(status, 'the first tick').not.toBeNull();
    const jobs = new Map(status!.schedule.map((j) => [j.job, j]));
    expect([...jobs.keys()]).toEqual(['digest', 'dream', 'extract', 'health', 'index', 'promote', 'retry-skipped', 'sync']);
    const dreamJob = jobs.get('dream')!;
    // The dream job runs every 15 minutes: its next run is the next gate check.
    expect(Date.parse(dreamJob.next_run_at!) - Date.parse(dreamJob.last_run_at!)).toBe(15 * 60_000);
    expect(status!.dream.next_check_at).toBe(dreamJob.next_run_at);
    expect(status!.dream).toMatchObject({ will_run: false, gate: 'min_facts' });
    expect(jobs.get('index')).toMatchObject({ last_result: 'ok', next_reason: 'schedule' });
    expect(jobs.get('digest')!.next_run_at).not.toBeNull(); // daily at 23:50
    expect(jobs.get('retry-skipped')).toMatchObject({ last_run_at: null, next_reason: 'schedule' }); // daily at 03:30
    const text = (await runCli(['--vault', root, 'status'])).stdout;
    expect(text).toMatch(/next check \d{4}-\d{2}-\d{2} \d{2}:\d{2}: gated by min_facts/);
    expect(text).toMatch(/^job {8}health {3}last \d{4}-\d{2}-\d{2} \d{2}:\d{2} ok .*; next \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/m);
  }, 60_000);
});
