/**
 * Whether a warm process can hand an index pass the list of files changed since its last pass (watch.ts, the
 * MCP server's change-tracker.ts), or must have it stat every file (reindex.ts `changed`).
 */

/**
 * Whether the watcher can name every file changed since its last pass began. Not before a first pass has run
 * while watching (changes before the watch are unknown), nor after the watcher reported an error (an event may be
 * lost: the inotify queue overflowed, a watch could not be added), nor after a folder was added or removed (its
 * files' events may be missing or reported as the folder's), nor after a pass that failed or skipped a file (the
 * manifest may not hold every file as it was statted).
 */
export class ChangeLedger {
  private baseline = false;
  private missed = false;
  /** Passes begun and not ended (a warm Vault's searches may overlap; the watcher's passes never do). */
  private running = 0;
  /**
   * A pass of overlapping ones failed: no base for the next. One that began while another ran stats every file, so
   * once all end clean the latest begin is a base: every file changed since is in the list.
   */
  private spoiled = false;

  /** An event the watcher cannot account file by file, or an error: the next pass stats every file. */
  miss(): void {
    this.missed = true;
  }

  /** A pass begins with `batch`: what to hand it (undefined: stat every file). Changes from here count for the next. */
  begin(batch: readonly string[]): readonly string[] | undefined {
    const vouched = this.baseline && !this.missed && this.running === 0;
    this.running++;
    this.baseline = false;
    this.missed = false;
    return vouched ? batch : undefined;
  }

  /** The pass ended; `clean`: it finished and skipped no file, so the next pass may start from it. */
  end(clean: boolean): void {
    this.running = Math.max(0, this.running - 1);
    if (!clean) this.spoiled = true;
    if (this.running > 0) return;
    this.baseline = !this.spoiled;
    this.spoiled = false;
  }
}


/** True when a pass's result says it finished having read every file it had to (reindex.ts: `files.skipped`). */
export function passClean(result: unknown): boolean {
  const files = (result as { files?: { skipped?: unknown } } | null | undefined)?.files;
  return files !== undefined && files.skipped === 0;
}
