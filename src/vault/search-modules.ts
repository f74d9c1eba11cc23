/**
 * What a Vault's search uses (vault.ts imports this lazily, once): one module, so that in the CLI bundle a search
 * loads one file for it instead of six one-line re-exports of the search chunk (docs/benchmarks.md).
 */
export { VaultkeeperError } from '../core/errors.js';
export { loadEmbedder } from '../embed/load.js';
export { unchangedIndex, WarmCheck } from '../indexer/fresh.js';
export { indexUri, isRemote, recordedUri } from '../indexer/location.js';
export { NewestKeyedFiles } from '../indexer/newest-keyed-file.js';
export { isOutage, withOutageRetries } from '../indexer/outage.js';
export { recordSearch, search, validateSearch } from '../indexer/search.js';
export { IndexStore, lanceMessage } from '../indexer/store.js';
