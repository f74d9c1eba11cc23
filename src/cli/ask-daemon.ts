/**
 * The CLI side of the daemon's query socket: asks the warm daemon, and returns null whenever the answer
 * should come from this process instead (no daemon, an untrusted socket, no quick answer). Imports
 * nothing heavy, so a search answered by the daemon loads almost nothing.
 */
import { VaultkeeperError } from '../core/errors.js';
import { QUERY_FAILED, socketPath, untrustedSocket, type QueryAnswer, type QueryRequest } from '../daemon/query-protocol.js';

/** Longer than a warm search takes even on a loaded machine; short enough that falling back stays quick. */
const ANSWER_TIMEOUT_MS = 2_000;
/** Set to 1 to answer every command in process even when a daemon runs. */
export const NO_DAEMON_ENV = 'VAULTKEEPER_NO_DAEMON';

export interface DaemonReply<T> {
  value: T;
}

/**
 * The daemon's answer, or null (with why, through `onSkip`) when there is none. An error the daemon
 * reports for the request itself (a bad --since) is thrown as it would be in process.
 */
export async function askDaemon<T>(root: string, request: QueryRequest, onSkip?: (why: string) => void): Promise<DaemonReply<T> | null> {
  // An escape hatch for scripts and for comparing answers: always answer in this process.
  if (process.env[NO_DAEMON_ENV] === '1') {
    onSkip?.(`${NO_DAEMON_ENV}=1: not asking the daemon`);
    return null;
  }
  const file = socketPath(root);
  const problem = untrustedSocket(file);
  if (problem !== null) {
    onSkip?.(problem === 'no socket' ? 'no daemon socket' : `not using the daemon socket: ${problem}`);
    return null;
  }
  const answer = await exchange(file, `${JSON.stringify(request)}\n`).catch((error: unknown) => {
    onSkip?.(`the daemon did not answer: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  });
  if (answer === null) return null;
  if (answer.ok) return { value: answer.value as T };
  if (answer.error.code === QUERY_FAILED) {
    onSkip?.(`the daemon could not answer: ${answer.error.message}`);
    return null;
  }
  throw new VaultkeeperError(answer.error.code, answer.error.message, { exitCode: answer.error.exitCode, ...(answer.error.hint === null ? {} : { hint: answer.error.hint }) });
}

async function exchange(file: string, line: string): Promise<QueryAnswer> {
  // Loaded here, when a daemon's socket is found: a search answered in process never loads node:net (stdio.ts).
  const { connect } = await import('node:net');
  return new Promise((resolve, reject) => {
    const socket = connect(file);
    let body = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`));
    }, ANSWER_TIMEOUT_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (body += chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('end', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(body) as QueryAnswer);
      } catch {
        reject(new Error('an unreadable answer'));
      }
    });
    socket.write(line);
  });
}
