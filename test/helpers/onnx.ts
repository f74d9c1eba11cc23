/**
 * A tiny static-embedding model folder, written from scratch so the transformers embedder's real
 * loading code runs without a download: an ONNX graph with one Gather node (input_ids → rows of an
 * embedding table, output last_hidden_state), a WordPiece tokenizer.json, tokenizer_config.json and
 * config.json, laid out as transformers.js expects (onnx/model.onnx is the fp32 file).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

// A minimal protobuf writer: enough wire format (varint and length-delimited fields) for onnx.proto.
type Field = readonly [number, 'varint', number] | readonly [number, 'bytes', Uint8Array | string];

function varint(value: number): number[] {
  const out: number[] = [];
  let v = BigInt(value);
  if (v < 0n) v += 1n << 64n; // int64 negatives take ten bytes, as protobuf encodes them
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}

function message(fields: readonly Field[]): Uint8Array {
  const parts: number[] = [];
  for (const [num, kind, value] of fields) {
    if (kind === 'varint') {
      parts.push(...varint((num << 3) | 0), ...varint(value));
    } else {
      const bytes = typeof value === 'string' ? new TextEncoder().encode(value) : value;
      parts.push(...varint((num << 3) | 2), ...varint(bytes.length));
      for (const b of bytes) parts.push(b);
    }
  }
  return Uint8Array.from(parts);
}

const FLOAT = 1;
const INT64 = 7;

// onnx.proto field numbers: ValueInfoProto{name=1,type=2}, TypeProto{tensor_type=1},
// TypeProto.Tensor{elem_type=1,shape=2}, TensorShapeProto{dim=1}, Dimension{dim_value=1,dim_param=2}.
function valueInfo(name: string, elemType: number, dims: readonly (string | number)[]): Uint8Array {
  const shape = message(dims.map((d) => [1, 'bytes', message([typeof d === 'number' ? [1, 'varint', d] : [2, 'bytes', d]])] as const));
  const tensorType = message([
    [1, 'varint', elemType],
    [2, 'bytes', shape],
  ]);
  return message([
    [1, 'bytes', name],
    [2, 'bytes', message([[1, 'bytes', tensorType]])],
  ]);
}

/** The bytes of an ONNX model mapping input_ids [batch, seq] to table rows [batch, seq, dim]. */
export function gatherModel(table: readonly (readonly number[])[]): Uint8Array {
  const rows = table.length;
  const dim = table[0]?.length ?? 0;
  const data = new Float32Array(table.flat());
  // TensorProto{dims=1,data_type=2,name=8,raw_data=9}; raw_data is little-endian.
  const initializer = message([
    [1, 'varint', rows],
    [1, 'varint', dim],
    [2, 'varint', FLOAT],
    [8, 'bytes', 'embeddings'],
    [9, 'bytes', new Uint8Array(data.buffer)],
  ]);
  // NodeProto{input=1,output=2,name=3,op_type=4}; Gather's axis defaults to 0.
  const node = message([
    [1, 'bytes', 'embeddings'],
    [1, 'bytes', 'input_ids'],
    [2, 'bytes', 'last_hidden_state'],
    [3, 'bytes', 'gather'],
    [4, 'bytes', 'Gather'],
  ]);
  // GraphProto{node=1,name=2,initializer=5,input=11,output=12}. attention_mask is declared (real
  // encoders take it) but unused: the pipeline's mean pooling applies the mask itself.
  const graph = message([
    [1, 'bytes', node],
    [2, 'bytes', 'static-embeddings'],
    [5, 'bytes', initializer],
    [11, 'bytes', valueInfo('input_ids', INT64, ['batch', 'sequence'])],
    [11, 'bytes', valueInfo('attention_mask', INT64, ['batch', 'sequence'])],
    [12, 'bytes', valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', dim])],
  ]);
  // ModelProto{ir_version=1,producer_name=2,graph=7,opset_import=8}; OperatorSetIdProto{domain=1,version=2}.
  return message([
    [1, 'varint', 8],
    [2, 'bytes', 'vaultkeeper-test'],
    [7, 'bytes', graph],
    [8, 'bytes', message([[1, 'bytes', ''], [2, 'varint', 13]])],
  ]);
}

export interface StaticModel {
  /** Token → row of the embedding table (the row index is the token id). */
  readonly vocab: readonly string[];
  readonly table: readonly (readonly number[])[];
}

/** A deterministic table: the special tokens first, then `words`, `dim` floats a row. */
export function staticModel(words: readonly string[], dim = 8): StaticModel {
  const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ...words];
  const table = vocab.map((_, row) => Array.from({ length: dim }, (_, col) => Math.sin(row * 12.9898 + col * 78.233) * 0.5 + (row === col ? 1 : 0)));
  return { vocab, table };
}

function tokenizerJson(vocab: readonly string[]): unknown {
  const id = (token: string): number => vocab.indexOf(token);
  const special = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: special.map((content) => ({ id: id(content), content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [id('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [id('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((token, i) => [token, i])),
    },
  };
}

/** Writes the model folder (config.json, tokenizer files, onnx/model.onnx) under `dir`. */
export async function writeStaticModel(dir: string, model: StaticModel): Promise<void> {
  const dim = model.table[0]?.length ?? 0;
  await mkdir(path.join(dir, 'onnx'), { recursive: true });
  const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
  await writeFile(
    path.join(dir, 'config.json'),
    json({ model_type: 'bert', architectures: ['BertModel'], hidden_size: dim, vocab_size: model.vocab.length, max_position_embeddings: 512 }),
  );
  await writeFile(
    path.join(dir, 'tokenizer_config.json'),
    json({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: 512,
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      mask_token: '[MASK]',
    }),
  );
  await writeFile(path.join(dir, 'tokenizer.json'), json(tokenizerJson(model.vocab)));
  await writeFile(path.join(dir, 'onnx', 'model.onnx'), gatherModel(model.table));
}

/** The expected embedding: the L2-normalized mean of the rows of `tokens` (ids, [CLS]/[SEP] included). */
export function expectedEmbedding(model: StaticModel, tokens: readonly string[]): number[] {
  const dim = model.table[0]?.length ?? 0;
  const sum = new Array<number>(dim).fill(0);
  for (const token of tokens) {
    const row = model.table[model.vocab.indexOf(token)]!;
    for (let i = 0; i < dim; i++) sum[i]! += row[i]! / tokens.length;
  }
  const norm = Math.hypot(...sum);
  return sum.map((v) => v / norm);
}
