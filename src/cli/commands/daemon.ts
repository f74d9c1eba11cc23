/** `vaultkeeper daemon start|stop|status|log`: the daemon's lifecycle, as a person or a service manager drives it. */
import { spawn } from 'node:child_process';
import { constants, openSync } from 'node:fs';
import path from 'node:path';
import { VaultkeeperError } from '../../core/errors.js';
import { formatEntry, LOG_FILE, readLogEntries } from '../../daemon/log.js';
import { processStartTime, removePidFile, runningDaemon } from '../../daemon/pidfile.js';
import { confinedPath } from '../../vault/confine.js';
import { locateVault } from '../../vault/locate.js';
import type { GlobalOptions } from '../options.js';
import { note, printJson, printLine } from '../output.js';


export async function start(opts: { background?: boolean; json?: boolean }, globals: GlobalOptions): Promise<void> {
  const root = locateVault({ vault: globals.vault });
  if (!opts.background) {
    // What the session watcher will read, said before it reads anything (a detached child says nothing; a
    // second daemon fails with its one line).
    if (process.env.VAULTKEEPER_DAEMON_CHILD !== '1' && (await runningDaemon(root)) === null) note(await captureLine(root));
    const { runDaemon } = await import('../../daemon/daemon.js');
    process.exitCode = await runDaemon({ root, echo: true });
    return;
  }
  const running = await runningDaemon(root);
  if (running !== null) throw new VaultkeeperError('VK_DAEMON_RUNNING', `a daemon already runs for this vault (pid ${running.pid})`, { hint: 'stop it with `vaultkeeper daemon stop`' });
  // Its own stdout/stderr go to daemon.out (crashes before the logger opens); its log is daemon.log.
  const out = openSync(await confinedPath(root, '.vaultkeeper/daemon.out'), constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
  // The same CLI that was started (the bundle, or dist/cli/main.js) runs the daemon.
  const child = spawn(process.execPath, [process.argv[1]!, '--vault', root, 'daemon', 'start'], { detached: true, stdio: ['ignore', out, out], env: { ...process.env, VAULTKEEPER_DAEMON_CHILD: '1' } });
  child.unref();
  const deadline = Date.now() + 15_000;
  for (;;) {
    const record = await runningDaemon(root);
    if (record !== null && record.pid === child.pid) {
      const log = path.join(root, LOG_FILE);
      if (opts.json) printJson({ pid: record.pid, log });
      else {
        printLine(`daemon started (pid ${record.pid}); log: ${log}`);
        note(await captureLine(root));
      }
      return;
    }
    if (child.exitCode !== null || Date.now() > deadline || (child.pid !== undefined && processStartTime(child.pid) === null)) {
      throw new VaultkeeperError('VK_DAEMON_START', 'the daemon did not start', { hint: `see ${path.join(root, '.vaultkeeper/daemon.out')} and \`vaultkeeper daemon log\`` });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function stop(opts: { json?: boolean }, globals: GlobalOptions): Promise<void> {
  const root = locateVault({ vault: globals.vault });
  const running = await runningDaemon(root);
  if (running === null) {
    await removePidFile(root); // a stale one, if any
    if (opts.json) printJson({ stopped: false, reason: 'not running' });
    else printLine('no daemon is running for this vault');
    return;
  }
  process.kill(running.pid, 'SIGTERM');
  const alive = (): boolean => processStartTime(running.pid) === running.started;
  let killed = false;
  for (const deadline = Date.now() + 10_000; alive(); ) {
    if (Date.now() > deadline) {
      note(`vaultkeeper: pid ${running.pid} did not stop within 10 s; sending SIGKILL`);
      process.kill(running.pid, 'SIGKILL');
      killed = true;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await removePidFile(root, running.pid);
  if (opts.json) printJson({ stopped: true, pid: running.pid, killed });
  else printLine(`daemon stopped (pid ${running.pid})${killed ? ' by SIGKILL' : ''}`);
}

export async function log(opts: { tail?: number; job?: string; follow?: boolean; json?: boolean }, globals: GlobalOptions): Promise<void> {
  const root = locateVault({ vault: globals.vault });
  let shown = await readLogEntries(root, { tail: opts.tail ?? 50, ...(opts.job === undefined ? {} : { job: opts.job }) });
  const print = (entries: typeof shown): void => {
    for (const entry of entries) printLine(opts.json ? JSON.stringify(entry) : formatEntry(entry));
  };
  print(shown);
  if (!opts.follow) return;
  // Follow by the last entry seen, not by a count: a rotation drops the oldest file's entries.
  let last = (await readLogEntries(root)).at(-1);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const all = await readLogEntries(root);
    const key = last === undefined ? null : JSON.stringify(last);
    const from = key === null ? 0 : all.findLastIndex((e) => JSON.stringify(e) === key) + 1;
    shown = all.slice(from).filter((e) => opts.job === undefined || e.job === opts.job);
    last = all.at(-1) ?? last;
    print(shown);
  }
}

async function captureLine(root: string): Promise<string> {
  const os = await import('node:os');
  const { loadConfig } = await import('../../core/config.js');
  const { readCaptureState } = await import('../../extract/capture.js');
  const config = await loadConfig(root);
  return (await readCaptureState(root, config.extract.sessions, process.env.HOME || os.homedir())).line;
}
