/**
 * A scripted OpenAI-compatible /embeddings server on 127.0.0.1 (the network edge is the only fake):
 * deterministic vectors, every request recorded, and switchable failures.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface EmbeddingsRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: { model?: string; input?: string[]; dimensions?: number; encoding_format?: string };
}

export type ServerMode = 'ok' | 'error-500' | 'malformed' | 'shuffled' | 'short';

export interface EmbeddingsServer {
  /** Base URL to configure, e.g. http://127.0.0.1:PORT/v1 */
  readonly baseUrl: string;
  readonly requests: EmbeddingsRequest[];
  mode: ServerMode;
  close(): Promise<void>;
}

/** The vector the server returns for `text` (before the client normalizes it). */
export function serverVector(text: string, dimensions: number): number[] {
  return Array.from({ length: dimensions }, (_, i) => (i === 0 ? text.length + 1 : ((text.charCodeAt(i % Math.max(1, text.length)) || 7) % 13) + i));
}

/** Starts a server closed after the current test. */
export function useEmbeddingsServer(): (dimensions?: number) => Promise<EmbeddingsServer> {
  const started: EmbeddingsServer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => server.close()));
  });
  return async (dimensions = 4) => {
    const server = await startEmbeddingsServer(dimensions);
    started.push(server);
    return server;
  };
}

export async function startEmbeddingsServer(defaultDimensions = 4): Promise<EmbeddingsServer> {
  const requests: EmbeddingsRequest[] = [];
  const state = { mode: 'ok' as ServerMode };
  const http = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as EmbeddingsRequest['body'];
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      const send = (status: number, payload: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') return send(404, { error: { message: `no route ${req.url}` } });
      if (state.mode === 'error-500') return send(500, { error: { message: 'the model crashed', type: 'server_error' } });
      if (state.mode === 'malformed') return send(200, { object: 'list', data: 'not a list' });
      const inputs = body.input ?? [];
      const dims = body.dimensions ?? defaultDimensions;
      let data = inputs.map((text, index) => ({ object: 'embedding', index, embedding: serverVector(text, dims) }));
      if (state.mode === 'shuffled') data = data.reverse();
      if (state.mode === 'short') data = data.slice(1);
      send(200, { object: 'list', model: body.model, data, usage: { prompt_tokens: 0, total_tokens: 0 } });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get mode() {
      return state.mode;
    },
    set mode(mode: ServerMode) {
      state.mode = mode;
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
