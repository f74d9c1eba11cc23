/**
 * Infrastructure failures never skip days (DESIGN §7), through the built CLI: an LLM endpoint that fails
 * makes the run use the offline consolidator (llm.fallback: offline) or wait (llm.fallback: wait), and
 * never counts toward dream.max_retries; llm.max_attempts bounds the tries of each call. A batch that fails a
 * deterministic check is halved until the bad day stands alone, and only that single day is skipped.
 * The only fake is a scripted OpenAI-compatible server on 127.0.0.1.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../src/dream/journal.js';
import { runCli } from '../helpers/cli.js';
import { useFakeLlm } from '../helpers/fake-llm.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { git, gitStatus, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const startLlm = useFakeLlm();

const D1 = '2025-06-01';
const D2 = '2025-06-02';
const D3 = '2025-06-03';
const LOGS = {
  [`logs/${D1}.md`]: `# ${D1}\n\n## 09:00 · cli\n- [preference] Prefers dark roast coffee #coffee ^f-aaaaaaaaa1\n`,
  // Three topics in one day: with dream.max_changed_pages 1 this day can never pass on its own.
  [`logs/${D2}.md`]: `# ${D2}\n\n## 09:00 · cli\n- [fact] Plays the cello #music ^f-aaaaaaaaa2\n- [preference] Prefers dark roast coffee beans #coffee ^f-aaaaaaaaa3\n- [fact] Visits Lisbon often #travel ^f-aaaaaaaaa5\n`,
  [`logs/${D3}.md`]: `# ${D3}\n\n## 09:00 · cli\n- [preference] Likes espresso #coffee ^f-aaaaaaaaa4\n`,
};

interface DreamJson {
  status: string;
  reason: string;
  consolidator: string | null;
  fallback: string | null;
  batch: { from: string; to: string } | null;
  watermark: { before: string | null; after: string | null };
}

async function makeVault(config: string, logs: Record<string, string> = LOGS): Promise<string> {
  const root = await initVault(await tempDir());
  await writeTree(root, { ...logs, '.vaultkeeper/config.yaml': `timezone: UTC\nindex:\n  embedder: none\n${config}` });
  await git(root, ['add', '--all']);
  await git(root, ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', '-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'logs']);
  return root;
}

async function dream(root: string, env: Record<string, string> = {}): Promise<DreamJson> {
  const result = await runCli(['--vault', root, 'dream', '--force', '--json'], { env });
  const run = JSON.parse(result.stdout) as DreamJson;
  // dream exits 1 only when the run failed.
  expect(result.code, result.stderr).toBe(run.status === 'failed' ? 1 : 0);
  return run;
}

/** Dreams until nothing is pending; returns every run's result. */
async function dreamAll(root: string, env: Record<string, string> = {}): Promise<DreamJson[]> {
  const runs: DreamJson[] = [];
  for (let i = 0; i < 12; i++) {
    const run = await dream(root, env);
    if (run.status === 'noop') return runs;
    runs.push(run);
  }
  throw new Error(`still pending after 12 runs: ${JSON.stringify(runs.at(-1))}`);
}

const llmEnv = (baseUrl: string): Record<string, string> => ({ VAULTKEEPER_LLM_BASE_URL: baseUrl, VAULTKEEPER_LLM_MODEL: 'fake-model' });

describe('an LLM that cannot be used', { timeout: 240_000 }, () => {
  it('falls back to the offline consolidator (llm.fallback: offline), honours llm.max_attempts, and skips no day', async () => {
    const server = await startLlm([], { fallback: { status: 500, message: 'the model is down' } });
    const root = await makeVault('llm:\n  max_attempts: 2\n', { [`logs/${D1}.md`]: LOGS[`logs/${D1}.md`]!, [`logs/${D3}.md`]: LOGS[`logs/${D3}.md`]! });
    const env = llmEnv(server.baseUrl);

    const runs = await dreamAll(root, env);
    expect(runs.map((r) => r.status)).toEqual(['ok']);
    expect(runs[0]).toMatchObject({ consolidator: 'offline', fallback: expect.stringMatching(/LLM cannot be used/), watermark: { after: D3 } });
    // One model call per run, tried exactly llm.max_attempts times.
    expect(server.requests).toHaveLength(2);

    const journal = await readJournal(root);
    expect(journal.watermark).toBe(D3);
    expect(journal.skipped.size).toBe(0);
    expect(await gitStatus(root)).toEqual([]);
    const subject = (await git(root, ['log', '-1', '--format=%B'])).trim();
    expect(subject).toMatch(/offline consolidator \(the LLM could not be used; llm\.fallback: offline\)/);
  });

  it('waits with llm.fallback: wait: the run is gated, nothing counts toward max_retries, no day is skipped', async () => {
    const server = await startLlm([], { fallback: { status: 503, message: 'overloaded' } });
    const root = await makeVault('llm:\n  max_attempts: 1\n  fallback: wait\ndream:\n  max_retries: 2\n');
    const env = llmEnv(server.baseUrl);

    for (let i = 0; i < 4; i++) {
      const run = await dream(root, env);
      expect(run).toMatchObject({ status: 'gated', reason: expect.stringMatching(/^waiting: the LLM cannot be used/), watermark: { before: null, after: null } });
    }
    expect(server.requests).toHaveLength(4);
    const state = JSON.parse(await readFile(path.join(root, '.vaultkeeper/state.json'), 'utf8')) as { dream: { failures: Record<string, number> } };
    expect(state.dream.failures).toEqual({});
    const journal = await readJournal(root);
    expect(journal.watermark).toBeNull();
    expect(journal.skipped.size).toBe(0);
    expect(await gitStatus(root)).toEqual([]);

    // When the endpoint is back (here: the run goes offline on request), every day is placed.
    const runs = await dreamAll(root, { ...env, VAULTKEEPER_LLM_BASE_URL: '', VAULTKEEPER_LLM_MODEL: '' });
    expect(runs.every((r) => r.status === 'ok')).toBe(true);
    expect((await readJournal(root)).watermark).toBe(D3);
  });
});

describe('a batch that fails a deterministic check', { timeout: 240_000 }, () => {
  it('is halved until the bad day stands alone; only that single day is skipped', async () => {
    const root = await makeVault('dream:\n  max_changed_pages: 1\n  max_retries: 2\n');
    const runs = await dreamAll(root);

    const batches = runs.map((r) => `${r.status} ${r.batch!.from}..${r.batch!.to}`);
    expect(batches[0]).toBe(`failed ${D1}..${D3}`);
    expect(runs[0]!.reason).toMatch(new RegExp(`the next run tries ${D1}\\.\\.${D1} alone`));
    expect(batches).toContain(`ok ${D1}..${D1}`);
    expect(batches).toContain(`skipped ${D2}..${D2}`);
    expect(batches.at(-1)).toBe(`ok ${D3}..${D3}`);
    // Every skip names one date; D1 and D3 were consolidated, not skipped.
    const journal = await readJournal(root);
    expect([...journal.skipped]).toEqual([D2]);
    expect(journal.watermark).toBe(D3);
    const log = await readFile(path.join(root, 'log.md'), 'utf8');
    expect(log).toMatch(new RegExp(`consolidated ${D1}\\.\\.${D1}`));
    expect(log).toMatch(new RegExp(`consolidated ${D3}\\.\\.${D3}`));
    expect(await gitStatus(root)).toEqual([]);
  });
});
