/**
 * The daemon log rotates past its size cap (daemon.log → .1 → .2, the oldest dropped), and readers —
 * readLogEntries and the built `daemon log` — read across the rotated files, oldest first.
 */
import { spawn } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLogger, readLogEntries } from '../../src/daemon/log.js';
import { CLI, runCli } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

describe('daemon.log rotation', () => {
  it('keeps each file under the cap, keeps two old files, and reads across them', async () => {
    const root = await tempDir();
    const logger = openLogger(root, { maxBytes: 2_000 });
    for (let i = 0; i < 100; i++) logger.log('info', `line ${i}`, { job: i % 2 === 0 ? 'index' : 'dream' });
    const files = (await readdir(path.join(root, '.vaultkeeper'))).filter((f) => f.startsWith('daemon.log')).sort();
    expect(files).toEqual(['daemon.log', 'daemon.log.1', 'daemon.log.2']);
    for (const file of files) expect((await stat(path.join(root, '.vaultkeeper', file))).size).toBeLessThanOrEqual(2_000);

    const entries = await readLogEntries(root);
    const numbers = entries.map((e) => Number(e.msg.slice(5)));
    // Oldest first and contiguous up to the last line written; the oldest lines were dropped with .3.
    expect(numbers.at(-1)).toBe(99);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => numbers[0]! + i));
    expect(numbers[0]).toBeGreaterThan(0);
    expect(numbers.length).toBeGreaterThan(30);

    // A logger opened later (a restarted daemon) continues from the file's size.
    openLogger(root, { maxBytes: 2_000 }).log('info', 'line 100');
    expect((await readLogEntries(root, { tail: 1 }))[0]!.msg).toBe('line 100');

    const cli = await runCli(['--vault', root, 'daemon', 'log', '--tail', '1000', '--job', 'dream', '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    const shown = cli.stdout.trim().split('\n').map((l) => JSON.parse(l) as { msg: string; job: string });
    expect(shown.every((e) => e.job === 'dream')).toBe(true);
    expect(shown.map((e) => e.msg)).toEqual((await readLogEntries(root, { job: 'dream' })).map((e) => e.msg));
    expect(shown.length).toBeGreaterThan(10);
  });

  it('daemon log --follow keeps printing across a rotation, each line once', async () => {
    const root = await tempDir();
    const logger = openLogger(root, { maxBytes: 2_000 });
    logger.log('info', 'line 0');
    const child = spawn(process.execPath, [CLI, '--vault', root, 'daemon', 'log', '--follow', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    try {
      for (let waited = 0; !out.includes('line 0') && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      // About 20 lines a file, written over ~2.4 s: several rotations while it follows.
      for (let i = 1; i <= 80; i++) {
        logger.log('info', `line ${i}`);
        await new Promise((r) => setTimeout(r, 30));
      }
      for (let waited = 0; !out.includes('"line 80"') && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    } finally {
      child.kill('SIGTERM');
    }
    const seen = out.trim().split('\n').map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(seen).toEqual(Array.from({ length: 81 }, (_, i) => `line ${i}`));
    expect((await readdir(path.join(root, '.vaultkeeper'))).filter((f) => f.startsWith('daemon.log.')).sort()).toEqual(['daemon.log.1', 'daemon.log.2']);
  }, 30_000);
});
