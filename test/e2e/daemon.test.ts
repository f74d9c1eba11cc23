/** The daemon's lifecycle through real child processes: start, status, double start, SIGUSR1, stop, stale PID files. */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../src/dream/journal.js';
import { runCli, runJson } from '../helpers/cli.js';
import { until, useDaemons } from '../helpers/daemon.js';
import { useTempDir } from '../helpers/tmp.js';

const daemons = useDaemons(useTempDir());
const vault = (): Promise<string> => daemons.vault([['Learning Portuguese on Tuesdays', '-t', 'languages', '--date', '2026-06-01']]);

interface StatusJson {
  watermark: string | null;
  daemon: { running: boolean; pid: number | null };
  jobs: Record<string, { last_result?: string | null }>;
}

describe('daemon', () => {
  it('starts in the background, reports status, refuses a second start, dreams on SIGUSR1 and stops', async () => {
    const root = await vault();
    const startedJson = await daemons.start(root);
    expect(startedJson.log).toBe(path.join(root, '.vaultkeeper/daemon.log'));
    const pidFile = JSON.parse(await readFile(path.join(root, '.vaultkeeper/daemon.pid'), 'utf8')) as { pid: number };
    expect(pidFile.pid).toBe(startedJson.pid);

    const status = await until(async () => {
      const s = await runJson<StatusJson>(['--vault', root, 'status']);
      return s.jobs.health !== undefined ? s : null;
    }, 'the first tick');
    expect(status.daemon).toEqual({ running: true, pid: startedJson.pid });
    expect(Object.keys(status.jobs).sort()).toEqual(['digest', 'dream', 'extract', 'health', 'index', 'promote', 'retry-skipped', 'sync']);

    const second = await runCli(['--vault', root, 'daemon', 'start', '--background']);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/already runs for this vault \(pid \d+\)/);

    // The gate is closed (min_facts); SIGUSR1 dreams now.
    expect((await readJournal(root)).watermark).toBeNull();
    process.kill(startedJson.pid, 'SIGUSR1');
    await until(async () => (await readJournal(root)).watermark === '2026-06-01', 'the dream');
    // The journal reaches the vault a moment before the commit; wait for the commit itself.
    await until(async () => /^dream: 2026-06-01/m.test(execFileSync('git', ['log', '--format=%s', '-5'], { cwd: root, encoding: 'utf8' })), 'the dream commit');

    const log = await until(async () => {
      const out = await runCli(['--vault', root, 'daemon', 'log', '--job', 'dream']);
      return /\[dream\] ok: consolidated 1 days/.test(out.stdout) ? out : null;
    }, 'the dream job to finish');
    expect(log.code).toBe(0);
    expect(log.stdout).toMatch(/why=event:sigusr1/);

    const stopped = await runJson<{ stopped: boolean; pid: number; killed: boolean }>(['--vault', root, 'daemon', 'stop']);
    expect(stopped).toEqual({ stopped: true, pid: startedJson.pid, killed: false });
    const after = await runJson<StatusJson>(['--vault', root, 'status']);
    expect(after.daemon).toEqual({ running: false, pid: null });
    expect(await readFile(path.join(root, '.vaultkeeper/daemon.pid'), 'utf8').catch(() => 'gone')).toBe('gone');
    expect((await readFile(path.join(root, '.vaultkeeper/daemon.log'), 'utf8')).trim().split('\n').at(-1)).toMatch(/"msg":"stopped"/);
  });

  it('treats a stale or reused pid as not running, and starts anyway', async () => {
    const root = await vault();
    // A pid that is alive but is not our daemon (this test's own process), and one that is dead.
    for (const pid of [process.pid, 999_999]) {
      await writeFile(path.join(root, '.vaultkeeper/daemon.pid'), JSON.stringify({ pid, started: 'another time', started_at: new Date().toISOString(), vault: root, log: 'x' }));
      const status = await runJson<StatusJson>(['--vault', root, 'status']);
      expect(status.daemon).toEqual({ running: false, pid: null });
    }
    const stop = await runJson<{ stopped: boolean }>(['--vault', root, 'daemon', 'stop']);
    expect(stop.stopped).toBe(false);
    const startedJson = await daemons.start(root);
    expect((await runJson<StatusJson>(['--vault', root, 'status'])).daemon.pid).toBe(startedJson.pid);
  });
});

describe('daemon with an LLM over its daily cap', () => {
  it('dreams with the offline consolidator and says so in status', async () => {
    const { startFakeLlm } = await import('../helpers/fake-llm.js');
    // Every reply reports 500 tokens: the start-up check alone passes the daily cap of 100.
    const llm = await startFakeLlm([], { fallback: { text: 'ok', usage: { prompt_tokens: 400, completion_tokens: 100 } } });
    try {
      const root = await vault();
      await writeFile(
        path.join(root, '.vaultkeeper/config.yaml'),
        `index:\n  embedder: none\nextract:\n  sessions: []\nllm:\n  base_url: ${llm.baseUrl}\n  model: fake-model\n  max_tokens_per_day: 100\n  fallback: offline\n`,
      );
      execFileSync('git', ['commit', '-qam', 'person: an LLM with a small daily cap'], { cwd: root });
      const startedJson = await daemons.start(root);
      process.kill(startedJson.pid, 'SIGUSR1');
      await until(async () => (await readJournal(root)).watermark === '2026-06-01', 'the offline dream');
      const status = await until(async () => {
        const s = await runJson<{ llm: { configured: boolean; fallback: { mode: string; reason: string } | null; check: { ok: boolean } | null } }>(['--vault', root, 'status']);
        return s.llm.fallback ? s : null;
      }, 'status to report the fallback');
      expect(status.llm).toMatchObject({ configured: true, check: { ok: true }, fallback: { mode: 'offline', reason: expect.stringMatching(/daily LLM token cap/) } });
      const text = await runCli(['--vault', root, 'status']);
      expect(text.stdout).toMatch(/dreams use the offline consolidator: the daily LLM token cap is reached/);
      const log = await runCli(['--vault', root, 'daemon', 'log', '--job', 'dream']);
      expect(log.stdout).toMatch(/dreaming with the offline consolidator/);
      // Only the start-up check reached the model: the dream itself made no LLM call.
      expect(llm.requests).toHaveLength(1);
    } finally {
      await llm.close();
    }
  });
});
