/**
 * Runs a node script as a child process and measures it: wall time and peak RSS, read from GNU time's
 * verbose report when /usr/bin/time is installed, else from process.resourceUsage() inside the child.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './report.js';
import { parseTimeVerbose } from './stats.js';

/** The package's `bin`: the CLI bundle (scripts/bundle-cli.mjs). */
export const CLI = path.join(REPO_ROOT, 'dist', 'bin', 'vaultkeeper.js');
const RSS_CHILD = fileURLToPath(new URL('./rss-child.js', import.meta.url));
const GNU_TIME = '/usr/bin/time';
const RSS_LINE = /^vk-bench maxrss-kb: (\d+)$/m;

export interface ChildResult {
  code: number;
  stdout: string;
  stderr: string;
  wallMs: number;
  maxRssBytes: number | null;
  /** User + system CPU seconds of the child and its children (GNU time only, else null). */
  cpuSeconds?: number | null;
  /** How the peak RSS was read. */
  rssFrom: 'gnu-time' | 'resourceUsage' | 'none';
}

export interface ChildOptions {
  env?: NodeJS.ProcessEnv;
  measureRss?: boolean;
}

/** `node script ...args`, measured. */
export function runNode(script: string, args: readonly string[], options: ChildOptions = {}): Promise<ChildResult> {
  return runProgram(process.execPath, [script, ...args], options, true);
}

/**
 * Any program (qmd's launcher, a shell script), measured the same way; without GNU time only a node script (`node`:
 * the program is node, its first argument the script) reports its peak RSS, from inside.
 */
export function runProgram(program: string, args: readonly string[], options: ChildOptions = {}, node = false): Promise<ChildResult> {
  const measure = options.measureRss ?? false;
  const useTime = measure && existsSync(GNU_TIME);
  let command = program;
  let argv = [...args];
  if (useTime) {
    command = GNU_TIME;
    argv = ['-v', program, ...args];
  } else if (measure && node) {
    argv = [RSS_CHILD, ...args];
  }
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, argv, { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      let maxRssBytes: number | null = null;
      let cpuSeconds: number | null = null;
      let rssFrom: ChildResult['rssFrom'] = 'none';
      if (useTime) {
        ({ maxRssBytes, cpuSeconds } = parseTimeVerbose(stderr));
        rssFrom = 'gnu-time';
      } else if (measure && node) {
        const match = RSS_LINE.exec(stderr);
        maxRssBytes = match === null ? null : Number(match[1]) * 1024;
        rssFrom = 'resourceUsage';
      }
      resolve({ code: code ?? -1, stdout, stderr, wallMs, maxRssBytes, cpuSeconds, rssFrom });
    });
  });
}

/** Runs the built CLI (`node dist/bin/vaultkeeper.js ...args`). */
export function runCli(args: readonly string[], options: ChildOptions = {}): Promise<ChildResult> {
  return runNode(CLI, args, options);
}

/** Starts a long-running CLI command (e.g. `watch`); resolves once its stderr matches `ready`. */
export function startCli(args: readonly string[], ready: RegExp, options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<{ child: ChildProcess; stderr: () => string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: options.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`vaultkeeper ${args.join(' ')} did not get ready in ${options.timeoutMs ?? 120_000} ms: ${stderr}`));
    }, options.timeoutMs ?? 120_000);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (ready.test(stderr)) {
        clearTimeout(timer);
        resolve({ child, stderr: () => stderr });
      }
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`vaultkeeper ${args.join(' ')} exited ${code} before it was ready: ${stderr}`));
    });
  });
}

/** Stops a child this process started, and waits for it to exit. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
