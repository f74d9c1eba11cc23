/**
 * What the dream benches share: the generated people corpus in a new vault, remembered a day at a time as
 * an agent would, and offline dreams run until nothing is pending.
 */
import path from 'node:path';
import { listLogDates, readLog } from '#src/logs/factlog.js';
import { initVault } from '#src/vault/init.js';
import { openVault, type Vault } from '#src/vault/vault.js';
import { generatePeopleCorpus, type Corpus, type CorpusFact } from './people-corpus.js';
import { setEmbedder } from './vaults.js';

export interface CorpusVault {
  root: string;
  vault: Vault;
  corpus: Corpus;
  /** The corpus's facts by day, oldest day first. */
  days: Array<[date: string, facts: CorpusFact[]]>;
}

/** A new full-text vault in `base`/corpus, opened, with the seeded corpus generated but not yet remembered. */
export async function openCorpusVault(base: string, env: NodeJS.ProcessEnv): Promise<CorpusVault> {
  const corpus = generatePeopleCorpus({ seed: 20260105, days: 150 });
  const root = path.join(base, 'corpus');
  await initVault(root);
  await setEmbedder(root, 'none');
  const vault = await openVault({ vault: root, env });
  const byDate = new Map<string, CorpusFact[]>();
  for (const f of corpus.facts) byDate.set(f.date, [...(byDate.get(f.date) ?? []), f]);
  return { root, vault, corpus, days: [...byDate].sort(([a], [b]) => a.localeCompare(b)) };
}

/** Remembers one day's facts at noon of that day. */
export async function rememberDay(vault: Vault, date: string, facts: readonly CorpusFact[]): Promise<void> {
  await vault.remember(
    facts.map((f) => ({ text: f.text, category: f.category as never, tags: f.tags })),
    { source: 'bench', now: new Date(`${date}T12:00:00Z`) },
  );
}

export interface DreamRuns {
  runs: number;
  failed: number;
  archived: number;
  ms: number;
}

/** Forced offline dreams a minute apart from `start` until one finds nothing pending (at most `limit`). */
export async function dreamOffline(vault: Vault, start: Date, limit: number): Promise<DreamRuns> {
  const runs: DreamRuns = { runs: 0, failed: 0, archived: 0, ms: 0 };
  const started = performance.now();
  for (let i = 0; i < limit; i++) {
    const result = await vault.dream({ force: true, offline: true, now: new Date(start.getTime() + i * 60_000) });
    if (result.status === 'noop') break;
    runs.runs++;
    if (result.status !== 'ok') runs.failed++;
    runs.archived += result.pages.archived.length;
  }
  runs.ms = Math.round(performance.now() - started);
  return runs;
}

/** Every fact id in the vault's logs: what coverage is measured against. */
export async function loggedFactIds(root: string): Promise<string[]> {
  const ids: string[] = [];
  for (const date of await listLogDates(root)) ids.push(...(await readLog(root, date)).facts.map((f) => f.id));
  return ids;
}
