/**
 * The openai embedder against a scripted OpenAI-compatible server on 127.0.0.1: batching, the key
 * header, the probe for the vector size, and clear errors for failing or malformed responses.
 */
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { createEmbedder, type Embedder } from '../../src/embed/embedder.js';
import { serverVector, useEmbeddingsServer } from '../helpers/embeddings-server.js';
import { rejection } from '../helpers/errors.js';

const startServer = useEmbeddingsServer();

function settings(openai: Record<string, unknown>) {
  return ConfigSchema.parse({ index: { embedder: 'openai', fallback: 'hash', openai } }).index;
}

async function create(openai: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<{ embedder: Embedder | null; warnings: string[] }> {
  const warnings: string[] = [];
  const embedder = await createEmbedder(settings(openai), { root: '/nowhere', env, onWarning: (m) => warnings.push(m) });
  return { embedder, warnings };
}

function unit(values: readonly number[]): number[] {
  const norm = Math.hypot(...values);
  return values.map((v) => v / norm);
}


describe('openai embedder', () => {
  it('sends batches of batch_size with the configured model and dimensions, and returns unit vectors in order', async () => {
    const server = await startServer();
    const { embedder, warnings } = await create({ base_url: server.baseUrl, model: 'nomic-embed-text', dimensions: 4, batch_size: 3 });
    expect(warnings).toEqual([]);
    expect(embedder?.model).toBe('openai:nomic-embed-text:4');
    expect(embedder?.dimensions).toBe(4);
    expect(server.requests).toHaveLength(0); // dimensions configured: no probe

    const texts = ['one', 'two', 'three', 'four', 'five', 'six', 'seven'];
    const vectors = await embedder!.embed(texts);
    expect(server.requests.map((r) => r.body.input)).toEqual([['one', 'two', 'three'], ['four', 'five', 'six'], ['seven']]);
    for (const request of server.requests) {
      expect(request.path).toBe('/v1/embeddings');
      expect(request.body).toMatchObject({ model: 'nomic-embed-text', dimensions: 4, encoding_format: 'float' });
    }
    texts.forEach((text, i) => {
      const expected = unit(serverVector(text, 4));
      vectors[i]!.forEach((v, j) => expect(v).toBeCloseTo(expected[j]!, 6));
    });
  });

  it('measures the vector size with one request when dimensions is not set, and orders data by index', async () => {
    const server = await startServer(6);
    const { embedder } = await create({ base_url: server.baseUrl, model: 'local-model' });
    expect(embedder?.dimensions).toBe(6);
    expect(embedder?.model).toBe('openai:local-model:6');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body.dimensions).toBeUndefined();

    server.mode = 'shuffled';
    const [a, b] = await embedder!.embed(['alpha', 'be']);
    expect(a![0]).toBeCloseTo(unit(serverVector('alpha', 6))[0]!, 6);
    expect(b![0]).toBeCloseTo(unit(serverVector('be', 6))[0]!, 6);
  });

  it('sends the key from the named environment variable, and a placeholder to keyless servers', async () => {
    const server = await startServer();
    const withKey = await create({ base_url: server.baseUrl, api_key_env: 'VK_TEST_EMBED_KEY', dimensions: 4 }, { VK_TEST_EMBED_KEY: 'sk-test-123' });
    await withKey.embedder!.embed(['x']);
    expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer sk-test-123');

    const keyless = await create({ base_url: server.baseUrl, api_key_env: 'VK_TEST_EMBED_KEY', dimensions: 4 }, {});
    await keyless.embedder!.embed(['x']);
    expect(server.requests.at(-1)!.headers.authorization).not.toContain('sk-test-123');
  });

  it('fails with a clear error on a 500, after the client retried', async () => {
    const server = await startServer();
    const { embedder } = await create({ base_url: server.baseUrl, dimensions: 4 });
    server.mode = 'error-500';
    const error = await rejection(embedder!.embed(['x']));
    expect(error.code).toBe('VK_EMBED_REQUEST');
    expect(error.message).toContain(`embedding request to ${server.baseUrl} failed with HTTP 500`);
    expect(error.hint).toContain('try again later');
    expect(server.requests).toHaveLength(3);
  });

  it('fails with a clear error on a malformed body or a wrong count of vectors', async () => {
    const server = await startServer();
    const { embedder } = await create({ base_url: server.baseUrl, dimensions: 4 });
    server.mode = 'malformed';
    const malformed = await rejection(embedder!.embed(['x']));
    expect(malformed.code).toBe('VK_EMBED_RESPONSE');
    expect(malformed.message).toContain('malformed response: no "data" array');

    server.mode = 'short';
    const short = await rejection(embedder!.embed(['x', 'y']));
    expect(short.message).toContain('1 embeddings for 2 inputs');
  });

  it('falls back, with a warning, when the size probe cannot reach the server or no key is set for api.openai.com', async () => {
    const server = await startServer();
    const closedUrl = server.baseUrl;
    await server.close();
    const unreachable = await create({ base_url: closedUrl, timeout_s: 2 });
    expect(unreachable.embedder?.model).toBe('hash-v1:256');
    expect(unreachable.warnings[0]).toContain(`embedding request to ${closedUrl} failed`);
    expect(unreachable.warnings[0]).toContain('is running and reachable');

    const noKey = await create({ api_key_env: 'VK_TEST_UNSET_KEY' }, {});
    expect(noKey.embedder?.model).toBe('hash-v1:256');
    expect(noKey.warnings[0]).toContain('needs an API key in VK_TEST_UNSET_KEY');
  });
});
