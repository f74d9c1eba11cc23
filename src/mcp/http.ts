/**
 * The MCP server over Streamable HTTP at http://HOST:PORT/mcp, for clients that do not spawn processes.
 * Loopback by default. Every request's Host and Origin are checked first (DNS rebinding: a web page
 * whose name resolves to 127.0.0.1 must not reach the memory): Host must name this server, and an
 * Origin, when a browser sends one, must be this server's own or one allowed on the command line.
 * One session per client (the SDK's StreamableHTTPServerTransport), each with its own McpServer over
 * the one shared Vault.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Vault } from '../vault/vault.js';
import { createServer } from './server.js';
import type { Log } from './tools.js';

export const MCP_PATH = '/mcp';
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
}

export interface HttpServing {
  url: string;
  close(): Promise<void>;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

export async function serveHttp(vault: Vault, log: Log, options: HttpOptions = {}): Promise<HttpServing> {
  const host = options.host ?? '127.0.0.1';
  const sessions = new Map<string, StreamableHTTPServerTransport>();
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
    if ((req.url ?? '').split('?')[0] !== MCP_PATH) return reply(res, 404, `not found; the MCP endpoint is ${MCP_PATH}`);

    const sessionId = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (body instanceof Error) return reply(res, 400, body.message);
    if (typeof sessionId === 'string') {
      const transport = sessions.get(sessionId);
      if (transport === undefined) return reply(res, 404, 'unknown or expired session; initialize a new one');
      return transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) return reply(res, 400, 'no session: send an initialize request first, without an Mcp-Session-Id header');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
        log(`http session ${id} opened`);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined && sessions.delete(transport.sessionId)) log(`http session ${transport.sessionId} closed`);
    };
    await createServer(vault, log).connect(transport);
    return transport.handleRequest(req, res, body);
  }

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
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections(); // open SSE streams would hold close() forever
      await closed;
    },
  };
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
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
