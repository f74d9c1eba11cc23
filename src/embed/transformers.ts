/**
 * An ONNX feature-extraction model run locally through transformers.js (mean pooling, normalized).
 * It only ever reads files already on disk: the folder named by `index.transformers.path`, or the
 * model's folder in a local cache. Remote loading is switched off, so a missing model is a clear
 * error naming what to fetch, never a download in the middle of indexing.
 */
import { access, readdir, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { pipeline as Pipeline } from '@huggingface/transformers';
import type { Config } from '../core/config.js';
import { errorMessage, VaultkeeperError } from '../core/errors.js';
import type { Embedder } from './contract.js';
import { isModuleNotFound, missingPackages } from './optional.js';

export type TransformersSettings = Config['index']['transformers'];

// Texts are sorted by length before batching, so 32 a batch pads little.
const BATCH_SIZE = 32;
const REQUIRED = ['config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;
// Where transformers.js keeps model weights, by precedence: fp32 in onnx/ (its default layout),
// fp32 at the top of the folder (plain exports), then the 8-bit quantized file.
const WEIGHTS = [
  { file: 'onnx/model.onnx', subfolder: 'onnx', dtype: 'fp32' },
  { file: 'model.onnx', subfolder: '', dtype: 'fp32' },
  { file: 'onnx/model_quantized.onnx', subfolder: 'onnx', dtype: 'q8' },
] as const;

interface ModelFolder {
  readonly dir: string;
  /** The folder exists (it may still lack files). */
  readonly found: boolean;
  readonly missing: readonly string[];
  readonly weights: (typeof WEIGHTS)[number] | undefined;
}

export async function createTransformersEmbedder(settings: TransformersSettings, options: { root: string; env: NodeJS.ProcessEnv }): Promise<Embedder> {
  const transformers = await import('@huggingface/transformers').catch((error: unknown) => {
    throw isModuleNotFound(error) ? missingPackages('transformers', error) : error;
  });
  const candidates = settings.path === null ? await cacheFolders(settings, options) : [path.resolve(options.root, settings.path)];
  const folders = await Promise.all(candidates.map(inspect));
  const folder = folders.find((f) => f.missing.length === 0) ?? folders.find((f) => f.found);
  if (folder?.weights === undefined || folder.missing.length > 0) throw missingModel(settings, candidates, folder);

  const { pipeline, env, LogLevel } = transformers;
  // transformers.js keeps its settings on one shared object; these hold for every load in the process.
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.logLevel = LogLevel.ERROR;
  let extractor: Awaited<ReturnType<typeof loadPipeline>>;
  try {
    extractor = await loadPipeline(pipeline, folder.dir, folder.weights);
  } catch (error) {
    throw new VaultkeeperError('VK_EMBED_MODEL_LOAD', `could not load the transformers model in ${folder.dir}: ${errorMessage(error)}`, {
      hint: `check that the folder holds an ONNX feature-extraction model (${REQUIRED.join(', ')}, ${folder.weights.file})`,
      cause: error,
    });
  }

  const embedBatch = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const output = await extractor([...texts], { pooling: 'mean', normalize: true });
    const [rows, dims] = output.dims as [number, number];
    if (rows !== texts.length) throw new VaultkeeperError('VK_EMBED_FAILED', `the transformers model returned ${rows} vectors for ${texts.length} texts`);
    const data = output.data instanceof Float32Array ? output.data : Float32Array.from(output.data as ArrayLike<number>);
    return Array.from({ length: rows }, (_, i) => data.slice(i * dims, (i + 1) * dims));
  };
  const [probe] = await embedBatch(['dimension probe']);
  const suffix = folder.weights.dtype === 'fp32' ? '' : `:${folder.weights.dtype}`;
  return {
    model: `transformers:${settings.model}${suffix}`,
    dimensions: probe!.length,
    async embed(texts) {
      const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
      const vectors = new Array<Float32Array>(texts.length);
      for (let start = 0; start < order.length; start += BATCH_SIZE) {
        const ids = order.slice(start, start + BATCH_SIZE);
        const batch = await embedBatch(ids.map((i) => texts[i]!));
        ids.forEach((id, j) => (vectors[id] = batch[j]!));
      }
      return vectors;
    },
  };
}

function loadPipeline(pipeline: typeof Pipeline, dir: string, weights: (typeof WEIGHTS)[number]) {
  // An absolute folder is not a hub id, so transformers.js reads it as is and never consults the hub.
  return pipeline('feature-extraction', dir, { dtype: weights.dtype, device: 'cpu', local_files_only: true, subfolder: weights.subfolder });
}

/** The model's folder in each local cache, most specific first: cache_dir, transformers.js's own, the hub's. */
async function cacheFolders(settings: TransformersSettings, options: { root: string; env: NodeJS.ProcessEnv }): Promise<string[]> {
  const parts = settings.model.split('/');
  const folders: string[] = [];
  if (settings.cache_dir !== null) folders.push(path.resolve(options.root, settings.cache_dir, ...parts));
  folders.push(path.join(libraryCacheDir(), ...parts));
  folders.push(await hubSnapshot(settings.model, options.env));
  return folders;
}

/** transformers.js caches downloads in `.cache/` inside its own package folder. */
function libraryCacheDir(): string {
  // require's resolution: import.meta.resolve does not survive the CommonJS CLI bundle; both entries sit in dist/.
  const entry = createRequire(import.meta.url).resolve('@huggingface/transformers');
  return path.join(path.dirname(path.dirname(entry)), '.cache');
}

/** `<hub cache>/models--org--name/snapshots/<revision>` as huggingface_hub lays it out: the one refs/main names, else the only one. */
async function hubSnapshot(model: string, env: NodeJS.ProcessEnv): Promise<string> {
  const home = env.HF_HOME ?? path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'huggingface');
  const repo = path.join(env.HF_HUB_CACHE ?? path.join(home, 'hub'), `models--${model.replaceAll('/', '--')}`);
  const main = await readFile(path.join(repo, 'refs', 'main'), 'utf8').then(
    (text) => text.trim(),
    () => undefined,
  );
  if (main !== undefined) return path.join(repo, 'snapshots', main);
  const snapshots = await readdir(path.join(repo, 'snapshots')).catch(() => [] as string[]);
  return path.join(repo, 'snapshots', snapshots.length === 1 ? snapshots[0]! : 'main');
}

async function inspect(dir: string): Promise<ModelFolder> {
  const found = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  const missing: string[] = [];
  for (const file of REQUIRED) if (!(await exists(path.join(dir, file)))) missing.push(file);
  let weights: ModelFolder['weights'];
  for (const option of WEIGHTS) {
    if (await exists(path.join(dir, option.file))) {
      weights = option;
      break;
    }
  }
  if (weights === undefined) missing.push('onnx/model.onnx');
  return { dir, found, missing, weights };
}

function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

function missingModel(settings: TransformersSettings, candidates: readonly string[], partial: ModelFolder | undefined): VaultkeeperError {
  const howToGet =
    `download ${REQUIRED.join(', ')} and onnx/model.onnx from https://huggingface.co/${settings.model} ` +
    '(or git clone that repository) into a folder and set index.transformers.path to it';
  if (partial !== undefined) {
    return new VaultkeeperError('VK_EMBED_MODEL_MISSING', `transformers model "${settings.model}" is incomplete in ${partial.dir}: missing ${partial.missing.join(', ')}`, {
      hint: howToGet,
    });
  }
  const where = settings.path === null ? `in the local caches (${candidates.join(', ')})` : `at ${candidates[0]}`;
  return new VaultkeeperError('VK_EMBED_MODEL_MISSING', `transformers model "${settings.model}" is not on this machine: nothing found ${where}, and models are never downloaded`, {
    hint: `${howToGet}; or choose another index.embedder, such as use-lite`,
  });
}
