/**
 * What changed lately, for an agent catching up: the newest facts (from the logs), the pages changed and
 * by whom (git: a person's commit or one of vaultkeeper's), and the last dreams (log.md).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { localStamp } from '../core/clock.js';
import { JOURNAL_FILE, parseDreamJournal, type DreamRecord } from '../dream/journal.js';
import { changedFilesSince } from '../git/audit.js';
import { addDays } from '../llm/local-day.js';
import { listLogDates, readLog } from '../logs/factlog.js';
import { isWikiPagePath } from '../pages/discover.js';
import { readTombstones } from '../tombstones/tombstones.js';
import type { VaultReader } from '../vault/reader.js';
import type { ContextFact } from './context.js';

export interface RecentActivity {
  /** The first local date covered. */
  since: string;
  facts: ContextFact[];
  pages: Array<{ path: string; date: string; by: 'person' | 'vaultkeeper'; op: string | null; subject: string; link: string }>;
  dreams: DreamRecord[];
  /** How many of each list were left out by `limit`. */
  omitted: { facts: number; pages: number; dreams: number };
}

export interface RecentOptions {
  /** Days back, today included (default 7). */
  days?: number;
  /** Most items per list (default 20). */
  limit?: number;
  now?: Date;
}

export async function recentActivity(vault: VaultReader, options: RecentOptions = {}): Promise<RecentActivity> {
  const days = options.days ?? 7;
  const limit = options.limit ?? 20;
  const now = options.now ?? new Date();
  const since = addDays(localStamp(now, vault.ctx.timeZone).date, 1 - days);

  const tombstones = await readTombstones(vault.root);
  const facts: ContextFact[] = [];
  for (const date of (await listLogDates(vault.root)).filter((d) => d >= since).reverse()) {
    for (const fact of (await readLog(vault.root, date)).facts.reverse()) {
      if (tombstones.hasId(fact.id) || tombstones.repeats(fact.text)) continue;
      facts.push({ id: fact.id, date: fact.date, category: fact.category, text: fact.text, link: `[[${fact.date}#^${fact.id}]]` });
    }
  }

  // Git's --since is a time; a day earlier than `since` at worst, then filtered by the commit's own date.
  const changes = (await changedFilesSince(vault.root, `${addDays(since, -1)}T00:00:00Z`)).filter((c) => isWikiPagePath(c.path) && localStamp(new Date(c.date), vault.ctx.timeZone).date >= since);
  const pages = changes.map((c) => ({
    path: c.path,
    date: c.date,
    by: c.op === null || c.op === 'snapshot' ? ('person' as const) : ('vaultkeeper' as const),
    op: c.op,
    subject: c.subject,
    link: `[[${path.posix.basename(c.path, '.md')}]]`,
  }));

  const journal = parseDreamJournal(await readFile(path.join(vault.root, JOURNAL_FILE), 'utf8').catch(() => ''));
  const dreams = journal.filter((d) => localStamp(new Date(d.at), vault.ctx.timeZone).date >= since).reverse();
  return {
    since,
    facts: facts.slice(0, limit),
    pages: pages.slice(0, limit),
    dreams: dreams.slice(0, limit),
    omitted: { facts: Math.max(0, facts.length - limit), pages: Math.max(0, pages.length - limit), dreams: Math.max(0, dreams.length - limit) },
  };
}
