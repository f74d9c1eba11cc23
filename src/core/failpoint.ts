/**
 * Named failpoints for the reliability suite: `VAULTKEEPER_FAILPOINT=dream:after-apply` makes the process
 * die at that step as kill -9 would (no finally blocks, no exit handlers, no flushing), so a test can prove
 * the next command recovers from a crash there. Several names may be given, separated by commas. Unset (in
 * every normal run) a failpoint costs one environment lookup.
 *
 * Names are `<operation>:<step>`; docs/reliability.md lists them.
 */
export const FAILPOINT_ENV = 'VAULTKEEPER_FAILPOINT';

export function failpointArmed(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const armed = env[FAILPOINT_ENV];
  if (armed === undefined || armed === '') return false;
  return armed.split(',').some((entry) => entry.trim() === name);
}

export function failpoint(name: string, env: NodeJS.ProcessEnv = process.env): void {
  if (failpointArmed(name, env)) process.kill(process.pid, 'SIGKILL');
}

/**
 * A failpoint inside a worker thread: the thread ends at once, with no reply, no error event and no finally
 * blocks (process.exit in a worker stops only that thread), the way a thread killed mid-task looks to its
 * owner. A throw would be kinder than a crash: the owner would get an 'error' event naming it.
 */
export function threadFailpoint(name: string, env: NodeJS.ProcessEnv = process.env): void {
  if (failpointArmed(name, env)) process.exit(1);
}
