/**
 * Fuzzing the built CLI with fast-check: thousands of generated facts through `remember --stdin` (in a
 * few batches, so it stays quick) and 120 generated argument vectors. Whatever the input, the
 * exit code is 0, 1 or 2, an error is one line without a stack or "unexpected error", and the vault stays
 * valid: every log parses without a torn or foreign line, and git has nothing uncommitted.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLog } from '../../src/logs/factlog.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { gitStatus, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const env = { VAULTKEEPER_TIMEZONE: 'UTC' };
const SEED = 1323;

function expectClean(result: CliResult, what: string): void {
  expect([0, 1, 2], `${what}: ${result.stderr}`).toContain(result.code);
  expect(result.stderr, what).not.toMatch(/unexpected error|\n\s+at [^\n]*:\d+:\d+/);
  if (result.code !== 0) expect(result.stderr.trimEnd().split('\n').length, `${what}: ${result.stderr}`).toBe(1);
}

async function expectValidVault(root: string): Promise<void> {
  for (const name of await readdir(path.join(root, 'logs'))) {
    const date = /^(\d{4}-\d{2}-\d{2})\.md$/.exec(name)?.[1];
    if (date === undefined) continue;
    const log = parseLog(await readFile(path.join(root, 'logs', name)), date);
    expect(log.skipped, name).toEqual([]);
  }
  expect(await gitStatus(root)).toEqual([]);
}

const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('', ' ', '#', '- [fact] x ^f-aaaaaaaaaa', '## 09:00 · x', '\u202Egnp.md', '../../etc/passwd'));
const date = fc.oneof(fc.constantFrom('2026-01-05', '2026-02-30', '0000-00-00', '9999-12-31', 'today'), fc.string({ maxLength: 12 }));

const argv = fc.oneof(
  fc.tuple(text, fc.option(date, { nil: undefined }), fc.option(fc.constantFrom('fact', 'preference', 'bogus', ''), { nil: undefined }), fc.option(text, { nil: undefined })).map(([t, d, c, tag]) => [
    'remember',
    t,
    ...(d === undefined ? [] : ['--date', d]),
    ...(c === undefined ? [] : ['-c', c]),
    ...(tag === undefined ? [] : ['-t', tag]),
  ]),
  fc.tuple(fc.constantFrom('forget', 'undo', 'history', 'conflicts', 'status', 'completion', 'nonsense'), fc.array(text, { maxLength: 3 }), fc.boolean()).map(([cmd, rest, json]) => [cmd, ...rest, ...(json ? ['--json'] : [])]),
  fc.array(text, { minLength: 1, maxLength: 4 }),
);

describe('the CLI under generated input', () => {
  it('remember --stdin: thousands of generated lines in batches', async () => {
    const root = await initVault(await tempDir(), { env });
    const batches = fc.sample(fc.array(fc.oneof(text, text.map((t) => JSON.stringify({ text: t, tags: [t] }))), { minLength: 500, maxLength: 500 }), { numRuns: 6, seed: SEED });
    let stored = 0;
    for (const [index, lines] of batches.entries()) {
      const result = await runCli(['--vault', root, 'remember', '--stdin', '--date', '2026-01-05', '--json'], { env, input: lines.join('\n') });
      expectClean(result, `batch ${index}`);
      if (result.code === 0) stored += (JSON.parse(result.stdout) as { facts: unknown[] }).facts.length;
      // A batch with one bad line is rejected whole; clean it of the lines that cannot be facts and try again.
      if (result.code === 2) {
        const retry = await runCli(['--vault', root, 'remember', '--stdin', '--date', '2026-01-05', '--json'], { env, input: lines.filter((l) => /\p{L}/u.test(l) && !l.startsWith('{')).join('\n') });
        expectClean(retry, `batch ${index} again`);
        if (retry.code === 0) stored += (JSON.parse(retry.stdout) as { facts: unknown[] }).facts.length;
      }
    }
    expect(batches.flat().length).toBe(3000);
    // Every fact reported stored is in the log, once; nothing else is.
    const log = parseLog(await readFile(path.join(root, 'logs/2026-01-05.md')).catch(() => ''), '2026-01-05');
    expect(log.facts.length).toBe(stored);
    expect(stored).toBeGreaterThan(0);
    await expectValidVault(root);
  });

  it('120 generated argument vectors', async () => {
    const dir = await tempDir();
    const root = await initVault(dir, { env });
    const vectors = fc.sample(argv, { numRuns: 120, seed: SEED });
    // Three at a time: the vault's lock serializes the writers, so this also exercises waiting.
    for (let at = 0; at < vectors.length; at += 3) {
      const results = await Promise.all(vectors.slice(at, at + 3).map((args) => runCli(['--vault', root, ...args], { env, cwd: dir }).then((r) => [args, r] as const)));
      for (const [args, result] of results) expectClean(result, JSON.stringify(args));
    }
    await expectValidVault(root);
  }, 240_000);
});
