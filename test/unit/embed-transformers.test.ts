/**
 * The transformers embedder, on a model folder the test writes itself (one ONNX Gather node and a
 * WordPiece tokenizer), loaded through the real transformers.js pipeline; and the fallback when the
 * configured model is not on the machine.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { createEmbedder, type EmbedderOptions } from '../../src/embed/embedder.js';
import { expectedEmbedding, staticModel, writeStaticModel } from '../helpers/onnx.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();
const MODEL = staticModel(['dog', 'cat', 'coffee', 'tax', '##s', 'love']);

function settings(index: Record<string, unknown>) {
  return ConfigSchema.parse({ index: { embedder: 'transformers', fallback: 'hash', ...index } }).index;
}

function options(root: string, env: NodeJS.ProcessEnv = {}): EmbedderOptions & { warnings: string[] } {
  const warnings: string[] = [];
  return { root, env, warnings, onWarning: (message) => warnings.push(message) };
}

function expectClose(actual: Float32Array | undefined, expected: readonly number[]): void {
  expect(actual).toBeDefined();
  expect(actual!.length).toBe(expected.length);
  actual!.forEach((value, i) => expect(value).toBeCloseTo(expected[i]!, 5));
}

describe('transformers embedder', () => {
  it('loads a model folder (path relative to the vault) through the real pipeline and mean-pools the table rows', async () => {
    const root = await tempDir();
    await writeStaticModel(path.join(root, 'models', 'tiny'), MODEL);
    const opts = options(root);
    const embedder = await createEmbedder(settings({ transformers: { model: 'test/tiny', path: 'models/tiny' } }), opts);
    expect(opts.warnings).toEqual([]);
    expect(embedder?.model).toBe('transformers:test/tiny');
    expect(embedder?.dimensions).toBe(8);

    const [dog, dogsAndCats, unknown] = await embedder!.embed(['dog', 'Dogs CAT', 'zebra']);
    expectClose(dog, expectedEmbedding(MODEL, ['[CLS]', 'dog', '[SEP]']));
    expectClose(dogsAndCats, expectedEmbedding(MODEL, ['[CLS]', 'dog', '##s', 'cat', '[SEP]']));
    expectClose(unknown, expectedEmbedding(MODEL, ['[CLS]', '[UNK]', '[SEP]']));
  });

  it('keeps input order across batches of mixed lengths (padding is masked out)', async () => {
    const root = await tempDir();
    await writeStaticModel(path.join(root, 'tiny'), MODEL);
    const embedder = (await createEmbedder(settings({ transformers: { path: path.join(root, 'tiny') } }), options(root)))!;
    const words = ['dog', 'cat', 'coffee', 'tax', 'love'];
    const texts = Array.from({ length: 70 }, (_, i) => Array.from({ length: (i % 7) + 1 }, (_, j) => words[(i + j) % words.length]).join(' '));
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(texts.length);
    texts.forEach((text, i) => expectClose(vectors[i], expectedEmbedding(MODEL, ['[CLS]', ...text.split(' '), '[SEP]'])));
  });

  it('finds the model by name in a configured cache folder, or in the Hugging Face hub cache', async () => {
    const root = await tempDir();
    await writeStaticModel(path.join(root, 'cache', 'test', 'tiny'), MODEL);
    const fromCache = await createEmbedder(settings({ transformers: { model: 'test/tiny', cache_dir: 'cache' } }), options(root));
    expect(fromCache?.model).toBe('transformers:test/tiny');

    const hub = path.join(root, 'hub');
    const repo = path.join(hub, 'models--test--tiny-hub');
    await writeStaticModel(path.join(repo, 'snapshots', 'abc123'), MODEL);
    await mkdir(path.join(repo, 'refs'), { recursive: true });
    await writeFile(path.join(repo, 'refs', 'main'), 'abc123\n');
    const opts = options(root, { HF_HUB_CACHE: hub });
    const fromHub = await createEmbedder(settings({ transformers: { model: 'test/tiny-hub' } }), opts);
    expect(opts.warnings).toEqual([]);
    const [dog] = await fromHub!.embed(['dog']);
    expectClose(dog, expectedEmbedding(MODEL, ['[CLS]', 'dog', '[SEP]']));
  });

  it('falls back to hash, with a warning naming the model and how to get it, when the model is not on the machine', async () => {
    const root = await tempDir();
    const opts = options(root, { HF_HUB_CACHE: path.join(root, 'no-hub') });
    const embedder = await createEmbedder(settings({ transformers: { model: 'vaultkeeper-test/not-here' } }), opts);
    expect(embedder?.model).toBe('hash-v1:256');
    expect(opts.warnings).toHaveLength(1);
    const [warning] = opts.warnings;
    expect(warning).toContain('"vaultkeeper-test/not-here"');
    expect(warning).toContain('never downloaded');
    expect(warning).toContain('https://huggingface.co/vaultkeeper-test/not-here');
    expect(warning).toContain('index.transformers.path');
    expect(warning).toContain('"hash" embedder');
  });

  it('names the missing files of an incomplete folder, and honours fallback "none"', async () => {
    const root = await tempDir();
    await writeTree(root, { 'half-model/config.json': '{"model_type":"bert"}\n' });
    const opts = options(root);
    const embedder = await createEmbedder(settings({ fallback: 'none', transformers: { path: 'half-model' } }), opts);
    expect(embedder).toBeNull();
    expect(opts.warnings).toHaveLength(1);
    expect(opts.warnings[0]).toContain(`incomplete in ${path.join(root, 'half-model')}: missing tokenizer.json, tokenizer_config.json, onnx/model.onnx`);
    expect(opts.warnings[0]).toContain('full-text search only');
  });

  it('reports a model file that does not load, and falls back', async () => {
    const root = await tempDir();
    await writeStaticModel(path.join(root, 'broken'), MODEL);
    await writeFile(path.join(root, 'broken', 'onnx', 'model.onnx'), 'this is not an onnx graph');
    const opts = options(root);
    const embedder = await createEmbedder(settings({ transformers: { path: 'broken' } }), opts);
    expect(embedder?.model).toBe('hash-v1:256');
    expect(opts.warnings[0]).toContain(`could not load the transformers model in ${path.join(root, 'broken')}`);
  });
});
