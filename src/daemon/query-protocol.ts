/**
 * The daemon's query socket, shared by the daemon and the CLI: where it is, when to trust it, what
 * travels over it. It lives in a private folder of `.vaultkeeper/`; only a socket owned by this user,
 * in a folder only this user can enter, is trusted: anything else could be another user's process
 * answering for the vault.
 */
import { lstatSync, type Stats } from 'node:fs';
import path from 'node:path';

export const SOCKET_DIR = '.vaultkeeper/run';
export const SOCKET_FILE = `${SOCKET_DIR}/daemon.sock`;

export function socketPath(root: string): string {
  return path.join(root, SOCKET_FILE);
}

/** Null when the socket at `file` may be trusted, else why not. */
export function untrustedSocket(file: string): string | null {
  const uid = process.getuid?.();
  const check = (stats: Stats, what: string, kind: 'dir' | 'socket'): string | null => {
    if (kind === 'dir' ? !stats.isDirectory() : !stats.isSocket()) return `${what} is not a ${kind === 'dir' ? 'folder' : 'socket'}`;
    if (uid !== undefined && stats.uid !== uid) return `${what} belongs to another user (uid ${stats.uid})`;
    if ((stats.mode & 0o077) !== 0) return `${what} is open to other users (mode ${(stats.mode & 0o777).toString(8)})`;
    return null;
  };
  try {
    return check(lstatSync(path.dirname(file)), path.dirname(file), 'dir') ?? check(lstatSync(file), file, 'socket');
  } catch {
    return 'no socket';
  }
}

export type QueryRequest = { op: 'search'; query: string; options: Record<string, unknown> } | { op: 'status' };

export type QueryAnswer =
  | { ok: true; value: unknown }
  | { ok: false; error: { code: string; message: string; hint: string | null; exitCode: 1 | 2 } };

/** The daemon could not answer (not an error of the request): the CLI answers in process instead. */
export const QUERY_FAILED = 'VK_DAEMON_QUERY';
