/**
 * git as a plain child process. On the hot path (`remember`) simple-git's loading, queue and plugins
 * cost more than the git commands themselves; this is the little of it the audit log needs.
 */
import { spawn } from 'node:child_process';

/** A git command that exited non-zero; the message is what git printed (stderr, then stdout), as simple-git's was. */
export class GitCommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly stdout: string,
  ) {
    super(message);
    this.name = 'GitCommandError';
  }
}

export interface GitRunner {
  /** Runs `git -c <config>… <args>` in the folder (`input` on its stdin) and resolves with its stdout, untrimmed. */
  raw(args: readonly string[], options?: { input?: string }): Promise<string>;
}

/**
 * Every git the program runs flushes what it writes: objects, refs and the index (git ≥ 2.36; older git
 * ignores the keys). Without it a power cut right after a commit leaves empty object files and a HEAD
 * naming them (issue 30). `batch` (git ≥ 2.37) flushes many new objects with one disk flush.
 */
export const GIT_FSYNC_CONFIG: readonly string[] = ['core.fsync=committed,index', 'core.fsyncMethod=batch'];

export function gitRunner(root: string, config: readonly string[] = []): GitRunner {
  const prefix = [...GIT_FSYNC_CONFIG, ...config].flatMap((entry) => ['-c', entry]);
  return { raw: (args, options) => runGit(root, [...prefix, ...args], options?.input) };
}

function runGit(cwd: string, args: readonly string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    // A command that reads nothing finds its stdin at its end at once, as with no stdin at all.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const stdout = Buffer.concat(out).toString('utf8');
      if (code === 0) {
        resolve(stdout);
        return;
      }
      const stderr = Buffer.concat(err).toString('utf8');
      const message = stderr.trim() || stdout.trim() || `git ${args.find((a) => !a.includes('=') && a !== '-c') ?? ''} ${signal === null ? `exited ${code}` : `was killed (${signal})`}`;
      reject(new GitCommandError(message, code ?? -1, stdout));
    });
  });
}
