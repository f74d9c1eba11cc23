/**
 * The built-in embedder: deterministic feature hashing, no model. Words (NFKC, lower case, light
 * stemming, common English stop words dropped) and adjacent word pairs are hashed into `dimensions`
 * buckets with a hashed sign, so collisions cancel rather than pile up. It only matches shared words,
 * but it is instant, offline and identical on every machine, which makes it the safe default.
 */
import type { Embedder } from './contract.js';
import { normalizeInPlace } from './vector.js';
import { fnv1a } from '../text/fnv.js';

/** Bump when tokenizing, stemming or hashing changes: the index and the cache key on it. */
const VERSION = 'hash-v1';
const BIGRAM_WEIGHT = 0.5;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const STOP_WORDS = new Set(
  'a an and are as at be but by for from has have i in is it its me my of on or our so than that the their them then there these they this to was we were what when which who will with you your'.split(' '),
);
// A text with no words still gets a unit vector (zero vectors break cosine distance).
const EMPTY_FEATURE = '\u0000empty';

export function createHashEmbedder(dimensions = 256): Embedder {
  if (!Number.isInteger(dimensions) || dimensions < 1) throw new RangeError(`hash dimensions must be a positive integer, got ${dimensions}`);
  return {
    model: `${VERSION}:${dimensions}`,
    dimensions,
    embed: (texts) => Promise.resolve(texts.map((text) => hashEmbed(text, dimensions))),
  };
}

function hashEmbed(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  const words = tokenize(text);
  if (words.length === 0) words.push(EMPTY_FEATURE);
  let previous: number | undefined;
  for (const word of words) {
    const h = hashString(word);
    add(vector, h, 1);
    if (previous !== undefined) add(vector, mix(Math.imul(previous, 0x9e3779b1) ^ h), BIGRAM_WEIGHT);
    previous = h;
  }
  return normalizeInPlace(vector);
}

function add(vector: Float32Array, hash: number, weight: number): void {
  // Low bits choose the bucket, the top bit the sign.
  vector[(hash >>> 0) % vector.length]! += hash < 0 ? -weight : weight;
}

/** The words of `text` that carry meaning, stemmed; stop words are kept only when nothing else is left. */
function tokenize(text: string): string[] {
  const all = text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
  const kept = all.filter((word) => !STOP_WORDS.has(word));
  return (kept.length > 0 ? kept : all).map(stem);
}

/** Light English suffix stripping, so "dogs" meets "dog" and "puppies" meets "puppy". */
function stem(word: string): string {
  const n = word.length;
  if (n <= 3) return word;
  if (word.endsWith('ies') && n > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ing') && n > 5) return word.slice(0, -3);
  if (word.endsWith('ed') && n > 4) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) return word.slice(0, -1);
  return word;
}

/** FNV-1a over UTF-16 code units, then a murmur3 finalizer to spread the bits. */
function hashString(value: string): number {
  return mix(fnv1a(value));
}

function mix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}
