/**
 * The files changed since a warm process's last index pass, for a process without a watcher of its own: the MCP
 * server, whose search after a `remember` otherwise stats every file of the vault (~5,200 at a million facts, issue
 * 31). inotify on each folder (folder-watch.ts) names the files; ChangeLedger says when the list is whole.
 * Linux and local file systems only (change-watch.ts `watchable`): elsewhere there is no tracker and every pass
 * stats every file.
 */
import { ChangeLedger, passClean } from './change-ledger.js';
import { watchable } from './change-watch.js';
import { FolderWatch } from './folder-watch.js';

export class ChangeTracker {
  private readonly changed = new Set<string>();
  private readonly ledger = new ChangeLedger();
  private readonly folders: FolderWatch;

  private constructor(root: string) {
    this.folders = new FolderWatch(
      root,
      {
        file: (rel) => this.changed.add(rel),
        missed: (rel) => {
          this.ledger.miss();
          this.changed.add(rel);
        },
      },
      false,
    );
    this.folders.arm();
  }

  /** A tracker of the vault at `root`, or null where inotify does not see every change. */
  static start(root: string): ChangeTracker | null {
    return watchable(root) ? new ChangeTracker(root) : null;
  }

  /**
   * Runs `pass` with the files changed since the last pass, or undefined when they cannot be vouched for. The event
   * queue is read first (two turns of the event loop: a write that ended before this began has its event there).
   */
  async pass<T>(pass: (changed: readonly string[] | undefined) => Promise<T>): Promise<T> {
    for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
    if (this.folders.linked) this.ledger.miss();
    const batch = [...this.changed];
    this.changed.clear();
    const changed = this.ledger.begin(batch);
    let clean = false;
    try {
      const result = await pass(changed);
      clean = passClean(result);
      return result;
    } finally {
      this.ledger.end(clean);
    }
  }

  close(): void {
    this.folders.close();
  }
}
