/**
 * What a warm process (the watcher, the daemon, `serve`, the MCP server) keeps between its index passes, so that the
 * pass after one `remember` costs the change, not the vault (issue 31): the table kept open (opening it cost a pass
 * 26-33 ms at a million facts), the row-hash shards it read or wrote (a month of logs, ~0.4 MB of JSON each), and
 * the manifest's summary as it last wrote it (~0.8 MB, 15-20 ms to read and check). Each is used only while it is
 * still what is on disk: the table's folder the same one, a shard of the digest the summary names, the summary's
 * file the one written (same inode, size and mtime: a write replaces the file, so another process's write is a new
 * inode).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { isRemote } from './location.js';
import { MANIFEST_FILE, type ManifestSummary, type ShardCache } from './manifest.js';
import { indexFilesFolder, type IndexStore } from './store.js';

export class WarmPasses {
  readonly shards: ShardCache = new Map();
  private kept: { uri: string; dimensions: number | null; folder: string; store: IndexStore } | null = null;
  private summary: { root: string; file: string; summary: ManifestSummary } | null = null;

  /** The table kept from the last pass, when it is of this index and its folder is the one it was opened in. */
  takeStore(uri: string, dimensions: number | null): IndexStore | null {
    const kept = this.kept;
    this.kept = null;
    if (kept === null) return null;
    if (kept.uri === uri && kept.dimensions === dimensions && kept.folder === folderIdentity(uri)) return kept.store;
    kept.store.close();
    return null;
  }

  /** Keeps a pass's table open for the next one (a table that does not exist yet is not kept: the next pass opens). */
  keepStore(store: IndexStore, uri: string, dimensions: number | null): void {
    this.kept?.store.close();
    this.kept = null;
    const folder = folderIdentity(uri);
    if (!store.exists || folder === null) {
      store.close();
      return;
    }
    this.kept = { uri, dimensions, folder, store };
  }

  /** The summary this process last wrote, when the file on disk is still that one (dirty mark not applied). */
  summaryOf(root: string): ManifestSummary | null {
    const held = this.summary;
    if (held === null || held.root !== root || held.file !== fileIdentity(path.join(root, MANIFEST_FILE))) return null;
    return held.summary;
  }

  /** Keeps the summary a pass wrote, with the identity of the file it wrote. */
  keepSummary(root: string, summary: ManifestSummary): void {
    const file = fileIdentity(path.join(root, MANIFEST_FILE));
    this.summary = file === null ? null : { root, file, summary };
  }

  /** Drops everything (after a pass that failed, or one that rebuilt the table): the next pass reads from disk. */
  reset(): void {
    this.kept?.store.close();
    this.kept = null;
    this.summary = null;
    this.shards.clear();
  }

  close(): void {
    this.reset();
  }
}

/** The table folder's inode and change time: a table dropped and built again (a rebuild elsewhere) is another folder. */
function folderIdentity(uri: string): string | null {
  if (isRemote(uri)) return null; // a remote table is not kept: nothing here says another machine did not replace it
  try {
    const s = statSync(path.dirname(indexFilesFolder(uri)), { bigint: true });
    return `${s.dev}:${s.ino}:${s.birthtimeNs}`;
  } catch {
    return null;
  }
}

function fileIdentity(file: string): string | null {
  try {
    const s = statSync(file, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return null;
  }
}
