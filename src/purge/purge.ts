/**
 * `purge` (DESIGN §5): a tombstone hides, purge erases. The fact's log line keeps its category and id with its
 * text replaced by `[purged]` (a link to its block still resolves); every other file of the vault (pages,
 * MEMORY.md, the state under .vaultkeeper/) loses the text and the page lines that cite the fact; the tombstones
 * keep a hash of it; log.md says a purge happened (ids, date, reason, never the text); one commit holds it, then
 * the git history is rewritten so that no object holds the text. The index and the embedding cache are rebuilt by
 * the caller (Vault.purge), since a local index folder or a remote table is dropped whole with its old versions.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { localStamp } from '../core/clock.js';
import { VaultkeeperError, UsageError } from '../core/errors.js';
import { withWriteLock, type WriteLock } from '../core/lock.js';
import { appendJournal } from '../dream/generate.js';
import { JOURNAL_FILE } from '../dream/journal.js';
import { MEMORY_FILE, regenerateMemory } from '../dream/memory.js';
import { writeFileAtomic } from '../dream/tools/atomic.js';
import { commitPaths } from '../git/audit.js';
import { finishInterrupted } from '../git/intent.js';
import { gitRunner } from '../git/run.js';
import { listLogDates, logRelPath, rewriteLog, writtenText, type Fact } from '../logs/factlog.js';
import { containsWords, normalizeText } from '../text/normalize.js';
import { allFacts } from '../tombstones/forget.js';
import { hashedText, readTombstones, rewriteTombstones, TOMBSTONES_FILE, type Tombstone } from '../tombstones/tombstones.js';
import { confinedPath } from '../vault/confine.js';
import type { VaultContext } from '../vault/context.js';
import { rewriteHistory } from './history.js';
import { scrubber, type Scrubber } from './scrub.js';

export type PurgeTarget = { id: string } | { match: string };

export interface PurgedFact {
  id: string;
  date: string;
  path: string;
  line: number;
}

export interface PurgeResult {
  purged: PurgedFact[];
  /** Files of the vault rewritten without the text (the logs, pages, MEMORY.md, state files). */
  files: string[];
  /** Files that hold the text but could not be rewritten (a link out of the vault): the person's to clean. */
  skipped: string[];
  /** The purge commit, as it is after the history was rewritten. */
  commit: string | null;
  history: { changed: number };
  /** Remote-tracking refs deleted: those remotes still hold the old history until a push with --force. */
  remote: { refs: string[]; note: string | null };
}

/** The facts a purge of `target` would erase (shown before the confirmation). */
export async function purgeTargets(ctx: VaultContext, target: PurgeTarget): Promise<Fact[]> {
  const wanted = matcher(target);
  const facts = (await allFacts(ctx.root)).filter(wanted);
  if (facts.length === 0) {
    const what = 'id' in target ? `id ${target.id.trim().replace(/^\^/, '')}` : `text matching "${target.match}"`;
    throw new VaultkeeperError('VK_NOT_FOUND', `no fact with ${what}; nothing was purged`, { hint: 'find ids with `vaultkeeper search QUERY` or in the logs/ files' });
  }
  return facts;
}

function matcher(target: PurgeTarget): (fact: Fact) => boolean {
  if ('id' in target) {
    const id = target.id.trim().replace(/^\^/, '');
    if (id === '') throw new UsageError('purge needs a fact id, e.g. f-7k2m9q0a1b');
    return (fact) => fact.id === id;
  }
  const needle = normalizeText(target.match);
  if (needle === '') throw new UsageError('--match needs some words to match', 'e.g. vaultkeeper purge --match "door code"');
  return (fact) => containsWords(normalizeText(fact.text), needle);
}

export async function purge(ctx: VaultContext, target: PurgeTarget, options: { reason?: string | undefined; now?: Date } = {}): Promise<PurgeResult> {
  return withWriteLock(ctx.root, async (lock) => {
    await finishInterrupted(lock, ctx.config);
    const facts = await purgeTargets(ctx, target);
    const ids = facts.map((f) => f.id);
    const texts = facts.flatMap((f) => [f.text, writtenText(f.text), normalizeText(f.text)]);
    if ('match' in target) texts.push(target.match);
    const scrub = scrubber({ ids, texts });
    const now = options.now ?? new Date();

    const files: string[] = [];
    for (const date of await listLogDates(ctx.root)) if (await rewriteLog(lock, date, scrub)) files.push(logRelPath(date));
    if (await scrubTombstones(lock, ids, facts, scrub, now, options.reason)) files.push(TOMBSTONES_FILE);
    const skipped: string[] = [];
    files.push(...(await scrubFiles(lock, ctx, scrub, skipped)));
    const memory = await regenerateMemory(ctx.root, { maxLines: ctx.config.dream.memory_lines, today: localStamp(now, ctx.timeZone).date });
    if (memory.changed && !files.includes(MEMORY_FILE)) files.push(MEMORY_FILE);
    const stamp = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    await appendJournal(ctx.root, `- ${stamp} · purge · ${ids.join(',')} · reason: ${singleLine(options.reason ?? 'none given')}`);

    const tracked = files.filter((f) => !f.startsWith('.vaultkeeper/') || f === TOMBSTONES_FILE);
    const subject = `purge: ${facts.length} ${facts.length === 1 ? 'fact' : 'facts'} (${ids.length <= 3 ? ids.join(', ') : `${ids.slice(0, 3).join(', ')}, …`})`;
    await commitPaths(lock, ctx.config, {
      op: 'purge',
      subject,
      body: `Reason: ${options.reason ?? 'none given'}\n\nThe text of these facts was erased from the files and the git history; their ids stay.\n\n${ids.map((id) => `- ${id}`).join('\n')}`,
      paths: [...new Set([...tracked, JOURNAL_FILE])],
    });
    const history = await rewriteHistory(ctx.root, scrub);
    const commit = (await gitRunner(ctx.root).raw(['rev-parse', 'HEAD'])).trim() || null;
    const remotes = [...new Set(history.remoteRefs.map((r) => r.split('/')[2] ?? r))];
    return {
      purged: facts.map((f) => ({ id: f.id, date: f.date, path: logRelPath(f.date), line: f.line })),
      files,
      skipped,
      commit,
      history: { changed: history.changed },
      remote: {
        refs: history.remoteRefs,
        note:
          remotes.length === 0
            ? null
            : `the remote ${remotes.join(', ')} still holds the old history: push with --force (git push --force ${remotes[0]} --all) to erase it there, before any sync, which would merge the old history back`,
      },
    };
  });
}

/** Old entries that held a purged text keep its hash instead; the purged facts get a tombstone of their own. */
async function scrubTombstones(lock: WriteLock, ids: readonly string[], facts: readonly Fact[], scrub: Scrubber, now: Date, reason: string | undefined): Promise<boolean> {
  const set = await readTombstones(lock.root);
  let changed = false;
  const entries: Tombstone[] = set.entries.map((entry) => {
    if (entry.text === undefined || (!ids.includes(entry.id) && scrub(entry.text) === entry.text)) return entry;
    changed = true;
    const { text, ...rest } = entry;
    return { ...rest, ...hashedText(text) };
  });
  for (const fact of facts) {
    if (set.hasId(fact.id)) continue;
    changed = true;
    entries.push({ id: fact.id, ...hashedText(fact.text), at: now.toISOString(), reason: `purged${reason === undefined ? '' : `: ${singleLine(reason)}`}` });
  }
  if (changed) await rewriteTombstones(lock, entries);
  return changed;
}

/** Every other text file of the vault through the scrubber (not logs/, .git/, the tombstones, the index or the embedding cache). */
async function scrubFiles(lock: WriteLock, ctx: VaultContext, scrub: Scrubber, skipped: string[]): Promise<string[]> {
  const changed: string[] = [];
  const skip = new Set(['.git', 'logs', TOMBSTONES_FILE, '.vaultkeeper/index', '.vaultkeeper/cache', '.vaultkeeper/locks']);
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(ctx.root, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (skip.has(child)) continue;
      if (entry.isDirectory()) {
        await walk(child);
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      let text: string;
      try {
        text = utf8.decode(await readFile(path.join(ctx.root, child)));
      } catch {
        continue;
      }
      const after = scrub(text);
      if (after === text) continue;
      try {
        await writeFileAtomic(await confinedPath(lock.root, child), after);
        changed.push(child);
      } catch (error) {
        if (!(error instanceof VaultkeeperError)) throw error;
        skipped.push(child);
      }
    }
  };
  await walk('');
  return changed;
}

function singleLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}
