/**
 * The MCP server over Streamable HTTP at http://HOST:PORT/mcp, for clients that do not spawn processes.
 * Loopback by default. Every request's Host and Origin are checked first (DNS rebinding: a web page
 * whose name resolves to 127.0.0.1 must not reach the memory): Host must name this server, and an
 * Origin, when a browser sends one, must be this server's own or one allowed on the command line.
 * Then the bearer token (token.ts), on every request but GET /health. One session per client (the SDK's
 * StreamableHTTPServerTransport), each with its own McpServer over the shared vaults; sessions idle past
 * `idleMs` are closed, and past `maxSessions` a new one is refused with a clear error (issue 30: each holds
 * ~50 KB, and a client that never closes would otherwise grow the server without bound).
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createServer } from './server.js';
import { tokenMatches } from './token.js';
import type { Log, ServedFacts } from './tools.js';
import type { ServedVaults } from './vaults.js';

export const MCP_PATH = '/mcp';
export const HEALTH_PATH = '/health';
export const DEFAULT_MAX_SESSIONS = 100;
export const DEFAULT_IDLE_MS = 30 * 60_000;
export const DEFAULT_HTTP_PORT = 8765;
/** A request body larger than this is refused (a remember of 100 long facts fits well within it). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface HttpOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default DEFAULT_HTTP_PORT; 0 picks a free port. */
  port?: number;
  /** Origins allowed besides the server's own, e.g. "http://localhost:5173". */
  allowedOrigins?: readonly string[];
  /** The bearer token every request but /health must carry. */
  token: string;
  /** Most open sessions (default DEFAULT_MAX_SESSIONS). */
  maxSessions?: number;
  /** A session with no request for this long is closed (default DEFAULT_IDLE_MS). */
  idleMs?: number;
}

export interface HttpServing {
  url: string;
  close(): Promise<void>;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

interface Session {
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
}

export async function serveHttp(vaults: ServedVaults, log: Log, facts: ServedFacts, options: HttpOptions): Promise<HttpServing> {
  const host = options.host ?? '127.0.0.1';
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const sessions = new Map<string, Session>();
  let opening = 0; // initializes in flight: counted against the cap before their session id exists
  let port = 0;
  const allowed = (): { hosts: Set<string>; origins: Set<string> } => {
    const names = new Set([host.includes(':') && !host.startsWith('[') ? `[${host}]` : host, ...(isLoopback(host) ? ['127.0.0.1', 'localhost', '[::1]'] : [])]);
    const hosts = new Set([...names].map((name) => `${name}:${port}`));
    return { hosts, origins: new Set([...[...hosts].map((h) => `http://${h}`), ...(options.allowedOrigins ?? [])]) };
  };

  const http: Server = createHttpServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      log(`http request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) reply(res, 500, 'internal error');
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { hosts, origins } = allowed();
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    if (!hosts.has(hostHeader)) return reply(res, 403, `Host '${hostHeader}' is not this server; use ${[...hosts][0]}`);
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin.toLowerCase())) return reply(res, 403, `Origin '${origin}' is not allowed; start the server with --allow-origin ${origin} to allow it`);
    const route = (req.url ?? '').split('?')[0];
    // A liveness probe needs no token and says nothing about the memory.
    if (route === HEALTH_PATH && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, sessions: sessions.size, max_sessions: maxSessions }));
      return;
    }
    if (!tokenMatches(options.token, req.headers.authorization)) {
      return reply(res, 401, 'missing or wrong bearer token: send the header "Authorization: Bearer <token>" (docs/integrations.md)', { 'www-authenticate': 'Bearer' });
    }
    if (route !== MCP_PATH) return reply(res, 404, `not found; the MCP endpoint is ${MCP_PATH}`);

    const sessionId = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (body instanceof Error) return reply(res, 400, body.message);
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (session === undefined) return reply(res, 404, 'unknown or expired session; initialize a new one');
      session.lastSeen = Date.now();
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) return reply(res, 400, 'no session: send an initialize request first, without an Mcp-Session-Id header');
    if (sessions.size + opening >= maxSessions) {
      return reply(
        res,
        503,
        `too many sessions: ${maxSessions} are open, the most this server keeps; close one (DELETE ${MCP_PATH} with its Mcp-Session-Id), wait for one to idle out (after ${Math.round(idleMs / 1000)} s), or restart the server with a higher --max-sessions`,
        { 'retry-after': String(Math.max(1, Math.round(idleMs / 1000))) },
      );
    }
    opening++;
    try {
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, lastSeen: Date.now() });
          log(`http session ${id} opened (${sessions.size} open)`);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId !== undefined && sessions.delete(transport.sessionId)) log(`http session ${transport.sessionId} closed`);
      };
      await createServer(vaults, log, facts).connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      opening--;
    }
  }

  // Idle sessions are closed on a timer that never keeps the process alive on its own.
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) {
        if (now - session.lastSeen < idleMs) continue;
        sessions.delete(id);
        log(`http session ${id} expired after ${Math.round((now - session.lastSeen) / 1000)} s idle`);
        void session.transport.close().catch(() => undefined);
      }
    },
    Math.max(50, Math.min(idleMs / 4, 60_000)),
  );
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? DEFAULT_HTTP_PORT, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  port = (http.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}${MCP_PATH}`;
  return {
    url,
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections(); // open SSE streams would hold close() forever
      await closed;
    },
  };
}

function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return new Error(`the request body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return new Error('the request body is not JSON');
  }
}
