/**
 * The CLI's stdout and stderr (src/cli/stdio.ts), through the built CLI: every line is redacted, whether the CLI wrote
 * it to the descriptor itself or a library wrote it through process.stdout or process.stderr; a reader that closed
 * stdout ends the command quietly, and one that closed stderr leaves the command its exit code.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { expectOneLineError, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
// A GitHub token's shape (core/redact.ts).
const KEY = `ghp_${'abcdefghijklmnopqrstuvwxyz0123456789'}`;

/** Runs the CLI with the read end of `closed` (its stdout or stderr pipe) shut before the CLI starts writing. */
function runWithClosed(closed: 'stdout' | 'stderr', args: readonly string[]): Promise<{ code: number | null; other: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, VAULTKEEPER_VAULT: undefined } });
    child[closed].destroy();
    let other = '';
    child[closed === 'stdout' ? 'stderr' : 'stdout'].setEncoding('utf8').on('data', (d: string) => (other += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, other }));
  });
}

describe("the CLI's stdout and stderr", () => {
  it("redact the CLI's own lines: a search's JSON on stdout, its error on stderr", async () => {
    const root = await initVault(await tempDir());
    const found = await runCli(['--vault', root, 'search', `the token ${KEY}`, '--json']);
    expect(found.code, found.stderr).toBe(0);
    expect((JSON.parse(found.stdout) as { query: string }).query).toBe('the token [redacted]');
    expect(found.stdout).not.toContain(KEY);
    const refused = await runCli(['--vault', root, 'search', 'coffee', '--since', KEY]);
    expectOneLineError(refused, 2, /--since must be a date YYYY-MM-DD, got '\[redacted\]'/);
    expect(refused.stderr).not.toContain(KEY);
  });

  it('redact what a library writes through process.stderr: commander naming an unknown option', async () => {
    const root = await initVault(await tempDir());
    const result = await runCli(['--vault', root, 'search', 'coffee', `--${KEY}`]);
    expectOneLineError(result, 2, /unknown option '--\[redacted\]'/);
    expect(result.stderr).not.toContain(KEY);
  });

  it('end a command quietly when stdout is closed, and keep its exit code when stderr is', async () => {
    const root = await initVault(await tempDir());
    // Written by the CLI itself (a search's answer, the completion script) and by commander (its error).
    expect(await runWithClosed('stdout', ['--vault', root, 'search', 'coffee', '--json'])).toEqual({ code: 0, other: '' });
    expect(await runWithClosed('stdout', ['completion', 'bash'])).toEqual({ code: 0, other: '' });
    expect(await runWithClosed('stderr', ['--vault', root, 'search', 'coffee', '--since', 'someday'])).toEqual({ code: 2, other: '' });
    expect(await runWithClosed('stderr', ['--vault', root, 'search', 'coffee', '--no-such-option'])).toEqual({ code: 2, other: '' });
  });
});
