/**
 * The foreground watcher: a page saved in Obsidian or a fact appended becomes searchable within about a
 * second. Changes are debounced into one reindex; since the indexer compares every file with its
 * manifest, editors' atomic saves (write temp, rename) and bursts of changes need no special cases.
 *
 * A pass is handed the files changed since the last one when the watcher can vouch it saw every change since that
 * one began (ChangeLedger): then the indexer stats only those, not the ~5,200 files of a million facts' vault
 * (issue 31). Otherwise (the first pass, after an error, a folder added or removed, a pass that failed or skipped a
 * file) the pass stats every file, as the indexer does on its own. On Linux the events come from inotify on each
 * folder (folder-watch.ts), elsewhere from chokidar, which reads a folder again on every event in it.
 */
import path from 'node:path';
import { watch } from 'chokidar';
import { watchable } from './change-watch.js';
import { ChangeLedger, passClean } from './change-ledger.js';
import { FolderWatch } from './folder-watch.js';

export interface WatchOptions {
  /** Quiet time after the last change before indexing. */
  debounceMs?: number;
  /** Index at the latest this long after the first change of a burst. */
  maxWaitMs?: number;
  /** `result`: what the pass returned. */
  onIndexed?: (changed: string[], result: unknown) => void;
  onError?: (error: unknown) => void;
}

/**
 * Indexes the vault. `changed`: the files that may have changed since the last pass, when the watcher vouches that
 * no other did (reindex.ts `changed`); undefined when it cannot, and every file must be statted.
 */
export type IndexPass = (changed?: readonly string[]) => Promise<unknown>;

export interface VaultWatcher {
  /** Resolves once the initial scan is done and changes are being seen. */
  ready: Promise<void>;
  /** Indexes changes seen but not yet indexed now, without waiting out the debounce; resolves when the index is current. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const IGNORED_DIRS = new Set(['.git', '.obsidian', '.trash', 'node_modules']);

/** Files whose change can change the index: markdown, and the tombstones. */
export function isWatched(rel: string): boolean {
  if (rel === '.vaultkeeper/tombstones.jsonl') return true;
  const parts = rel.split('/');
  if (parts.some((p) => p.startsWith('.'))) return false;
  return rel.endsWith('.md');
}

export function watchVault(root: string, index: IndexPass, options: WatchOptions = {}): VaultWatcher {
  const debounceMs = options.debounceMs ?? 300;
  const maxWaitMs = options.maxWaitMs ?? 1_000;
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let firstChangeAt = 0;
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;
  const ledger = new ChangeLedger();

  async function flush(): Promise<void> {
    if (changed.size > 0 && !closed) {
      clearTimeout(timer);
      await run();
    }
    while (running !== null) await running;
  }

  const run = async (): Promise<void> => {
    if (running !== null) {
      again = true; // index once more after the current run, for changes made during it
      return;
    }
    const batch = [...changed];
    changed.clear();
    if (folders?.linked ?? false) ledger.miss();
    const vouched = ledger.begin(batch);
    running = (async () => {
      try {
        const result = await index(vouched);
        ledger.end(passClean(result));
        options.onIndexed?.(batch, result);
      } catch (error) {
        ledger.end(false);
        options.onError?.(error);
      }
    })();
    await running;
    running = null;
    if (again && !closed) {
      again = false;
      await run();
    }
  };

  /** `force`: a pass even for a path that is no file the index reads (a folder added or removed). */
  const schedule = (rel: string, force = false): void => {
    if (closed || (!force && !isWatched(rel))) return;
    if (changed.size === 0) firstChangeAt = Date.now();
    changed.add(rel);
    clearTimeout(timer);
    const wait = Math.max(0, Math.min(debounceMs, firstChangeAt + maxWaitMs - Date.now()));
    timer = setTimeout(() => void run(), wait);
  };

  // On Linux, inotify on each folder (folder-watch.ts); elsewhere, or on a file system inotify does not see whole, chokidar.
  const folders = watchable(root)
    ? new FolderWatch(root, {
        file: (rel) => schedule(rel),
        missed: (rel) => {
          ledger.miss();
          schedule(rel, true);
        },
      })
    : null;
  folders?.arm();
  if (folders !== null) {
    return {
      ready: Promise.resolve(),
      flush,
      async close() {
        closed = true;
        clearTimeout(timer);
        folders.close();
        if (running !== null) await running;
      },
    };
  }

  const watcher = watch(root, {
    ignoreInitial: true,
    ignored: (file: string) => {
      const rel = path.relative(root, file).split(path.sep).join('/');
      if (rel === '' || rel === '.vaultkeeper' || rel === '.vaultkeeper/tombstones.jsonl') return false;
      const first = rel.split('/')[0]!;
      return IGNORED_DIRS.has(first) || first === '.vaultkeeper';
    },
  });
  const onPath = (file: string): void => schedule(path.relative(root, file).split(path.sep).join('/'));
  // A folder added or removed (moved in or out, replaced): its files' events may not all come, so the next pass stats all.
  const onFolder = (file: string): void => {
    if (!closed) ledger.miss();
    onPath(file);
  };
  watcher.on('add', onPath).on('change', onPath).on('unlink', onPath).on('unlinkDir', onFolder).on('addDir', onFolder);
  watcher.on('error', (error) => {
    ledger.miss();
    options.onError?.(error);
  });

  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    ready,
    flush,
    async close() {
      closed = true;
      clearTimeout(timer);
      await watcher.close();
      if (running !== null) await running;
    },
  };
}
