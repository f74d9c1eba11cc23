/**
 * The embedder contract and the one place that turns `index` settings into an embedder. Each
 * embedder lives in its own module and is imported only when chosen, so quick commands never load
 * transformers.js, tfjs or the OpenAI client.
 */
import type { Config } from '../core/config.js';
import { errorMessage, VaultkeeperError } from '../core/errors.js';
import type { Embedder } from './contract.js';

export type { Embedder } from './contract.js';

export type EmbedderSettings = Config['index'];

export interface EmbedderOptions {
  /** The vault root: relative model folders and cache folders resolve against it. */
  root: string;
  /** Where API keys are read from (they never live in the config). */
  env: NodeJS.ProcessEnv;
  /** Told when the configured embedder cannot be used and the fallback takes over. */
  onWarning?: (message: string) => void;
}

/**
 * The configured embedder, or null for full-text only. When a model cannot be loaded (a transformers
 * model missing offline, an unreachable endpoint) it warns and returns `index.fallback` instead of
 * failing: search must keep working without vectors from the model.
 */
export async function createEmbedder(settings: EmbedderSettings, options: EmbedderOptions): Promise<Embedder | null> {
  try {
    return await load(settings, options);
  } catch (error) {
    if (settings.embedder === 'hash') throw error;
    const hint = error instanceof VaultkeeperError && error.hint !== undefined ? ` To fix: ${error.hint}.` : '';
    const instead = settings.fallback === 'none' ? 'full-text search only' : 'the "hash" embedder';
    options.onWarning?.(`embedder "${settings.embedder}" is unavailable: ${errorMessage(error)}.${hint} Using ${instead} meanwhile (index.fallback).`);
    return fallback(settings);
  }
}

async function load(settings: EmbedderSettings, options: EmbedderOptions): Promise<Embedder | null> {
  switch (settings.embedder) {
    case 'none':
      return null;
    case 'hash': {
      const { createHashEmbedder } = await import('./hash.js');
      return createHashEmbedder(settings.hash.dimensions);
    }
    case 'use-lite': {
      const { createUseLiteEmbedder } = await import('./use-lite.js');
      return createUseLiteEmbedder();
    }
    case 'transformers': {
      const { createTransformersEmbedder } = await import('./transformers.js');
      return createTransformersEmbedder(settings.transformers, { root: options.root, env: options.env });
    }
    case 'openai': {
      const { createOpenAIEmbedder } = await import('./openai.js');
      return createOpenAIEmbedder(settings.openai, options.env);
    }
  }
}

async function fallback(settings: EmbedderSettings): Promise<Embedder | null> {
  if (settings.fallback === 'none') return null;
  const { createHashEmbedder } = await import('./hash.js');
  return createHashEmbedder(settings.hash.dimensions);
}
