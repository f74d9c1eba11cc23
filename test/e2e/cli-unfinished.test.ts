/**
 * A command that never finishes (its work awaits a promise nothing settles: a bug, here the cli:unsettled
 * failpoint) must not end as a success. When the event loop drains, the CLI says so in one line and exits 70;
 * without the guard it exited 0 with no output (a projection pool that lost a chunk did exactly that).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('a command that never finishes', () => {
  it('fails in one line instead of ending as a silent success', async () => {
    const run = await runCli(['--version'], { env: { VAULTKEEPER_FAILPOINT: 'cli:unsettled' } });
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('vaultkeeper: internal error: the command stopped before it finished (nothing was left to wait for); run it again, and report it if it repeats\n');
    expect(run.code).toBe(70);
  });

  it('a command that finishes is untouched', async () => {
    const run = await runCli(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(run.stderr).toBe('');
  });
});
