/** Runs the built CLI (the bundle in dist/bin/, the package's `bin`) as a child process, the way a person or a script does. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/bin/vaultkeeper.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  input?: string | Uint8Array;
  /** Another build of the CLI to run instead of the bundle (e.g. dist/cli/main.js, to compare the two). */
  script?: string;
  /** Kills the CLI (SIGKILL) after this long, so a hang fails the test instead of outliving it. */
  timeoutMs?: number;
  /** Node's own options before the script (e.g. V8's `--trace-opt`). */
  nodeArgs?: readonly string[];
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, VAULTKEEPER_VAULT: undefined, NO_COLOR: '1', ...options.env };
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script ?? CLI, ...args], { cwd: options.cwd, env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    // A command that does not read its input may exit before it is written (a quick one often does): the write
    // then fails with EPIPE, which says nothing about the command.
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error);
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Runs the CLI and parses its --json output; fails loudly on a non-zero exit. */
export async function runJson<T = unknown>(args: readonly string[], options: CliOptions = {}): Promise<T> {
  const result = await runCli([...args, '--json'], options);
  if (result.code !== 0) throw new Error(`vaultkeeper ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}
