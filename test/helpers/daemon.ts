/**
 * Daemon tests' shared setup: a vault the daemon can run on without touching anything outside it, daemons
 * started in the background through the built CLI and always stopped after each test, and a poll.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach } from 'vitest';
import { runCli, runJson, type CliOptions } from './cli.js';

/** What a daemon test vault holds: facts to remember (text, then remember's other arguments). */
export type Facts = ReadonlyArray<readonly [text: string, ...args: string[]]>;

export interface Daemons {
  /** A new vault: full-text only, no session folders, the person's config committed, then `facts` remembered. */
  vault(facts: Facts, config?: string): Promise<string>;
  /** `daemon start --background`; the daemon is stopped after the test whatever it did. Returns what start printed. */
  start(root: string, options?: CliOptions): Promise<{ pid: number; log: string }>;
}

/** The config every daemon test starts from: the daemon reads no session folder and loads no model. */
export const DAEMON_CONFIG = 'index:\n  embedder: none\nextract:\n  sessions: []\n';

export function useDaemons(tempDir: () => Promise<string>): Daemons {
  const started: Array<{ root: string; options: CliOptions }> = [];
  afterEach(async () => {
    // Never leave a daemon behind, whatever a test did.
    for (const { root, options } of started.splice(0)) await runCli(['--vault', root, 'daemon', 'stop'], options);
  });
  return {
    async vault(facts, config = DAEMON_CONFIG) {
      const root = path.join(await tempDir(), 'vault');
      await runJson(['init', root]);
      await writeFile(path.join(root, '.vaultkeeper/config.yaml'), config);
      execFileSync('git', ['commit', '-qam', 'person: config'], { cwd: root });
      for (const [text, ...args] of facts) await runJson(['--vault', root, 'remember', text, ...args]);
      return root;
    },
    async start(root, options = {}) {
      const out = await runJson<{ pid: number; log: string }>(['--vault', root, 'daemon', 'start', '--background'], options);
      started.push({ root, options });
      return out;
    },
  };
}

/** Polls `probe` until it returns something truthy; throws naming `what` after `timeoutMs`. */
export async function until<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 30_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
