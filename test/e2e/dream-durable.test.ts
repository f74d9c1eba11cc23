/**
 * The dream's page writes are durable (issue 30): traced with strace, every page the run's commit names reaches
 * the vault by a temp file that was fsynced before it was renamed over the page, and the page's folder is fsynced
 * after the rename. (The power-cut test cannot tell this apart on ext4 in ordered mode: the commit's own fsyncs
 * flush the pages' data as a side effect.) Needs strace; without it the test says so and does not run.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { git, initVault } from '../helpers/vault.js';

let strace: string | null = null;
try {
  strace = execFileSync('which', ['strace'], { encoding: 'utf8' }).trim() || null;
} catch {
  process.stderr.write('\n*** dream-durable.test.ts DID NOT RUN: strace is not installed ***\n\n');
}

const tempDir = useTempDir();
const env = { VAULTKEEPER_TIMEZONE: 'UTC', LANCE_CPU_THREADS: '2' };

interface Call {
  name: string;
  args: string;
  result: string;
}

/** strace -f output as calls, an `<unfinished ...>` call joined with its `<... resumed>` end (by thread id). */
function calls(trace: string): Call[] {
  const pending = new Map<string, string>();
  const out: Call[] = [];
  for (const line of trace.split('\n')) {
    const m = /^(\d+)\s+(.*)$/.exec(line);
    if (m === null) continue;
    const [, tid, rest] = m;
    let text = rest!;
    if (text.endsWith('<unfinished ...>')) {
      pending.set(tid!, text.slice(0, -'<unfinished ...>'.length));
      continue;
    }
    const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(text);
    if (resumed !== null) text = `${pending.get(tid!) ?? ''}${resumed[1]}`;
    const call = /^(\w+)\((.*)\)\s+=\s+(-?\d+)/.exec(text);
    if (call !== null) out.push({ name: call[1]!, args: call[2]!, result: call[3]! });
  }
  return out;
}

describe.skipIf(strace === null)('the dream writes its pages durably', () => {
  it('each page: temp file fsynced, renamed over the page, its folder fsynced after', async () => {
    const root = await initVault(await tempDir(), { env });
    for (const text of ['Maya works at the harbour office', 'Maya prefers green tea', 'Tomas repairs boats in Bergen']) {
      expect((await runCli(['--vault', root, 'remember', text, '--date', '2026-06-01'], { env })).code).toBe(0);
    }
    const traceFile = path.join(root, '..', 'dream.trace');
    execFileSync(strace!, ['-f', '-qq', '-o', traceFile, '-e', 'trace=openat,fsync,fdatasync,rename,renameat,renameat2,close', process.execPath, CLI, '--vault', root, 'dream', '--force', '--offline'], {
      env: { ...process.env, ...env },
      stdio: 'pipe',
    });
    const written = (await git(root, ['diff', '--name-only', '--diff-filter=AM', 'HEAD~1', 'HEAD'])).split('\n').filter((p) => p.endsWith('.md') && !p.startsWith('logs/'));
    expect(written.length, 'the dream wrote pages').toBeGreaterThan(1);

    // Replay the trace: which path each fd names, which paths were fsynced, and in what order.
    const open = new Map<string, string>();
    const synced = new Set<string>();
    const events: { kind: 'rename' | 'dirsync'; path: string; from?: string; fromSynced?: boolean }[] = [];
    for (const call of calls(await readFile(traceFile, 'utf8'))) {
      if (call.name === 'openat' && Number(call.result) >= 0) open.set(call.result, /"([^"]+)"/.exec(call.args)?.[1] ?? '');
      else if ((call.name === 'fsync' || call.name === 'fdatasync') && call.result === '0') {
        const file = open.get(call.args.trim()) ?? '';
        synced.add(file);
        events.push({ kind: 'dirsync', path: file });
      } else if (call.name.startsWith('rename') && call.result === '0') {
        const [from, to] = [...call.args.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
        events.push({ kind: 'rename', path: to!, from: from!, fromSynced: synced.has(from!) });
      }
    }
    for (const rel of written) {
      const abs = path.join(root, rel);
      const at = events.findLastIndex((e) => e.kind === 'rename' && e.path === abs);
      expect(at, `${rel} was renamed into place`).toBeGreaterThanOrEqual(0);
      expect(events[at]!.fromSynced, `${rel}'s temp file was fsynced before the rename`).toBe(true);
      expect(events.slice(at + 1).some((e) => e.kind === 'dirsync' && e.path === path.dirname(abs)), `${rel}'s folder was fsynced after`).toBe(true);
    }
  }, 120_000);
});
