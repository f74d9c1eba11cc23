/**
 * The hourly health snapshot, appended to `.vaultkeeper/health.jsonl`: facts per day, pending days,
 * index drift, orphan pages, broken links, open conflicts, LLM tokens. A trend a person can graph.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { runDoctor } from '../../doctor/doctor.js';
import { listLogDates, readLog } from '../../logs/factlog.js';
import { listWikiPages } from '../../pages/discover.js';
import { linkResolver } from '../../pages/links.js';
import { parsePage } from '../../pages/parse.js';
import { appendConfined } from '../../vault/confined-write.js';
import type { VaultReader } from '../../vault/reader.js';

export const HEALTH_FILE = '.vaultkeeper/health.jsonl';

export interface HealthSnapshot {
  at: string;
  facts_per_day: Record<string, number>;
  pending_days: number;
  facts_pending: number;
  index_rows: number | null;
  index_drift: boolean;
  orphan_pages: string[];
  broken_links: number;
  open_conflicts: number;
  llm_tokens_today: number | null;
  problems: number;
}

export async function healthSnapshot(vault: VaultReader, now: Date, days = 7): Promise<HealthSnapshot> {
  const status = await vault.status(now);
  const dates = (await listLogDates(vault.root)).slice(-days);
  const factsPerDay: Record<string, number> = {};
  for (const date of dates) factsPerDay[date] = (await readLog(vault.root, date)).facts.length;
  const doctor = await runDoctor(vault.root, vault.ctx.env);
  const pages = [];
  for (const rel of await listWikiPages(vault.root)) pages.push(parsePage(rel, await readFile(path.join(vault.root, rel))));
  const resolve = linkResolver(pages.map((p) => ({ path: p.path, aliases: p.aliases })));
  const linked = new Set<string>();
  for (const page of pages) for (const link of page.links) {
    const target = resolve(link.target, page.path);
    if (target !== null && target !== page.path) linked.add(target);
  }
  const llm = status.llm as { today?: { total_tokens?: number } };
  return {
    at: now.toISOString(),
    facts_per_day: factsPerDay,
    pending_days: status.pending_days,
    facts_pending: status.facts_pending,
    index_rows: status.index?.rows ?? null,
    index_drift: doctor.problems.some((p) => p.code === 'INDEX_DRIFT'),
    orphan_pages: pages.map((p) => p.path).filter((p) => !linked.has(p) && !p.startsWith('0_Inbox/')).sort(),
    broken_links: doctor.problems.filter((p) => p.code === 'BROKEN_LINK').length,
    open_conflicts: (await vault.conflicts()).filter((c) => !c.resolved).length,
    llm_tokens_today: llm.today?.total_tokens ?? null,
    problems: doctor.problems.length,
  };
}

export async function recordHealth(vault: VaultReader, now: Date): Promise<HealthSnapshot> {
  const snapshot = await healthSnapshot(vault, now);
  await appendConfined(vault.root, HEALTH_FILE, `${JSON.stringify(snapshot)}\n`);
  return snapshot;
}
