/**
 * A rebuild's native memory is mostly LanceDB's: its writes and index builds allocate from glibc's malloc on a
 * dozen threads, and glibc keeps what they free in one arena per thread (up to 16 on two cores) and, once a large
 * block has been freed, serves blocks of that size from its heaps rather than mapping them, so the process holds
 * the high water of every arena to its end. Two settings bound that: at most two arenas, and blocks of 1 MB and
 * up mapped and unmapped each time. At 1M facts they took a rebuild's peak RSS from ~780 MB to ~470 MB (two
 * arenas alone: ~580 MB) for about the same CPU time (docs/benchmarks.md). glibc reads them once, as the process
 * starts, so `reindex --clear` runs itself again with them set: one more Node start, small beside a rebuild.
 */
import { spawn } from 'node:child_process';

/** The environment a rebuild runs in (glibc's names; other C libraries ignore them). */
export const LEAN_MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '1048576' } as const;

/** Set in the child's environment: it works, and ends with the command that started it. */
const CHILD = 'VAULTKEEPER_LEAN_MALLOC_CHILD';
/** Signals a supervisor or a terminal sends to end the command: passed on to the child, which does the work. */
const PASSED_ON = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Runs this command again in a child with LEAN_MALLOC_ENV and resolves with its exit code, or with null when this
 * process should do the work itself: it is that child, the settings are already in its environment (a person set
 * them), this is not Linux, VAULTKEEPER_LEAN_MALLOC=0, or the child could not start. A child killed by a signal
 * kills this process with the same signal, so whoever started the command sees what a kill of the work looks like;
 * a command killed outright (SIGKILL) takes the child with it, through the channel between the two.
 */
export async function runWithLeanMalloc(env: NodeJS.ProcessEnv = process.env): Promise<number | null> {
  if (env[CHILD] === '1') {
    endWithParent();
    return null;
  }
  if (process.platform !== 'linux' || env.VAULTKEEPER_LEAN_MALLOC === '0' || env.MALLOC_ARENA_MAX !== undefined) return null;
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...env, ...LEAN_MALLOC_ENV, [CHILD]: '1' },
  });
  const passOn = (signal: NodeJS.Signals): void => void child.kill(signal);
  for (const signal of PASSED_ON) process.on(signal, passOn);
  try {
    const ended = await new Promise<[number | null, NodeJS.Signals | null] | null>((resolve) => {
      child.once('error', () => resolve(null));
      child.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
    });
    if (ended === null) return null;
    const [code, signal] = ended;
    if (signal !== null) {
      for (const passed of PASSED_ON) process.off(passed, passOn);
      process.kill(process.pid, signal);
    }
    return code ?? 1;
  } finally {
    for (const signal of PASSED_ON) process.off(signal, passOn);
  }
}

/** In the child: the channel closes when the command that started it ends, however it ended; the work ends then too. */
function endWithParent(): void {
  process.once('disconnect', () => process.kill(process.pid, 'SIGKILL'));
  // Not holding the child open once its work is done; the channel is ready only after a turn of the event loop.
  setImmediate(() => process.channel?.unref());
}
