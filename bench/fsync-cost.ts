/**
 * What durability costs (issue 30): `remember` and `forget` fsync their file, its folder and git's objects, refs and
 * index (core.fsync). The same commands are timed with fsync on (as shipped) and off: off is the CLI run under a
 * small LD_PRELOAD library, compiled here with the system's C compiler, that makes fsync, fdatasync, syncfs,
 * sync_file_range and sync return at once (what eatmydata does), for node and the git it starts alike. Runs
 * alternate between the two, so the machine's load weighs on both the same. The vault is on the disk under
 * os.tmpdir(): a tmpfs there would make both the same (say so when reading the figures).
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runCli } from './child.js';
import { markdownTable, ms, summarize, type Summary } from './stats.js';

const SHIM = `#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
int fsync(int fd) { (void)fd; return 0; }
int fdatasync(int fd) { (void)fd; return 0; }
int syncfs(int fd) { (void)fd; return 0; }
void sync(void) {}
int sync_file_range(int fd, off64_t offset, off64_t nbytes, unsigned int flags) { (void)fd; (void)offset; (void)nbytes; (void)flags; return 0; }
`;

export interface FsyncResult {
  runs: number;
  filesystem: string;
  rows: { command: string; on: Summary; off: Summary }[];
}

async function compileShim(dir: string): Promise<string> {
  const source = path.join(dir, 'nofsync.c');
  const library = path.join(dir, 'nofsync.so');
  await writeFile(source, SHIM);
  execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', library, source], { stdio: 'pipe' });
  return library;
}

export async function measureFsync(base: string, options: { runs: number; env: NodeJS.ProcessEnv }): Promise<FsyncResult> {
  const library = await compileShim(base);
  const root = path.join(base, 'fsync-vault');
  const env = { ...options.env, VAULTKEEPER_TIMEZONE: 'UTC' };
  const init = await runCli(['init', root], { env });
  if (init.code !== 0) throw new Error(`init exited ${init.code}: ${init.stderr.trim()}`);
  await writeFile(path.join(root, '.vaultkeeper', 'config.yaml'), 'timezone: UTC\nindex:\n  embedder: none\n');
  const filesystem = execFileSync('df', ['--output=fstype', root], { encoding: 'utf8' }).trim().split('\n').at(-1) ?? '?';
  const times = { remember: { on: [] as number[], off: [] as number[] }, forget: { on: [] as number[], off: [] as number[] } };
  const timed = async (mode: 'on' | 'off', command: 'remember' | 'forget', args: string[]): Promise<string> => {
    const child = await runCli(['--vault', root, ...args], { env: mode === 'on' ? env : { ...env, LD_PRELOAD: library } });
    if (child.code !== 0) throw new Error(`${args[0]} exited ${child.code}: ${child.stderr.trim().split('\n').at(-1)}`);
    times[command][mode].push(child.wallMs);
    return child.stdout;
  };
  for (let i = 0; i < options.runs; i++) {
    for (const mode of i % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
      const out = await timed(mode, 'remember', ['remember', `fsync bench fact ${mode} ${i} about the harbour office`, '--date', '2026-01-05', '--json']);
      const id = (JSON.parse(out) as { facts: { id: string }[] }).facts[0]!.id;
      await timed(mode, 'forget', ['forget', id, '--json']);
    }
  }
  return {
    runs: options.runs,
    filesystem,
    rows: (['remember', 'forget'] as const).map((command) => ({ command, on: summarize(times[command].on), off: summarize(times[command].off) })),
  };
}

export function renderFsync(result: FsyncResult): string {
  const table = markdownTable([
    ['command (CLI, wall)', 'p50 with fsync', 'p50 without', 'p50 cost', 'p95 with', 'p95 without'],
    ...result.rows.map((r) => [r.command, ms(r.on.p50), ms(r.off.p50), ms(r.on.p50 - r.off.p50), ms(r.on.p95), ms(r.off.p95)]),
  ]);
  return [
    '### What durability costs: fsync on and off',
    '',
    `Each command run ${result.runs} times with fsync as shipped and ${result.runs} times under an LD_PRELOAD library that makes every fsync a no-op (bench/fsync-cost.ts), alternating; the vault on ${result.filesystem}. A forget includes its reindex.`,
    '',
    table,
  ].join('\n');
}
