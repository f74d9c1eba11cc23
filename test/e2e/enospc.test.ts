/**
 * A full disk (issue 13, deliverable 6): a vault on a 2 MB tmpfs, filled up. A `remember --stdin` whose
 * append cannot fit is rolled back to the log's previous length (no torn line the parser would read as a
 * fact) and says so in one line; a fact that fits but whose commit cannot is reported as stored (exit 0
 * with a warning), and the next write commits it without repeating it. Needs `mount -t tmpfs` (root, as
 * here and in CI); where mounting fails the suite is skipped and says why.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseLog } from '../../src/logs/factlog.js';
import { CLI, runCli } from '../helpers/cli.js';
import { git } from '../helpers/vault.js';

const mountPoint = mkdtempSync(path.join(os.tmpdir(), 'vk-enospc-'));
let mounted = false;
let why = '';
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mountPoint], { stdio: 'pipe' });
  mounted = true;
} catch (error) {
  why = `cannot mount a tmpfs here (${String((error as { stderr?: Buffer }).stderr ?? error).trim().split('\n')[0]}); run as root to test a full disk`;
}

afterAll(() => {
  if (mounted) execFileSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const env = { VAULTKEEPER_TIMEZONE: 'UTC' };
const DATE = '2026-01-05';
const LOG = `logs/${DATE}.md`;

/** Writes filler until the disk is full. */
async function fill(dir: string): Promise<string> {
  const filler = path.join(dir, 'filler');
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let content = Buffer.alloc(0);
  for (;;) {
    try {
      content = Buffer.concat([content, chunk]);
      await writeFile(filler, content);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      // Fill the last gap a byte-page at a time.
      for (let size = content.length - chunk.length; ; size += 4096) {
        try {
          await writeFile(filler, Buffer.alloc(size + 4096, 0x61));
        } catch {
          await writeFile(filler, Buffer.alloc(size, 0x61)).catch(() => undefined);
          return filler;
        }
      }
    }
  }
}

describe.skipIf(!mounted)(`a full disk${mounted ? '' : ` (skipped: ${why})`}`, () => {
  it('leaves no torn line, reports a stored fact honestly, and the next write commits it once', async () => {
    const root = path.join(mountPoint, 'vault');
    expect((await runCli(['init', root], { env })).code).toBe(0);
    expect((await runCli(['--vault', root, 'remember', 'first fact', '--date', DATE], { env })).code).toBe(0);
    const filler = await fill(mountPoint);
    const sizeBefore = (await stat(path.join(root, LOG))).size;

    // Far more than the disk holds: the append fails part way and is rolled back.
    const many = Array.from({ length: 5000 }, (_, i) => `fact number ${i} about the full disk and what it does to the logs`).join('\n');
    const big = await runCli(['--vault', root, 'remember', '--stdin', '--date', DATE], { env, input: many });
    expect(big.code, big.stderr).toBe(1);
    const lines = big.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^vaultkeeper: .*disk is full/);
    const after = await readFile(path.join(root, LOG));
    expect(after.length).toBe(sizeBefore);
    const parsed = parseLog(after, DATE);
    expect(parsed.skipped).toEqual([]);
    expect(parsed.facts.map((f) => f.text)).toEqual(['first fact']);

    // A small fact fits in the log's last page, but git has no room for its objects: stored, not committed.
    const small = await runCli(['--vault', root, 'remember', 'stored while the disk is full', '--date', DATE, '--json'], { env });
    const log = parseLog(await readFile(path.join(root, LOG)), DATE);
    expect(log.skipped).toEqual([]);
    if (log.facts.length === 2) {
      expect(small.code, small.stderr).toBe(0);
      const result = JSON.parse(small.stdout) as { commit: string | null; warning?: string };
      if (result.commit === null) {
        expect(result.warning).toMatch(/stored in .* but not committed/);
        expect(small.stderr).toMatch(/warning: stored/);
      }
    } else {
      // Not even the log had room: refused in one line, nothing written.
      expect(small.code).toBe(1);
      expect(small.stderr.trimEnd().split('\n')).toHaveLength(1);
    }

    await rm(filler);
    const next = await runCli(['--vault', root, 'remember', 'after the disk was freed', '--date', DATE], { env });
    expect(next.code, next.stderr).toBe(0);
    const final = parseLog(await readFile(path.join(root, LOG)), DATE);
    expect(final.skipped).toEqual([]);
    const texts = final.facts.map((f) => f.text);
    expect(new Set(texts).size).toBe(texts.length);
    expect((await git(root, ['status', '--porcelain', '--', LOG])).trim()).toBe('');
  }, 240_000);

  it('after a fact stored but not committed, a full disk: remember, a batch and MCP say nothing was saved and write nothing', async () => {
    await rm(path.join(mountPoint, 'vault'), { recursive: true, force: true });
    const root = path.join(mountPoint, 'vault-honest');
    expect((await runCli(['init', root], { env })).code).toBe(0);
    // A stale index.lock: the first fact is stored, its commit fails (an earlier change, stored, not committed).
    await writeFile(path.join(root, '.git', 'index.lock'), '');
    const first = await runCli(['--vault', root, 'remember', 'Lena bakes sourdough', '--date', DATE, '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect((JSON.parse(first.stdout) as { commit: string | null }).commit).toBeNull();
    await rm(path.join(root, '.git', 'index.lock'));
    const stored = await readFile(path.join(root, LOG), 'utf8');
    const filler = await fill(mountPoint);

    const said: string[] = [];
    for (const args of [['remember', 'Lena owns a red bike', '--date', DATE], ['remember', '--stdin', '--date', DATE]]) {
      const result = await runCli(['--vault', root, ...args], { env, input: 'Lena likes rain\nLena hates fog\n' });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr.trimEnd().split('\n'), result.stderr).toHaveLength(1);
      said.push(result.stderr);
      expect(await readFile(path.join(root, LOG), 'utf8')).toBe(stored);
    }
    const client = new Client({ name: 'vaultkeeper-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '--vault', root, 'mcp'], env: { ...process.env, ...env } as Record<string, string>, stderr: 'pipe' }));
    try {
      const result = (await client.callTool({ name: 'memory_remember', arguments: { facts: [{ text: 'Lena collects stamps' }] } })) as CallToolResult;
      expect(result.isError).toBe(true);
      said.push((result.content[0] as { text: string }).text);
    } finally {
      await client.close();
    }
    expect(await readFile(path.join(root, LOG), 'utf8')).toBe(stored);
    for (const text of said) {
      expect(text).toMatch(/disk is full/);
      expect(text).toMatch(/nothing was (done|written)/);
      expect(text).not.toMatch(/the change itself is saved|unexpected error/);
    }

    await rm(filler);
    const next = await runCli(['--vault', root, 'remember', 'Lena owns a red bike', '--date', DATE], { env });
    expect(next.code, next.stderr).toBe(0);
    const texts = parseLog(await readFile(path.join(root, LOG)), DATE).facts.map((f) => f.text);
    expect(texts).toEqual(['Lena bakes sourdough', 'Lena owns a red bike']);
    expect((await git(root, ['status', '--porcelain'])).trim()).toBe('');
  }, 240_000);
});
