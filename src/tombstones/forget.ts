/**
 * `forget`: tombstone facts by id or by matching text; at once remove the page lines that cite or repeat them
 * and MEMORY.md's items that show them (DESIGN §5), and commit all of it as one change. Files read from the
 * vault (the MCP resource, memory_read) follow; the index follows when the caller reindexes (the Vault does).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { VaultkeeperError, UsageError } from '../core/errors.js';
import { withWriteLock } from '../core/lock.js';
import { failpoint } from '../core/failpoint.js';
import { commitPaths } from '../git/audit.js';
import { snapshotEdits } from '../git/snapshot.js';
import { clearIntent, finishInterrupted, writeAppendIntent } from '../git/intent.js';
import { isWikiPagePath } from '../pages/discover.js';
import { holdsForgotten, pagesHoldingForgotten, removeForgottenLines } from '../dream/forgotten.js';
import type { MemoryChange } from '../dream/memory.js';
import { listLogDates, readLog, type Fact } from '../logs/factlog.js';
import { factsById } from '../logs/find-id.js';
// MEMORY.md by the indexer's light name for it: dream/memory.ts's modules (the page parser, yaml) are not loaded for a forget.
import { CORE_FILE as MEMORY_FILE } from '../indexer/sources.js';
import { containsWords, normalizeText } from '../text/normalize.js';
import type { VaultContext } from '../vault/context.js';
import { scrubMemory } from './memory-scrub.js';
import { appendTombstones, readTombstones, TOMBSTONES_FILE, type Tombstone } from './tombstones.js';

export type ForgetTarget = { id: string } | { match: string };

export interface ForgottenFact {
  id: string;
  text: string;
  date: string;
  path: string;
  line: number;
}

export interface ForgetResult {
  tombstoned: ForgottenFact[];
  /** Facts that matched but were tombstoned before. */
  already: ForgottenFact[];
  /** Pages from which lines citing or repeating a forgotten fact were removed, with how many lines each. */
  pages: Array<{ path: string; lines: number }>;
  /**
   * MEMORY.md without the items that state them (memory-scrub.ts; `added` is always 0: the next dream regenerates
   * it whole); unchanged and not rewritten when it held none.
   */
  memory: MemoryChange;
  commit: string | null;
}

/** Every fact in the vault's logs, oldest first. */
export async function allFacts(root: string): Promise<Fact[]> {
  const facts: Fact[] = [];
  for (const date of await listLogDates(root)) facts.push(...(await readLog(root, date)).facts);
  return facts;
}

export async function forget(ctx: VaultContext, target: ForgetTarget, options: { reason?: string | undefined; now?: Date } = {}): Promise<ForgetResult> {
  let wanted: (fact: Fact) => boolean;
  let described: string;
  if ('id' in target) {
    const id = target.id.trim().replace(/^\^/, '');
    if (id === '') throw new UsageError('forget needs a fact id, e.g. f-7k2m9q0a1b');
    wanted = (fact) => fact.id === id;
    described = `id ${id}`;
  } else {
    const needle = normalizeText(target.match);
    if (needle === '') throw new UsageError('--match needs some words to match', 'e.g. vaultkeeper forget --match "dark roast"');
    wanted = (fact) => containsWords(normalizeText(fact.text), needle);
    described = `text matching "${target.match}"`;
  }

  return withWriteLock(ctx.root, async (lock) => {
    await finishInterrupted(lock, ctx.config);
    const tombstones = await readTombstones(ctx.root);
    // By id, only the logs that can hold it are parsed (logs/find-id.ts).
    const candidates = 'id' in target ? await factsById(ctx.root, target.id.trim().replace(/^\^/, '')) : await allFacts(ctx.root);
    const matched = candidates.filter(wanted).map((fact) => ({
      id: fact.id,
      text: fact.text,
      date: fact.date,
      path: `logs/${fact.date}.md`,
      line: fact.line,
    }));
    if (matched.length === 0) {
      throw new VaultkeeperError('VK_NOT_FOUND', `no fact with ${described}`, {
        hint: 'find ids with `vaultkeeper search QUERY` or in the logs/ files; nothing was changed',
      });
    }
    const already = matched.filter((f) => tombstones.hasId(f.id));
    const fresh = matched.filter((f) => !tombstones.hasId(f.id));
    const at = (options.now ?? new Date()).toISOString();
    const entries: Tombstone[] = fresh.map((f) => ({
      // The normalized text (DESIGN §5): the log keeps the text anyway, and a reworded repeat is matched by it
      // (dream/forget-match.ts); `purge` turns the entry into a hash when it erases the text everywhere.
      id: f.id,
      text: normalizeText(f.text),
      at,
      ...(options.reason === undefined ? {} : { reason: options.reason }),
    }));
    // What a crash leaves uncommitted in the tombstones is this command's (intent.ts).
    if (entries.length > 0) await writeAppendIntent(lock, [TOMBSTONES_FILE]);
    await appendTombstones(lock, entries);
    failpoint('forget:after-append');
    // Every forgotten line goes now, not at the next dream: also those of facts forgotten before (a vault whose
    // forget predates this, or a line a person wrote back), so a repeated forget repairs the pages.
    const all = await readTombstones(ctx.root);
    // A person's uncommitted edits to a page forget rewrites are committed first, as theirs.
    await snapshotEdits(lock, ctx.config, {
      before: 'forget',
      why: 'Committed as they were, so the forget commit holds only the lines it removes.',
      only: async (change) => {
        if (!isWikiPagePath(change.path) || change.status.includes('D')) return false;
        const content = await readFile(path.join(ctx.root, change.path), 'utf8').catch(() => null);
        return content !== null && holdsForgotten(content, all);
      },
    });
    // The pages about to lose lines, and MEMORY.md, join the intent: a crash before the commit leaves them to the
    // next writer as this command's (a `recover:` commit), never as a person's edits.
    const holding = (await pagesHoldingForgotten(ctx.root, all)).map((p) => p.path);
    const intended = entries.length > 0 || holding.length > 0;
    if (intended) await writeAppendIntent(lock, [TOMBSTONES_FILE, ...holding, MEMORY_FILE]);
    // Only the pages found holding a line: every page was read and matched once above (under the write lock,
    // after the snapshot, nothing rewrites a page between the two), and the intent names no other.
    const scrubbed = await removeForgottenLines(ctx.root, all, holding);
    // The dream's run logs (not committed) keep no forgotten text either; their module loads only when there are some.
    if (await hasRunLogs(ctx.root)) await (await import('../dream/agent/runlog.js')).scrubRunLogs(ctx.root, all);
    const pages = scrubbed.map((s) => ({ path: s.path, lines: s.lines }));
    // Only the forgotten items leave MEMORY.md (a full regeneration reads every log and page: seconds at 100k facts).
    const memory: MemoryChange = { ...(await scrubMemory(ctx.root, all, scrubbed.flatMap((s) => s.removed))), added: 0 };
    failpoint('forget:after-pages');
    const removedLines = pages.reduce((n, p) => n + p.lines, 0);
    const subject =
      entries.length > 0
        ? `forget: ${fresh.length} ${fresh.length === 1 ? 'fact' : 'facts'} (${described})`
        : `forget: ${removedLines} page ${removedLines === 1 ? 'line' : 'lines'} of facts forgotten before (${described})`;
    const commit =
      entries.length === 0 && scrubbed.length === 0 && !memory.changed
        ? null
        : await commitPaths(lock, ctx.config, {
            op: 'forget',
            subject,
            body: [
              `Reason: ${options.reason ?? 'none given'}`,
              '',
              ...fresh.map((f) => `- ${f.id} (${f.path}:${f.line}): ${f.text}`),
              ...(pages.length === 0 ? [] : ['', `Removed ${removedLines} page ${removedLines === 1 ? 'line' : 'lines'} citing or repeating forgotten facts:`, ...pages.map((p) => `~ ${p.path} (${p.lines})`)]),
              ...(memory.changed ? ['', `${MEMORY_FILE}: ${memory.removed} ${memory.removed === 1 ? 'fact' : 'facts'} out (the next dream regenerates it).`] : []),
            ].join('\n'),
            paths: [TOMBSTONES_FILE, ...pages.map((p) => p.path), ...(memory.changed ? [MEMORY_FILE] : [])],
          }).catch((error: unknown) => {
            throw notCommitted(error, fresh.length);
          });
    if (intended) await clearIntent(lock);
    // The dream's kept scratch tree holds the pages as they were (git/worktree.ts; simple-git loads only then).
    if (pages.length > 0 || memory.changed) await (await import('../git/worktree.js')).dropIdleScratch(ctx.root);
    return { tombstoned: fresh, already, pages, memory, commit };
  });
}

/**
 * The files a forget changed, vault-relative, for the index pass after it (vault.ts): the tombstones, the logs of the
 * facts it names (their rows go), the pages it scrubbed and MEMORY.md when scrubbed. The pass stats only these and
 * files its manifest does not know (indexer/reindex.ts `changed`); any other file keeps the stat the manifest recorded,
 * so a person's edit made before the forget is still seen, and indexed, by the next full pass (every command's
 * freshness check, fresh.ts). Files the new tombstones may change are re-projected by the pass whatever this names.
 */
export function forgetChanged(result: ForgetResult): string[] {
  const logs = [...result.tombstoned, ...result.already].map((fact) => fact.path);
  return [...new Set([TOMBSTONES_FILE, ...logs, ...result.pages.map((page) => page.path), ...(result.memory.changed ? [MEMORY_FILE] : [])])];
}

/** True when the dream left run logs (dream/agent/runlog.ts RUNS_DIR); an unreadable folder is looked into by the scrub. */
async function hasRunLogs(root: string): Promise<boolean> {
  const names = await readdir(path.join(root, '.vaultkeeper', 'runs')).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? [] : null));
  return names === null || names.some((name) => name.endsWith('.jsonl'));
}

/**
 * A forget whose commit failed: the tombstones are in the file (written and flushed), so the facts are
 * forgotten; only the commit is missing, and the next writer makes it (the append intent stays).
 */
function notCommitted(error: unknown, count: number): unknown {
  if (!(error instanceof VaultkeeperError)) return error;
  const what = count === 0 ? 'the pages were cleaned' : `${count} ${count === 1 ? 'fact is' : 'facts are'} forgotten (in ${TOMBSTONES_FILE})`;
  return new VaultkeeperError(error.code, `${what} but not committed: ${error.message}`, {
    hint: `${error.hint ?? 'run `vaultkeeper doctor`'}; do not forget again: the next write commits it`,
    cause: error,
  });
}
