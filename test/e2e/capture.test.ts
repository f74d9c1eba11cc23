/**
 * `vaultkeeper capture add|list|remove` through the built CLI, and the one line that `init`, `daemon
 * start` and `status` give about what is captured.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { expectOneLineError } from '../helpers/vault.js';

const tempDir = useTempDir();

describe('vaultkeeper capture', () => {
  it('says at init that nothing is captured, then adds, lists and removes what a person names', async () => {
    const dir = await tempDir();
    const vault = path.join(dir, 'vault');
    const env = { HOME: path.join(dir, 'home') };
    const init = await runCli(['init', vault], { env });
    expect(init.stdout).toContain('capture: no agent transcripts are read; opt in with `vaultkeeper capture add claude-code [--project PATH]`');

    const status = await runCli(['--vault', vault, 'status'], { env });
    expect(status.stdout).toMatch(/^capture {4}no agent transcripts are read/m);

    const added = await runCli(['--vault', vault, 'capture', 'add', 'claude-code', '--project', '/home/rui/blog'], { env });
    expect(added.stdout).toMatch(/^capturing claude-code --project \/home\/rui\/blog; /);
    expect((await runCli(['--vault', vault, 'capture', 'add', 'claude-code', '--project', '/home/rui/blog'], { env })).stdout).toMatch(/^already capturing/);
    await runJson(['--vault', vault, 'capture', 'add', 'codex'], { env });
    expect((await runCli(['--vault', vault, 'capture', 'list'], { env })).stdout).toBe('claude-code --project /home/rui/blog\ncodex (all projects)\n');
    expect((await runCli(['--vault', vault, 'status'], { env })).stdout).toMatch(/^capture {4}claude-code --project \/home\/rui\/blog\n {11}codex \(all projects\)$/m);

    const removed = await runCli(['--vault', vault, 'capture', 'remove', 'codex'], { env });
    expect(removed.stdout).toMatch(/^no longer capturing codex \(all projects\)/);
    const list = await runJson<{ sources: Array<{ agent: string }> }>(['--vault', vault, 'capture', 'list'], { env });
    expect(list.sources.map((s) => s.agent)).toEqual(['claude-code']);
  });

  it('refuses an unknown agent, and Aider without a project, with one line', async () => {
    const dir = await tempDir();
    const vault = path.join(dir, 'vault');
    await runCli(['init', vault]);
    expectOneLineError(await runCli(['--vault', vault, 'capture', 'add', 'clippy']), 2, /unknown agent: clippy; one of claude-code, codex/);
    expectOneLineError(await runCli(['--vault', vault, 'capture', 'add', 'aider']), 2, /aider keeps its history in each project's folder: name the project/);
  });

  it('daemon start says in one line what is captured', async () => {
    const dir = await tempDir();
    const vault = path.join(dir, 'vault');
    const env = { HOME: path.join(dir, 'home') };
    await runCli(['init', vault], { env });
    await runCli(['--vault', vault, 'capture', 'add', 'gemini'], { env });
    const started = await runCli(['--vault', vault, 'daemon', 'start', '--background'], { env });
    try {
      expect(started.code, started.stderr).toBe(0);
      expect(started.stderr).toBe('capture: transcripts of gemini (all projects); change with `vaultkeeper capture add|remove`\n');
    } finally {
      await runCli(['--vault', vault, 'daemon', 'stop'], { env });
    }
  });
});
