/** Doctor checks of the search index: drift between files and rows, and an embedder that no longer matches. */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../core/errors.js';
import { manifestRowCount, readManifestSummary, MANIFEST_FILE } from '../indexer/manifest.js';
import type { Check, Problem } from './problem.js';

const problem = (code: string, message: string, file: string | null = null): Problem => ({ code, path: file, line: null, message });

/** The embedder id the index was built with names the configured embedder (e.g. "hash-v1:256" for hash). */
export function embedderMatches(built: string, configured: string): boolean {
  return configured === 'none' ? built === 'none' : built === configured || built.startsWith(`${configured}:`) || built.startsWith(`${configured}-`);
}

export const checkIndex: Check = async ({ root, config }) => {
  const manifest = await readManifestSummary(root);
  if (manifest === null) return []; // never indexed: the first search or reindex builds it
  const problems: Problem[] = [];
  // Lag that the next search repairs by itself (it refreshes the index first) is said, not counted as an error.
  if (manifest.dirty) problems.push({ ...problem('INDEX_DRIFT', 'an indexing run was interrupted; the next search or reindex rebuilds what it left', MANIFEST_FILE), severity: 'warning' });
  if (config !== null && !embedderMatches(manifest.embedder, config.index.embedder)) {
    problems.push(
      problem('EMBEDDER_MISMATCH', `the index was built with ${manifest.embedder} but config says ${config.index.embedder} (a fallback, or a changed setting); \`vaultkeeper reindex\` rebuilds it`),
    );
  }
  const { vaultFiles } = await import('../indexer/reindex.js');
  const files = await vaultFiles(root);
  let stale = 0;
  for (const rel of files) {
    const entry = manifest.files[rel];
    const info = await stat(path.join(root, rel)).catch(() => null);
    if (entry === undefined || info === null || entry.size !== info.size || entry.mtimeMs !== info.mtimeMs) stale++;
  }
  const gone = Object.keys(manifest.files).filter((rel) => !files.includes(rel)).length;
  if (stale + gone > 0) {
    problems.push({
      ...problem('INDEX_DRIFT', `${stale} files changed and ${gone} removed since the last reindex; nothing to do: the next search indexes them (so do the watcher, the daemon and \`vaultkeeper reindex\`)`),
      severity: 'info',
    });
  }
  try {
    const { IndexStore } = await import('../indexer/store.js');
    const { indexUri } = await import('../indexer/reindex.js');
    const { contextFor } = await import('../vault/context.js');
    if (config !== null) {
      const store = await IndexStore.open(indexUri(contextFor(root, config)), manifest.dimensions);
      try {
        const rows = await store.count();
        const expected = manifestRowCount(manifest);
        if (rows !== expected) problems.push(problem('INDEX_DRIFT', `the index holds ${rows} rows where its manifest lists ${expected}; \`vaultkeeper reindex\` rebuilds it`));
      } finally {
        store.close();
      }
    }
  } catch (error) {
    problems.push(problem('INDEX_CORRUPT', `the index cannot be read (${errorMessage(error).split('\n')[0]}); \`vaultkeeper reindex --clear\` rebuilds it`));
  }
  return problems;
};
