/** The hosted server (`vaultkeeper server` / `vaultkeeper worker`) as a child process of a test, on a free port of 127.0.0.1. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { CLI, runCli } from './cli.js';

export interface ServerProcess {
  child: ChildProcess;
  /** http://127.0.0.1:PORT, or '' for a worker. */
  url: string;
  /** Everything it wrote to stderr so far. */
  log(): string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

export function startProcess(args: readonly string[], env: Record<string, string | undefined>, ready: RegExp): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, NO_COLOR: '1', ...env } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let settled = false;
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
      reject(new Error(`vaultkeeper ${args.join(' ')} did not start within 30 s:\n${stderr}`));
    }, 30_000);
    child.stdout!.setEncoding('utf8').on('data', () => undefined);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const match = ready.exec(stderr);
      if (match !== null && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve({
          child,
          url: match[1] ?? '',
          log: () => stderr,
          exited,
          async stop() {
            if (child.exitCode !== null || child.signalCode !== null) return;
            child.kill('SIGTERM');
            const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
            await exited;
            clearTimeout(killer);
          },
        });
      }
    });
    void exited.then((code) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`vaultkeeper ${args.join(' ')} exited ${code}:\n${stderr}`));
    });
  });
}

export const startServerProcess = (env: Record<string, string | undefined>, extra: readonly string[] = []): Promise<ServerProcess> =>
  startProcess(['server', '--port', '0', ...extra], env, /listening on (http:\/\/127\.0\.0\.1:\d+)/);

export const startWorkerProcess = (env: Record<string, string | undefined>, extra: readonly string[] = []): Promise<ServerProcess> =>
  startProcess(['worker', ...extra], env, /vaultkeeper worker: running/);

/** What a test's server, workers and server commands share: one database, one data folder, one folder of remotes. */
export function serverEnv(dir: string, databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    VAULTKEEPER_SERVER_DATA: path.join(dir, 'data'),
    VAULTKEEPER_REMOTES: path.join(dir, 'remotes'),
    HOME: path.join(dir, 'home'),
    LANCE_CPU_THREADS: '2',
    ...extra,
  };
}

/** Runs `vaultkeeper ARGS` under the environment `env()` gives at the call; its stdout, or an error naming stderr. */
export function serverCli(env: () => Record<string, string>): (args: string[]) => Promise<string> {
  return async (args) => {
    const result = await runCli(args, { env: env(), timeoutMs: 60_000 });
    if (result.code !== 0) throw new Error(`vaultkeeper ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return result.stdout;
  };
}

/** `server token create ARGS`: the token, which it prints once as its last line. */
export async function createToken(cli: (args: string[]) => Promise<string>, args: string[]): Promise<string> {
  return (await cli(['server', 'token', 'create', ...args])).trimEnd().split('\n').at(-1)!;
}

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

/**
 * Points a hosted vault's working copy at a (scripted) model, one attempt a call, offline when it fails, and commits
 * that as a person's change; `push` also sends it to the canonical copy (for a worker on another host).
 */
export function pointAtModel(root: string, baseUrl: string, options: { push?: boolean } = {}): void {
  const file = path.join(root, '.vaultkeeper', 'config.yaml');
  const doc = parseDocument(readFileSync(file, 'utf8'));
  doc.setIn(['llm', 'base_url'], baseUrl);
  doc.setIn(['llm', 'model'], 'fake');
  doc.setIn(['llm', 'max_attempts'], 1);
  doc.setIn(['llm', 'fallback'], 'offline');
  doc.setIn(['dream', 'max_retries'], 1);
  writeFileSync(file, doc.toString());
  execFileSync('git', ['-C', root, 'commit', '-qam', 'person: the LLM'], { env: GIT_ENV });
  if (options.push === true) execFileSync('git', ['-C', root, 'push', '-q', 'origin', 'HEAD:main'], { env: GIT_ENV });
}

/** What the tests read of a job (GET jobs/:id). */
export interface JobView {
  id: string;
  state: string;
  retries: number;
  output: { status?: string; commit?: string | null; busy?: boolean; requeued?: string; [key: string]: unknown } | null;
}

/**
 * The job that did the work asked for by `id`, once it ended: a job refused because its vault's copy was busy (a sync
 * the remember before it queued) ends completed with `busy` and names the job queued in its place (docs/hosting.md),
 * which is followed, and so on.
 */
export async function jobOutcome(get: (id: string) => Promise<JobView>, id: string, ms = 90_000, context: () => string = () => ''): Promise<JobView> {
  const deadline = Date.now() + ms;
  for (let current = id; ; ) {
    const job = await get(current);
    if (job.state === 'completed' && job.output?.busy === true && typeof job.output.requeued === 'string') {
      current = job.output.requeued;
      continue;
    }
    if (job.state === 'completed' || job.state === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${current} (asked as ${id}) is still ${job.state}: ${JSON.stringify(job)}\n${context()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
