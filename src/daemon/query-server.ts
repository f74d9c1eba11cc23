/**
 * The daemon's query socket: quick read commands (search, status) sent by the CLI are answered by the
 * warm process, so a search costs no module loading and no freshness pass. One JSON request a
 * connection, one JSON answer back; errors travel as values so the CLI reports them as it would in process.
 */
import { chmod, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import { mkdirConfined } from '../vault/confined-write.js';
import { QUERY_FAILED, SOCKET_DIR, socketPath, untrustedSocket, type QueryAnswer, type QueryRequest } from './query-protocol.js';

export type QueryHandler = (request: QueryRequest) => Promise<unknown>;

export interface QueryServer {
  readonly path: string;
  close(): Promise<void>;
}

/** A request larger than this is not a query. */
const MAX_REQUEST_BYTES = 64 * 1024;

/** Listens on `.vaultkeeper/run/daemon.sock` (folder 0700, socket 0600); a socket left by a crash is replaced. */
export async function serveQueries(root: string, handle: QueryHandler): Promise<QueryServer> {
  // Confined: a linked run/ folder is refused, so chmod and rm below never reach outside the vault.
  const dir = await mkdirConfined(root, SOCKET_DIR, 0o700);
  const file = path.join(dir, path.basename(socketPath(root)));
  await chmod(dir, 0o700);
  // The caller holds the daemon lock, so a socket here is a crashed daemon's: nobody answers it.
  await rm(file, { force: true });
  const server = createServer((socket) => answer(socket, handle));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => {
      server.off('error', reject);
      resolve();
    });
  });
  await chmod(file, 0o600);
  const problem = untrustedSocket(file);
  if (problem !== null) {
    await closeServer(server, file);
    throw new VaultkeeperError('VK_SOCKET', `the query socket cannot be made private: ${problem}`, { hint: `check the owner and mode of ${path.dirname(file)}` });
  }
  return { path: file, close: () => closeServer(server, file) };
}

async function closeServer(server: Server, file: string): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(file, { force: true });
}

function answer(socket: Socket, handle: QueryHandler): void {
  socket.on('error', () => undefined); // a client that gave up is not the daemon's problem
  let body = '';
  socket.setEncoding('utf8');
  const onData = (chunk: string): void => {
    body += chunk;
    if (body.length > MAX_REQUEST_BYTES) socket.destroy();
    else if (body.includes('\n')) {
      socket.off('data', onData);
      void reply(body.slice(0, body.indexOf('\n')), handle).then((text) => socket.end(`${text}\n`));
    }
  };
  socket.on('data', onData);
}

async function reply(line: string, handle: QueryHandler): Promise<string> {
  let out: QueryAnswer;
  try {
    out = { ok: true, value: await handle(JSON.parse(line) as QueryRequest) };
  } catch (error) {
    // A VaultkeeperError is the answer (the CLI reports it as in process); anything else sends the CLI to search in process.
    out = error instanceof VaultkeeperError
      ? { ok: false, error: { code: error.code, message: error.message, hint: error.hint ?? null, exitCode: error.exitCode } }
      : { ok: false, error: { code: QUERY_FAILED, message: errorMessage(error).split('\n')[0]!, hint: null, exitCode: 1 } };
  }
  return JSON.stringify(out);
}
