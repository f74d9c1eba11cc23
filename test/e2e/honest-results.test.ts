/**
 * Honest results (issue 30): after a `remember` stored its fact but could not commit it (a stale
 * .git/index.lock), a later remember, a batch, MCP's memory_remember and a forget never say their own change is saved: each exits 1,
 * says the earlier change is stored but not committed and that it did nothing, and writes nothing. Once the
 * lock is gone the next command commits the leftover as a recovery and does its own write.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { commitSubjects, git, initVault } from '../helpers/vault.js';
import { useTempDir } from '../helpers/tmp.js';

const env = { LANCE_CPU_THREADS: '2' };

describe('after a remember stored but not committed (a stale .git/index.lock)', () => {
  const tempDir = useTempDir();

  it('remember, a batch and forget report the leftover as what it is and write nothing; the next command commits both', async () => {
    const root = await initVault(await tempDir(), { env });
    await writeFile(path.join(root, '.git', 'index.lock'), '');
    const first = await runCli(['--vault', root, 'remember', 'Lena bakes sourdough', '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    const firstJson = JSON.parse(first.stdout) as { commit: string | null; warning?: string };
    expect(firstJson.commit).toBeNull();
    expect(firstJson.warning).toMatch(/^stored in logs\/.* but not committed/);
    const log = path.join(root, (await git(root, ['status', '--porcelain', '--untracked-files=all'])).trim().split(/\s+/).find((p) => p.startsWith('logs/'))!);
    const stored = await readFile(log, 'utf8');

    for (const args of [
      ['remember', 'Lena owns a red bike'],
      ['remember', '--stdin'],
      ['forget', '--match', 'sourdough'],
    ]) {
      const result = await runCli(['--vault', root, ...args], { env, input: 'Lena likes rain\nLena hates fog\n' });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(/^vaultkeeper: nothing was done: an earlier change is stored in the files but git could not commit it \(.*index\.lock.*\); .*then run this command again/);
      expect(result.stderr).not.toMatch(/the change itself is saved|unexpected error/);
      expect(await readFile(log, 'utf8')).toBe(stored);
      expect(await readFile(path.join(root, '.vaultkeeper', 'tombstones.jsonl'), 'utf8').catch(() => '')).toBe('');
    }

    // MCP's memory_remember: a tool error saying the same, its fact not written.
    const client = new Client({ name: 'vaultkeeper-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '--vault', root, 'mcp'], stderr: 'pipe' }));
    try {
      const result = (await client.callTool({ name: 'memory_remember', arguments: { facts: [{ text: 'Lena collects stamps' }] } })) as CallToolResult;
      expect(result.isError).toBe(true);
      const said = (result.content[0] as { text: string }).text;
      expect(said).toMatch(/^nothing was done: an earlier change is stored in the files but git could not commit it/);
      expect(said).not.toMatch(/the change itself is saved|unexpected error/);
      expect(await readFile(log, 'utf8')).toBe(stored);
    } finally {
      await client.close();
    }

    await import('node:fs/promises').then((fs) => fs.rm(path.join(root, '.git', 'index.lock')));
    const again = await runCli(['--vault', root, 'remember', 'Lena owns a red bike'], { env });
    expect(again.code, again.stderr).toBe(0);
    const subjects = await commitSubjects(root);
    expect(subjects[0]).toMatch(/^remember: 1 fact/);
    expect(subjects[1]).toMatch(/^recover: commit logs\/.* written before an interruption/);
    expect(await git(root, ['show', `HEAD:${path.relative(root, log)}`])).toContain('Lena bakes sourdough');
  });
});
