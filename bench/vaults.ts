/** Helpers shared by the bench and the eval: choosing a vault's embedder, appending facts as the writer does. */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE } from '#src/core/config.js';
import { withWriteLock } from '#src/core/lock.js';
import { appendBatch, type AppendedFact, type CanonicalFact } from '#src/logs/factlog.js';

const EMBEDDER_LINE = /^(\s+embedder:)[^\n#]*/m;

/** Sets `index.embedder` in the vault's config.yaml (the template has the key). */
export async function setEmbedder(root: string, embedder: string): Promise<void> {
  const file = path.join(root, CONFIG_FILE);
  const text = await readFile(file, 'utf8');
  if (!EMBEDDER_LINE.test(text)) throw new Error(`${file} has no index.embedder key to set`);
  await writeFile(file, text.replace(EMBEDDER_LINE, `$1 ${embedder}`));
}

/** The environment without VAULTKEEPER_* overrides, so each vault's own config decides. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1' };
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('VAULTKEEPER_')) env[key] = value;
  }
  return env;
}

/** Appends one batch through the log writer, under the vault's write lock (no git commit). */
export function appendFacts(root: string, date: string, time: string, source: string, facts: readonly CanonicalFact[]): Promise<AppendedFact[]> {
  return withWriteLock(root, (lock) => appendBatch(lock, date, time, source, facts));
}
