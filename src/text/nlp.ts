/**
 * compromise (the offline NLP library), loaded one way for every module that reads English: its CommonJS
 * build, synchronously, on first use. Two builds loaded side by side (ESM in one module, CommonJS in
 * another) would hold two copies of its lexicon and model in memory.
 */
import { createRequire } from 'node:module';

let loaded: unknown;

/** The library's entry function, typed by the caller to the parts it uses. */
export function compromise<T>(): T {
  loaded ??= createRequire(import.meta.url)('compromise');
  return loaded as T;
}
