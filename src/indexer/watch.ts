/**
 * The foreground watcher: a page saved in Obsidian or a fact appended becomes searchable within about a
 * second. Changes are debounced into one reindex; since the indexer compares every file with its
 * manifest, editors' atomic saves (write temp, rename) and bursts of changes need no special cases.
 */
import path from 'node:path';
import { watch } from 'chokidar';

export interface WatchOptions {
  /** Quiet time after the last change before indexing. */
  debounceMs?: number;
  /** Index at the latest this long after the first change of a burst. */
  maxWaitMs?: number;
  onIndexed?: (changed: string[]) => void;
  onError?: (error: unknown) => void;
}

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

export function watchVault(root: string, index: () => Promise<unknown>, options: WatchOptions = {}): VaultWatcher {
  const debounceMs = options.debounceMs ?? 300;
  const maxWaitMs = options.maxWaitMs ?? 1_000;
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let firstChangeAt = 0;
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;

  const run = async (): Promise<void> => {
    if (running !== null) {
      again = true; // index once more after the current run, for changes made during it
      return;
    }
    const batch = [...changed];
    changed.clear();
    running = (async () => {
      try {
        await index();
        options.onIndexed?.(batch);
      } catch (error) {
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

  const schedule = (rel: string): void => {
    if (closed || !isWatched(rel)) return;
    if (changed.size === 0) firstChangeAt = Date.now();
    changed.add(rel);
    clearTimeout(timer);
    const wait = Math.max(0, Math.min(debounceMs, firstChangeAt + maxWaitMs - Date.now()));
    timer = setTimeout(() => void run(), wait);
  };

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
  watcher.on('add', onPath).on('change', onPath).on('unlink', onPath).on('unlinkDir', onPath);
  watcher.on('error', (error) => options.onError?.(error));

  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    ready,
    async flush() {
      if (changed.size > 0 && !closed) {
        clearTimeout(timer);
        await run();
      }
      while (running !== null) await running;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await watcher.close();
      if (running !== null) await running;
    },
  };
}
