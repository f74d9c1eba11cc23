/**
 * A warm process's word that nothing the freshness check reads has changed (fresh.ts): at a million facts the
 * check re-read the manifest and statted ~5,200 files before every MCP search (~150-320 ms on a loaded machine,
 * issue 31). Here the kernel says what changed instead: an inotify watch on every folder the check reads (the vault
 * root, each page folder, logs/, .vaultkeeper/ and every folder of the index), and any event there counts.
 *
 * Why this never serves a stale answer: inotify queues an event when the change is made, before the writer's call
 * returns, so a write that finished before a search began is in the queue when it begins; `settle` lets the event
 * loop read that queue (a poll phase) before the caller asks whether anything changed. The folders are watched
 * before the check reads them, so a change made during a check counts against the check. What inotify cannot see
 * is not trusted: other systems than Linux (FSEvents reports late), file systems not known to be local (a network
 * mount changed by another machine), and files linked in from elsewhere (statted each time instead).
 */
import { existsSync, readdirSync, statSync, statfsSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

/** statfs types of local file systems whose changes inotify reports (linux/magic.h). */
const LOCAL_FILE_SYSTEMS = new Set([
  0xef53, // ext2/3/4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x794c7630, // overlayfs
  0xf2f52010, // f2fs
  0x2fc12fc1, // zfs
  0xca451a4e, // bcachefs
  0x3153464a, // jfs
  0x52654973, // reiserfs
]);

/** Folders never read for pages (discover.ts): their events are not the check's business, but they are not walked. */
const SKIPPED_DIR = 'node_modules';
const LOGS_DIR = 'logs';
const STATE_DIR = '.vaultkeeper';
/** The files in .vaultkeeper/ the check reads; the rest (recall.jsonl a search appends to, locks, caches) are not. */
const STATE_FILES = new Set(['index-manifest.json', 'index-dirty', 'tombstones.jsonl']);

/** True when inotify reports every change to files under `dir` made on this machine. */
export function watchable(dir: string): boolean {
  if (process.platform !== 'linux') return false;
  try {
    return LOCAL_FILE_SYSTEMS.has(Number(statfsSync(dir).type));
  } catch {
    return false;
  }
}

/**
 * Watches a vault and its index folder; `generation` counts the changes seen. A generation read after `settle`
 * that equals one read before the check began means nothing the check read has changed since.
 */
export class ChangeWatch {
  private watchers: FSWatcher[] = [];
  private changes = 0;
  /** Files linked in (symbolic links among the watched folders' entries): inotify does not see their targets change. */
  private linked: string[] = [];

  constructor(
    private readonly root: string,
    private readonly index: string,
  ) {}

  get generation(): number {
    return this.changes;
  }

  /**
   * Watches every folder as it is now (again: a folder replaced since is a new one to watch), each before it is
   * listed, so that an entry added after the listing raises an event. False when a folder cannot be watched (the
   * inotify watch limit, a folder gone): then nothing is vouched for.
   */
  arm(): boolean {
    const old = this.watchers;
    this.watchers = [];
    this.linked = [];
    try {
      this.walk(this.root, '');
      const logs = path.join(this.root, LOGS_DIR);
      // No logs/ yet: the root's watch sees it made.
      if (existsSync(logs)) {
        this.watchDir(logs, () => true);
        for (const entry of readdirSync(logs, { withFileTypes: true })) if (entry.isSymbolicLink()) this.linked.push(path.join(logs, entry.name));
      }
      const state = path.join(this.root, STATE_DIR);
      this.watchDir(state, (name) => name === null || STATE_FILES.has(name) || path.join(state, name) === this.index);
      this.walk(this.index, null);
      return true;
    } catch {
      this.close();
      return false;
    } finally {
      // Closed after the new watches are made: a folder watched by both is never unwatched in between.
      for (const watcher of old) watcher.close();
    }
  }

  /** Lets the event loop read the queue of events: the second immediate runs after a poll phase that reads it. */
  async settle(): Promise<void> {
    for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
  }

  /** Size and mtime of each linked-in file, to compare on the next use. */
  linkedState(): string {
    return this.linked
      .map((file) => {
        try {
          const s = statSync(file, { throwIfNoEntry: false });
          return s === undefined ? `${file}\u0000-` : `${file}\u0000${s.size}\u0000${s.mtimeMs}\u0000${s.ino}`;
        } catch {
          return `${file}\u0000?`;
        }
      })
      .join('\n');
  }

  close(): void {
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
    this.changes++;
  }

  /**
   * Watches `dir` and, below it, every folder: page folders (`rel` a vault-relative path: hidden folders, logs/ and
   * node_modules hold no pages) or all of the index folder's (`rel` null).
   */
  private walk(dir: string, rel: string | null): void {
    this.watchDir(dir, () => true);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) this.linked.push(full);
      if (!entry.isDirectory()) continue;
      if (rel === null) {
        this.walk(full, null);
      } else if (!entry.name.startsWith('.') && entry.name !== SKIPPED_DIR && !(rel === '' && entry.name === LOGS_DIR)) {
        this.walk(full, rel === '' ? entry.name : `${rel}/${entry.name}`);
      }
    }
  }

  /** One folder's watch, made before the folder is listed: each event `counts` says is one is a change. */
  private watchDir(dir: string, counts: (name: string | null) => boolean): void {
    const watcher = watch(dir, { persistent: false }, (_event, name) => {
      if (counts(name === null ? null : String(name))) this.changes++;
    });
    // A watched folder removed or unreadable: nothing under it is vouched for until the next arm.
    watcher.on('error', () => this.changes++);
    this.watchers.push(watcher);
  }
}
