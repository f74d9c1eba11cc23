/**
 * The read side of the Vault facade, as a structural type: stages the facade imports lazily (the
 * dashboard, the health snapshot) take this instead of importing Vault back, so no import cycle forms.
 */
import type { OpenConflict } from '../dream/generate.js';
import type { SearchOptions, SearchResult } from '../indexer/search.js';
import type { VaultContext } from './context.js';
import type { VaultStatus } from './status.js';

export interface VaultReader {
  readonly root: string;
  readonly ctx: VaultContext;
  status(now?: Date): Promise<VaultStatus>;
  conflicts(): Promise<OpenConflict[]>;
  search(query: string, options?: SearchOptions): Promise<SearchResult[]>;
}
