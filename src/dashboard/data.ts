/**
 * What the dashboard shows, read from the vault's own files: facts per day (logs), the pending backlog
 * (health snapshots, and now), dreams and their outcomes (log.md, and the daemon log for failures), the
 * skipped days with their reasons (status), LLM tokens per day (llm-usage.json) and open conflicts
 * (0_Inbox/conflicts.md). Reads only.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { localStamp } from '../core/clock.js';
import { HEALTH_FILE } from '../daemon/jobs/health.js';
import { readLogEntries } from '../daemon/log.js';
import { JOURNAL_FILE, parseDreamJournal, type DreamRecord } from '../dream/journal.js';
import type { OpenConflict } from '../dream/generate.js';
import { addDays } from '../llm/local-day.js';
import { dayUsage, readUsage } from '../llm/usage.js';
import { listLogDates, readLog } from '../logs/factlog.js';
import { listWikiPages } from '../pages/discover.js';
import { parsePage } from '../pages/parse.js';
import { readTombstones } from '../tombstones/tombstones.js';
import { ARCHIVE_DIR, isGeneratedPage } from '../vault/layout.js';
import type { VaultReader } from '../vault/reader.js';

export interface DashboardData {
  /** The vault's local date the page was made on. */
  today: string;
  /** Local dates shown on the day axes, oldest first. */
  days: string[];
  facts_per_day: number[];
  /** Live facts in the vault at the end of each shown day: the memory's growth. */
  facts_total_per_day: number[];
  /** The pages that cite the most facts (the dream's entity and topic pages), most first. */
  top_entities: Array<{ path: string; title: string; facts: number }>;
  /** Pending facts at the end of each shown day, from the health snapshots (null: no snapshot that day). */
  pending_per_day: Array<number | null>;
  pending_now: { days: number; facts: number };
  dreams_per_day: Record<DreamRecord['outcome'], number[]>;
  recent_dreams: DreamRecord[];
  /** Days the dream gave up on and why (status's skipped_days): they wait for a retry. */
  skipped_days: Array<{ date: string; reason: string }>;
  tokens_per_day: number[];
  conflicts: OpenConflict[];
}

export async function dashboardData(vault: VaultReader, now: Date, span = 14): Promise<DashboardData> {
  const tz = vault.ctx.timeZone;
  const today = localStamp(now, tz).date;
  const days = Array.from({ length: span }, (_, i) => addDays(today, i - span + 1));
  const dayOf = (iso: string): string => localStamp(new Date(iso), tz).date;

  const tombstones = await readTombstones(vault.root);
  const logDates = new Set(await listLogDates(vault.root));
  const liveByDay = new Map<string, number>();
  for (const day of logDates) {
    if (day > today) continue;
    liveByDay.set(day, (await readLog(vault.root, day)).facts.filter((f) => !tombstones.hasId(f.id) && !tombstones.repeats(f.text)).length);
  }
  const facts_per_day = days.map((day) => liveByDay.get(day) ?? 0);
  let before = [...liveByDay].filter(([day]) => day < days[0]!).reduce((n, [, count]) => n + count, 0);
  const facts_total_per_day = facts_per_day.map((count) => (before += count));

  const status = await vault.status(now);
  const pendingByDay = new Map<string, number>();
  const health = await readFile(path.join(vault.root, HEALTH_FILE), 'utf8').catch(() => '');
  for (const line of health.split('\n')) {
    try {
      const snapshot = JSON.parse(line) as { at?: unknown; facts_pending?: unknown };
      if (typeof snapshot.at === 'string' && typeof snapshot.facts_pending === 'number') pendingByDay.set(dayOf(snapshot.at), snapshot.facts_pending); // the day's last wins
    } catch {
      // a torn line
    }
  }
  pendingByDay.set(today, status.facts_pending);

  const journalText = await readFile(path.join(vault.root, JOURNAL_FILE), 'utf8').catch(() => '');
  const placed = placedByRun(journalText);
  const journal = parseDreamJournal(journalText).map((d) => (placed.has(d.run) ? { ...d, detail: `${d.detail}: ${placed.get(d.run)}` } : d));
  const failures: DreamRecord[] = (await readLogEntries(vault.root, { job: 'dream' }))
    .filter((entry) => entry.level === 'error')
    .map((entry) => ({ at: entry.at, run: '', outcome: 'failed', detail: entry.msg }));
  const dreams = [...journal, ...failures].sort((a, b) => a.at.localeCompare(b.at));
  const dreams_per_day: DashboardData['dreams_per_day'] = { ok: [], skipped: [], failed: [] };
  for (const outcome of ['ok', 'skipped', 'failed'] as const) {
    for (const day of days) dreams_per_day[outcome].push(dreams.filter((d) => d.outcome === outcome && dayOf(d.at) === day).length);
  }

  const usage = await readUsage(vault.root);
  return {
    today,
    days,
    facts_per_day,
    facts_total_per_day,
    top_entities: await topEntities(vault.root),
    pending_per_day: days.map((day) => pendingByDay.get(day) ?? null),
    pending_now: { days: status.pending_days, facts: status.facts_pending },
    dreams_per_day,
    recent_dreams: dreams.slice(-5).reverse(),
    skipped_days: status.skipped_days.map(({ date, reason }) => ({ date, reason })),
    tokens_per_day: days.map((day) => dayUsage(usage, day).total.total_tokens),
    conflicts: await vault.conflicts(),
  };
}

/** Pages by how many facts they cite (generated pages, the inbox and the archive left out), the top `limit`. */
async function topEntities(root: string, limit = 10): Promise<DashboardData['top_entities']> {
  const out: DashboardData['top_entities'] = [];
  for (const rel of await listWikiPages(root)) {
    if (isGeneratedPage(rel) || rel.startsWith('0_Inbox/') || rel.startsWith(ARCHIVE_DIR)) continue;
    const page = parsePage(rel, await readFile(path.join(root, rel)));
    const facts = new Set(page.chunks.flatMap((chunk) => chunk.citations)).size;
    if (facts > 0) out.push({ path: rel, title: page.title, facts });
  }
  return out.sort((a, b) => b.facts - a.facts || a.path.localeCompare(b.path)).slice(0, limit);
}

/**
 * What each run placed, from the counters its journal line carries after the batch (`pages +1 ~0 · facts 2 ·
 * placed 2 · filed 0 · conflicts 1`), in words; a line from before those counters says nothing more.
 */
function placedByRun(journal: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of journal.split(/\r?\n/)) {
    const run = /· run (r-[\w-]+) ·/.exec(line)?.[1];
    if (run === undefined) continue;
    const count = (name: string): string | undefined => new RegExp(`· ${name} (\\d+)`).exec(line)?.[1];
    const pages = /· pages \+(\d+) ~(\d+)/.exec(line);
    const parts = [
      count('facts') === undefined ? '' : `${count('facts')} facts`,
      count('placed') === undefined ? '' : `${count('placed')} placed on pages`,
      count('filed') === undefined || count('filed') === '0' ? '' : `${count('filed')} filed in the inbox`,
      pages === null ? '' : `${pages[1]} pages created, ${pages[2]} updated`,
      count('conflicts') === undefined || count('conflicts') === '0' ? '' : `${count('conflicts')} conflicts flagged`,
    ].filter((part) => part !== '');
    if (parts.length > 0) out.set(run, parts.join(', '));
  }
  return out;
}
