/**
 * `vaultkeeper daemon start|stop|status|log`: the daemon's lifecycle, as a person or a service manager drives it.
 * With `--all` or `--vaults NAME…` one process serves several registered vaults (daemon/many.ts).
 */
import { spawn } from 'node:child_process';
import { constants, openSync } from 'node:fs';
import path from 'node:path';
import { VaultkeeperError } from '../../core/errors.js';
import { formatEntry, LOG_FILE, readLogEntries } from '../../daemon/log.js';
import { processStartTime, removePidFile, runningDaemon } from '../../daemon/pidfile.js';
import { confinedPath } from '../../vault/confine.js';
import { locateVault } from '../../vault/locate.js';
import { listVaults, registryPath } from '../../core/vault-registry.js';
import type { DaemonVault } from '../../daemon/many.js';
import type { GlobalOptions } from '../options.js';
import { note, printJson, printLine } from '../output.js';


/** Which registered vaults a command names: every one (`--all`) or those named (`--vaults`). */
export interface VaultChoice {
  all?: boolean;
  vaults?: string[];
}

/** The registered vaults chosen, or null when the command is about one vault (neither flag). */
async function chosenVaults(opts: VaultChoice): Promise<DaemonVault[] | null> {
  if (!opts.all && opts.vaults === undefined) return null;
  const registered = await listVaults();
  if (registered.length === 0) {
    throw new VaultkeeperError('VK_USAGE', `no vaults are registered (${registryPath()})`, { exitCode: 2, hint: 'name one first, e.g. vaultkeeper vaults add work ~/notes/work' });
  }
  if (opts.all) return registered.map((v) => ({ name: v.name, root: v.path }));
  const chosen: DaemonVault[] = [];
  for (const name of new Set(opts.vaults)) {
    const entry = registered.find((v) => v.name === name);
    if (entry === undefined) throw new VaultkeeperError('VK_USAGE', `no vault is registered as '${name}'`, { exitCode: 2, hint: `the registered names: ${registered.map((v) => v.name).join(', ')}` });
    chosen.push({ name: entry.name, root: entry.path });
  }
  return chosen;
}

export async function start(opts: { background?: boolean; json?: boolean } & VaultChoice, globals: GlobalOptions): Promise<void> {
  const many = await chosenVaults(opts);
  if (many !== null) return startMany(many, opts);
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

/** Several vaults' daemons in one process: in the foreground, or detached (--background) like a lone daemon. */
async function startMany(vaults: DaemonVault[], opts: { background?: boolean; json?: boolean }): Promise<void> {
  if (!opts.background) {
    const { runDaemons } = await import('../../daemon/many.js');
    const result = await runDaemons(vaults, {
      echo: (line) => process.stderr.write(`${line}\n`),
      onFailure: (vault, message) => note(`vaultkeeper: ${vault.name} (${vault.root}): ${message}`),
    });
    process.exitCode = result.failed.length === vaults.length ? 1 : 0;
    return;
  }
  const free: DaemonVault[] = [];
  for (const vault of vaults) {
    const running = await runningDaemon(vault.root);
    if (running === null) free.push(vault);
    else note(`vaultkeeper: ${vault.name}: a daemon already runs for it (pid ${running.pid}); left as it is`);
  }
  if (free.length === 0) throw new VaultkeeperError('VK_DAEMON_RUNNING', 'a daemon already runs for every vault named', { hint: 'see `vaultkeeper daemon status --all`' });
  // The first vault's folder takes the process's own output (crashes before the loggers open).
  const outFile = await confinedPath(free[0]!.root, '.vaultkeeper/daemon.out');
  const out = openSync(outFile, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
  const args = [process.argv[1]!, 'daemon', 'start', '--vaults', ...free.map((v) => v.name)];
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', out, out], env: { ...process.env, VAULTKEEPER_DAEMON_CHILD: '1' } });
  child.unref();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const records = await Promise.all(free.map((v) => runningDaemon(v.root)));
    if (records.every((r) => r !== null && r.pid === child.pid)) {
      const started = free.map((v) => ({ name: v.name, vault: v.root, log: path.join(v.root, LOG_FILE) }));
      if (opts.json) printJson({ pid: child.pid, vaults: started });
      else {
        printLine(`daemon started (pid ${child.pid}) for ${free.length} vaults`);
        for (const v of started) printLine(`  ${v.name}  log: ${v.log}`);
      }
      return;
    }
    if (child.exitCode !== null || Date.now() > deadline || (child.pid !== undefined && processStartTime(child.pid) === null)) {
      const missing = free.filter((_, i) => records[i]?.pid !== child.pid).map((v) => v.name);
      throw new VaultkeeperError('VK_DAEMON_START', `the daemon did not start for ${missing.join(', ')}`, { hint: `see ${outFile} and \`vaultkeeper --vault PATH daemon log\`` });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function stop(opts: { json?: boolean } & VaultChoice, globals: GlobalOptions): Promise<void> {
  const many = await chosenVaults(opts);
  if (many !== null) return stopMany(many, opts);
  const root = locateVault({ vault: globals.vault });
  const running = await runningDaemon(root);
  if (running === null) {
    await removePidFile(root); // a stale one, if any
    if (opts.json) printJson({ stopped: false, reason: 'not running' });
    else printLine('no daemon is running for this vault');
    return;
  }
  const killed = await stopProcess(running);
  await removePidFile(root, running.pid);
  if (opts.json) printJson({ stopped: true, pid: running.pid, killed });
  else printLine(`daemon stopped (pid ${running.pid})${killed ? ' by SIGKILL' : ''}`);
}

/** Stops each named vault's daemon; a process serving several of them is stopped once. */
async function stopMany(vaults: DaemonVault[], opts: { json?: boolean }): Promise<void> {
  const records = await Promise.all(vaults.map(async (v) => ({ vault: v, running: await runningDaemon(v.root) })));
  const killedBy = new Map<number, Promise<boolean>>();
  for (const { running } of records) if (running !== null && !killedBy.has(running.pid)) killedBy.set(running.pid, stopProcess(running));
  const results = [];
  for (const { vault, running } of records) {
    const killed = running === null ? false : await killedBy.get(running.pid)!;
    await removePidFile(vault.root, running?.pid);
    results.push(running === null ? { name: vault.name, stopped: false, reason: 'not running' } : { name: vault.name, stopped: true, pid: running.pid, killed });
  }
  if (opts.json) return printJson({ vaults: results });
  for (const r of results) printLine(`${r.name}  ${r.stopped ? `stopped (pid ${r.pid})${r.killed ? ' by SIGKILL' : ''}` : 'not running'}`);
}

/** SIGTERM, then SIGKILL after 10 s; true when it took SIGKILL. */
async function stopProcess(running: { pid: number; started: string }): Promise<boolean> {
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
  return killed;
}

/** `daemon status --all|--vaults`: each vault's status, under its name. */
export async function status(opts: { json?: boolean } & VaultChoice, globals: GlobalOptions): Promise<void> {
  const statusCommand = await import('./status.js');
  const many = await chosenVaults(opts);
  if (many === null) return statusCommand.run(opts, globals);
  if (opts.json) {
    const vaults = [];
    for (const v of many) vaults.push({ name: v.name, ...(await statusCommand.readStatus({ ...globals, vault: v.root })) });
    return printJson({ vaults });
  }
  for (const [i, v] of many.entries()) {
    if (i > 0) printLine('');
    printLine(`== ${v.name}`);
    await statusCommand.run({}, { ...globals, vault: v.root });
  }
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
