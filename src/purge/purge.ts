/**
 * `purge` (DESIGN §5): a tombstone hides, purge erases. The fact's log line keeps its category and id with its
 * text replaced by `[purged]` (a link to its block still resolves); every other file of the vault (pages,
 * MEMORY.md, the state under .vaultkeeper/) loses the text and the page lines that cite the fact; the tombstones
 * keep a hash of it; log.md says a purge happened (ids, date, reason, never the text); one commit holds it, then
 * the git history is rewritten so that no object holds the text. The index and the embedding cache are rebuilt by
 * the caller (Vault.purge), since a local index folder or a remote table is dropped whole with its old versions.
 * What it erases is recorded first (intent.ts) and every step is idempotent, so a purge a crash interrupted is
 * finished by the next command (resumePurge, called when any command opens the vault).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { localStamp } from '../core/clock.js';
import { failpoint } from '../core/failpoint.js';
import { VaultkeeperError, UsageError } from '../core/errors.js';
import { withWriteLock, type WriteLock } from '../core/lock.js';
import { appendJournal } from '../dream/generate.js';
import { JOURNAL_FILE } from '../dream/journal.js';
import { MEMORY_FILE, regenerateMemory } from '../dream/memory.js';
import { writeFileAtomic } from '../dream/tools/atomic.js';
import { commitPaths, uncommittedChanges } from '../git/audit.js';
import { finishInterrupted } from '../git/intent.js';
import { gitRunner } from '../git/run.js';
import { listLogDates, logRelPath, rewriteLog, writtenText, type Fact } from '../logs/factlog.js';
import { containsWords, normalizeText } from '../text/normalize.js';
import { allFacts } from '../tombstones/forget.js';
import { hashedText, readTombstones, rewriteTombstones, TOMBSTONES_FILE, type Tombstone } from '../tombstones/tombstones.js';
import { confinedPath } from '../vault/confine.js';
import type { VaultContext } from '../vault/context.js';
import { rewriteHistory } from './history.js';
import { readPurgeIntent, writePurgeIntent, type PurgeIntent } from './intent.js';
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
    const texts = facts.flatMap((f) => [f.text, writtenText(f.text), normalizeText(f.text)]);
    if ('match' in target) texts.push(target.match);
    const intent: PurgeIntent = {
      ids: facts.map((f) => f.id),
      texts,
      facts: facts.map((f) => ({ id: f.id, date: f.date, line: f.line, ...hashedText(f.text) })),
      ...(options.reason === undefined ? {} : { reason: options.reason }),
      at: (options.now ?? new Date()).toISOString(),
      stage: 'files',
    };
    // Recorded before the first change: from here on a crash is finished by the next command (intent.ts).
    await writePurgeIntent(ctx.root, intent);
    failpoint('purge:after-intent');
    return purgeFiles(lock, ctx, intent, false);
  });
}

/**
 * Finishes the files and the history of a purge a crash interrupted (purge/intent.ts); the caller then rebuilds
 * the index. Returns the purge's record, or null when no purge was left unfinished.
 */
export async function resumePurge(ctx: VaultContext): Promise<PurgeIntent | null> {
  if ((await readPurgeIntent(ctx.root)) === null) return null;
  return withWriteLock(ctx.root, async (lock) => {
    // Read again under the lock: the purge that wrote it may have been alive, and finished meanwhile.
    const intent = await readPurgeIntent(ctx.root);
    if (intent === null || intent.stage === 'index') return intent;
    await purgeFiles(lock, ctx, intent, true);
    return { ...intent, stage: 'index' };
  });
}

/** Every step of a purge after its record is written; each is idempotent, so a resumed purge runs them all again. */
async function purgeFiles(lock: WriteLock, ctx: VaultContext, intent: PurgeIntent, resumed: boolean): Promise<PurgeResult> {
  const { ids } = intent;
  const scrub = scrubber({ ids, texts: intent.texts });
  const now = new Date(intent.at);

  const files: string[] = [];
  for (const date of await listLogDates(ctx.root)) if (await rewriteLog(lock, date, scrub)) files.push(logRelPath(date));
  failpoint('purge:after-logs');
  if (await scrubTombstones(lock, intent, scrub)) files.push(TOMBSTONES_FILE);
  const skipped: string[] = [];
  files.push(...(await scrubFiles(lock, ctx, scrub, skipped)));
  const memory = await regenerateMemory(ctx.root, { maxLines: ctx.config.dream.memory_lines, today: localStamp(now, ctx.timeZone).date });
  if (memory.changed && !files.includes(MEMORY_FILE)) files.push(MEMORY_FILE);
  const stamp = intent.at.replace(/\.\d{3}Z$/, 'Z');
  const entry = `- ${stamp} · purge · ${ids.join(',')} · reason: ${singleLine(intent.reason ?? 'none given')}`;
  // A resumed purge finds its line there already.
  if (!(await readFile(path.join(ctx.root, JOURNAL_FILE), 'utf8').catch(() => '')).split('\n').includes(entry)) await appendJournal(ctx.root, entry);
  failpoint('purge:after-files');

  const tracked = files.filter((f) => !f.startsWith('.vaultkeeper/') || f === TOMBSTONES_FILE);
  // Resumed: what the interrupted run changed is uncommitted and no longer changes under the scrubber.
  const left = resumed ? (await uncommittedChanges(ctx.root)).map((c) => c.path).filter((p) => p !== '' && (!p.startsWith('.vaultkeeper/') || p === TOMBSTONES_FILE)) : [];
  const count = intent.facts.length;
  const subject = `purge: ${count} ${count === 1 ? 'fact' : 'facts'} (${ids.length <= 3 ? ids.join(', ') : `${ids.slice(0, 3).join(', ')}, …`})`;
  await commitPaths(lock, ctx.config, {
    op: 'purge',
    subject,
    body: `Reason: ${intent.reason ?? 'none given'}\n\nThe text of these facts was erased from the files and the git history; their ids stay.\n\n${ids.map((id) => `- ${id}`).join('\n')}`,
    paths: [...new Set([...tracked, ...left, JOURNAL_FILE])],
  });
  failpoint('purge:after-commit');
  const history = await rewriteHistory(ctx.root, scrub, now);
  await writePurgeIntent(ctx.root, { ...intent, stage: 'index' });
  failpoint('purge:after-history');
  const commit = (await gitRunner(ctx.root).raw(['rev-parse', 'HEAD'])).trim() || null;
  const remotes = history.remotes;
  return {
    purged: intent.facts.map((f) => ({ id: f.id, date: f.date, path: logRelPath(f.date), line: f.line })),
    files,
    skipped,
    commit,
    history: { changed: history.changed },
    remote: {
      refs: history.remoteRefs,
      note:
        remotes.length === 0
          ? null
          : `the remote ${remotes.join(', ')} still holds the old history: the next \`vaultkeeper sync\` force-pushes the rewritten one (never a merge, which would bring the text back); other clones of the vault must be cloned again`,
    },
  };
}

/** Old entries that held a purged text keep its hash instead; the purged facts get a tombstone of their own. */
async function scrubTombstones(lock: WriteLock, intent: PurgeIntent, scrub: Scrubber): Promise<boolean> {
  const set = await readTombstones(lock.root);
  let changed = false;
  const entries: Tombstone[] = set.entries.map((entry) => {
    if (entry.text === undefined || (!intent.ids.includes(entry.id) && scrub(entry.text) === entry.text)) return entry;
    changed = true;
    const { text, ...rest } = entry;
    return { ...rest, ...hashedText(text) };
  });
  for (const fact of intent.facts) {
    if (set.hasId(fact.id)) continue;
    changed = true;
    entries.push({ id: fact.id, hash: fact.hash, words: fact.words, at: intent.at, reason: `purged${intent.reason === undefined ? '' : `: ${singleLine(intent.reason)}`}` });
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
