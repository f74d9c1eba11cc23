/**
 * The watcher's eyes on Linux (watch.ts): an inotify watch (fs.watch) on every folder that can hold a file the index
 * reads: the vault root, each page folder, logs/, and .vaultkeeper/ for the tombstones. Each event names its file,
 * where chokidar read the whole folder again on every event in it: 5,000 lstat calls in logs/ for each `remember`
 * at a million facts, 120-200 ms of the watcher's CPU (issue 31). Used where inotify reports every change made on
 * this machine (change-watch.ts `watchable`); elsewhere the watcher uses chokidar.
 */
import { lstatSync, readdirSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

const LOGS_DIR = 'logs';
const STATE_DIR = '.vaultkeeper';
const SKIPPED_DIR = 'node_modules';
const TOMBSTONES = 'tombstones.jsonl';

export interface FolderEvents {
  /** A file the index may read changed (vault-relative, `/`-separated): a markdown file, or the tombstones. */
  file(rel: string): void;
  /**
   * Something not accountable file by file: a folder added, removed or replaced (its files come or go without
   * events of their own), an event with no name, a watch's error. The watches are renewed before this is called.
   */
  missed(rel: string): void;
}

export class FolderWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private closed = false;
  /** A markdown file linked in from elsewhere: inotify does not see its target change, so no list of changes is whole. */
  linked = false;

  constructor(
    private readonly root: string,
    private readonly events: FolderEvents,
    /** False: the watches do not keep the process alive (a server that ends when its input does). */
    private readonly persistent = true,
  ) {}

  /** Watches every folder not yet watched and drops the watches of folders gone; each folder watched before it is listed. */
  arm(): void {
    if (this.closed) return;
    const seen = new Set<string>();
    this.linked = false;
    this.walk('', seen);
    const state = path.join(this.root, STATE_DIR);
    if (isDirectory(state)) {
      seen.add(STATE_DIR);
      this.watchDir(STATE_DIR);
    }
    for (const [rel, watcher] of this.watchers) {
      if (seen.has(rel)) continue;
      watcher.close();
      this.watchers.delete(rel);
    }
  }

  close(): void {
    this.closed = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private walk(rel: string, seen: Set<string>): void {
    const dir = rel === '' ? this.root : path.join(this.root, rel);
    seen.add(rel);
    this.watchDir(rel);
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // gone since: its parent's event says so
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === SKIPPED_DIR) continue;
      if (entry.isSymbolicLink() && entry.name.endsWith('.md')) this.linked = true;
      // logs/ holds no folders the index reads; every other folder may hold pages.
      if (entry.isDirectory() && rel !== LOGS_DIR) this.walk(rel === '' ? entry.name : `${rel}/${entry.name}`, seen);
    }
  }

  private watchDir(rel: string): void {
    if (this.watchers.has(rel)) return;
    const dir = rel === '' ? this.root : path.join(this.root, rel);
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: this.persistent }, (_event, name) => this.onEvent(rel, name === null ? null : String(name)));
    } catch {
      this.events.missed(rel);
      return;
    }
    watcher.on('error', () => {
      watcher.close();
      if (this.watchers.get(rel) === watcher) this.watchers.delete(rel);
      this.renew(rel);
    });
    this.watchers.set(rel, watcher);
  }

  private onEvent(dirRel: string, name: string | null): void {
    if (this.closed) return;
    if (name === null) {
      this.renew(dirRel);
      return;
    }
    const rel = dirRel === '' ? name : `${dirRel}/${name}`;
    if (dirRel === STATE_DIR) {
      if (name === TOMBSTONES) this.events.file(rel);
      return;
    }
    if (name.endsWith('.md')) {
      this.events.file(rel);
      return;
    }
    // Editors' temporary files, hidden folders: nothing the index reads.
    if (name.startsWith('.') || name === SKIPPED_DIR) return;
    // A folder made, moved in or out, or removed (then not on disk, and watched until now).
    if (isDirectory(path.join(this.root, rel)) || this.watchers.has(rel) || (dirRel === '' && name === STATE_DIR)) this.renew(rel);
  }

  private renew(rel: string): void {
    this.arm();
    this.events.missed(rel);
  }
}

function isDirectory(file: string): boolean {
  try {
    return lstatSync(file).isDirectory();
  } catch {
    return false;
  }
}
