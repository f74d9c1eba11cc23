/**
 * DESIGN §3 and §9: appends are atomic and safe across processes. 20 processes each run
 * `vaultkeeper remember` 25 times in a row, all at once, on one vault and one daily log.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withWriteLock } from '../../src/core/lock.js';
import { parseLog } from '../../src/logs/factlog.js';
import { FACT_ID_RE } from '../../src/logs/ids.js';
import { CLI } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { commitSubjects, gitStatus, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const WORKERS = 20;
const CALLS = 25;
const DATE = '2026-06-09';

/** One worker: runs the CLI CALLS times in sequence and prints one JSON line per call. */
const WORKER = `
import { spawnSync } from 'node:child_process';
const [cli, vault, worker, calls, date] = process.argv.slice(2);
for (let i = 0; i < Number(calls); i++) {
  const text = 'worker ' + worker + ' fact ' + i + ' #w' + worker;
  const started = Date.now();
  const run = spawnSync(process.execPath, [cli, '--vault', vault, 'remember', text, '--date', date, '--source', 'w' + worker, '--json'], { encoding: 'utf8' });
  const ms = Date.now() - started;
  process.stdout.write(JSON.stringify({ worker: Number(worker), i, code: run.status, stdout: run.stdout, stderr: run.stderr, ms }) + '\\n');
}
`;

interface CallResult {
  worker: number;
  i: number;
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time of the call, for the report below (never asserted: the machine is shared). */
  ms: number;
}

function runWorker(script: string, vault: string, worker: number): Promise<CallResult[]> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, VAULTKEEPER_VAULT: undefined };
    const child = spawn(process.execPath, [script, CLI, vault, String(worker), String(CALLS), DATE], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`worker ${worker} exited ${code}: ${err}`));
      else resolve(out.split('\n').filter(Boolean).map((line) => JSON.parse(line) as CallResult));
    });
  });
}

describe('concurrent remember', () => {
  it(`${WORKERS} processes × ${CALLS} calls: every fact once, every line well-formed, one commit each`, { timeout: 20 * 60_000 }, async () => {
    const dir = await tempDir();
    const root = await initVault(dir);
    const script = path.join(dir, 'worker.mjs');
    await writeFile(script, WORKER);

    const results = (await Promise.all(Array.from({ length: WORKERS }, (_, w) => runWorker(script, root, w)))).flat();
    expect(results).toHaveLength(WORKERS * CALLS);
    const times = results.map((r) => r.ms).sort((a, b) => a - b);
    console.log(`remember under contention: median ${times[times.length >> 1]} ms, max ${times.at(-1)} ms (a call gives up only when one holder keeps the lock for 120 s)`);
    const failed = results.filter((r) => r.code !== 0);
    const failures = failed.map((r) => `worker ${r.worker} call ${r.i}: exit ${r.code}: ${r.stderr.trim()}`).join('\n');
    expect(failed.length, failures).toBe(0);

    const content = await readFile(path.join(root, 'logs', `${DATE}.md`));
    const parsed = parseLog(content, DATE);
    expect(parsed.skipped).toEqual([]);
    expect(parsed.facts).toHaveLength(WORKERS * CALLS);

    // Every fact exactly once, under its own worker's header, with its tag.
    const expected = results.map((r) => `worker ${r.worker} fact ${r.i}`).sort();
    expect(parsed.facts.map((f) => f.text).sort()).toEqual(expected);
    for (const fact of parsed.facts) {
      const worker = /^worker (\d+) /.exec(fact.text)![1];
      expect(fact.source).toBe(`w${worker}`);
      expect(fact.tags).toEqual([`w${worker}`]);
      expect(fact.explicitId).toBe(true);
      expect(fact.id).toMatch(FACT_ID_RE);
    }
    const ids = parsed.facts.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);

    // Batches never interleave: the title, then blank line, header, fact, for each call.
    const lines = content.toString('utf8').split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, 2)).toEqual([`# ${DATE}`, '']);
    const body = lines.slice(2, -1);
    expect(body).toHaveLength(WORKERS * CALLS * 3 - 1);
    for (let k = 0; k < WORKERS * CALLS; k++) {
      if (k > 0) expect(body[3 * k - 1]).toBe('');
      expect(body[3 * k]).toMatch(/^## \d{2}:\d{2} · w\d+$/);
      expect(body[3 * k + 1]).toMatch(/^- \[fact\] worker \d+ fact \d+ #w\d+ \^f-[0-9a-z]{10}$/);
    }

    // What each call reported is where its fact is.
    const byLine = new Map(parsed.facts.map((f) => [f.line, f]));
    for (const r of results) {
      const { facts } = JSON.parse(r.stdout) as { facts: { id: string; line: number; path: string }[] };
      expect(facts).toHaveLength(1);
      expect(byLine.get(facts[0]!.line)).toMatchObject({ id: facts[0]!.id, text: `worker ${r.worker} fact ${r.i}` });
    }

    const subjects = await commitSubjects(root);
    expect(subjects).toHaveLength(WORKERS * CALLS + 1);
    expect(subjects.filter((s) => s === `remember: 1 fact in logs/${DATE}.md`)).toHaveLength(WORKERS * CALLS);
    expect(subjects.at(-1)).toBe('init: new vaultkeeper vault');
    expect(await gitStatus(root)).toEqual([]);
  });

  it('gives up with VK_LOCKED, saying what to do, when one holder keeps the lock', async () => {
    const root = await tempDir();
    let releaseHolder!: () => void;
    const held = new Promise<void>((resolve) => (releaseHolder = resolve));
    let holding!: () => void;
    const acquired = new Promise<void>((resolve) => (holding = resolve));
    const holder = withWriteLock(root, async () => {
      holding();
      await held;
      return 'holder done';
    });
    await acquired;
    const waiter = withWriteLock(root, () => Promise.resolve('waiter ran'), { waitMs: 300 });
    await expect(waiter).rejects.toMatchObject({ code: 'VK_LOCKED', message: expect.stringMatching(/vault is busy/), hint: expect.stringMatching(/try again/) });
    releaseHolder();
    expect(await holder).toBe('holder done');
    // Released: the next writer gets it at once.
    expect(await withWriteLock(root, () => Promise.resolve('next'), { waitMs: 300 })).toBe('next');
  });
});
