/**
 * Any OpenAI-compatible /embeddings endpoint (OpenAI, Ollama, llama.cpp, vLLM, LM Studio) through the
 * openai SDK. The key is read from the environment variable the config names, never from the config.
 */
import type { Config } from '../core/config.js';
import { errorMessage, VaultkeeperError } from '../core/errors.js';
import type { Embedder } from './contract.js';
import { toUnitVector } from './vector.js';

export type OpenAISettings = Config['index']['openai'];

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
// The SDK refuses to start without a key; keyless local servers ignore whatever is sent.
const PLACEHOLDER_KEY = 'vaultkeeper-no-key';
const MAX_RETRIES = 2;

export async function createOpenAIEmbedder(settings: OpenAISettings, env: NodeJS.ProcessEnv): Promise<Embedder> {
  const key = env[settings.api_key_env];
  const hasKey = key !== undefined && key !== '';
  const baseURL = settings.base_url ?? DEFAULT_BASE_URL;
  if (!hasKey && settings.base_url === null) {
    throw new VaultkeeperError('VK_EMBED_NO_KEY', `the openai embedder needs an API key in ${settings.api_key_env}`, {
      hint: `export ${settings.api_key_env}=…, or set index.openai.base_url to a local OpenAI-compatible server`,
    });
  }
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({
    apiKey: hasKey ? key : PLACEHOLDER_KEY,
    baseURL,
    timeout: settings.timeout_s * 1000,
    maxRetries: MAX_RETRIES,
    logLevel: 'off',
  });

  const request = async (texts: readonly string[], dimensions: number | null): Promise<Float32Array[]> => {
    let response: unknown;
    try {
      response = await client.embeddings.create({
        model: settings.model,
        input: [...texts],
        encoding_format: 'float',
        ...(settings.dimensions === null ? {} : { dimensions: settings.dimensions }),
      });
    } catch (error) {
      throw requestFailed(error, baseURL, settings);
    }
    return parseResponse(response, texts.length, dimensions, baseURL);
  };

  const dimensions = settings.dimensions ?? (await request(['dimension probe'], null))[0]!.length;
  return {
    model: `openai:${settings.model}:${dimensions}`,
    dimensions,
    async embed(texts) {
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += settings.batch_size) {
        vectors.push(...(await request(texts.slice(start, start + settings.batch_size), dimensions)));
      }
      return vectors;
    },
  };
}

/** The vectors of a response, in input order; anything else in the body is a clear error, not a crash later. */
function parseResponse(body: unknown, count: number, dimensions: number | null, baseURL: string): Float32Array[] {
  const malformed = (what: string): VaultkeeperError =>
    new VaultkeeperError('VK_EMBED_RESPONSE', `the embeddings endpoint at ${baseURL} sent a malformed response: ${what}`, {
      hint: 'check that index.openai.base_url points at an OpenAI-compatible API (it usually ends in /v1)',
    });
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw malformed('no "data" array');
  if (data.length !== count) throw malformed(`${data.length} embeddings for ${count} inputs`);
  const vectors = new Array<Float32Array | undefined>(count);
  data.forEach((item: unknown, position) => {
    const { index = position, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || vectors[index] !== undefined) {
      throw malformed(`bad or repeated index ${JSON.stringify(index)}`);
    }
    if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((v) => typeof v === 'number' && Number.isFinite(v))) {
      throw malformed(`embedding ${index} is not a list of numbers`);
    }
    if (dimensions !== null && embedding.length !== dimensions) throw malformed(`embedding ${index} has ${embedding.length} dimensions, expected ${dimensions}`);
    vectors[index] = toUnitVector(embedding as number[]);
  });
  return vectors as Float32Array[];
}

function requestFailed(error: unknown, baseURL: string, settings: OpenAISettings): VaultkeeperError {
  const status = (error as { status?: unknown }).status;
  const prefix = `embedding request to ${baseURL} failed`;
  if (typeof status === 'number') {
    const hint =
      status === 401 || status === 403
        ? `check the API key in ${settings.api_key_env}`
        : status === 404
          ? `check index.openai.model ("${settings.model}") and index.openai.base_url`
          : status === 429 || status >= 500
            ? 'the server is busy or failing; try again later'
            : 'check the index.openai settings';
    return new VaultkeeperError('VK_EMBED_REQUEST', `${prefix} with HTTP ${status}: ${errorMessage(error)}`, { hint, cause: error });
  }
  return new VaultkeeperError('VK_EMBED_REQUEST', `${prefix}: ${errorMessage(error)}`, {
    hint: `check that the server at ${baseURL} is running and reachable (timeout ${settings.timeout_s}s)`,
    cause: error,
  });
}
