/**
 * Whether a warm process can hand an index pass the list of files changed since its last pass (watch.ts, the
 * MCP server's change-tracker.ts), or must have it stat every file (reindex.ts `changed`).
 */

/** How often a warm process's pass stats every file even when the watcher vouches for its list. */
export const FULL_STAT_EVERY_MS = 10 * 60_000;

/**
 * Whether the watcher can name every file changed since its last pass began. Not before a first pass has run
 * while watching (changes before the watch are unknown), nor after the watcher reported an error (an event may be
 * lost: the inotify queue overflowed, a watch could not be added), nor after a folder was added or removed (its
 * files' events may be missing or reported as the folder's), nor after a pass that failed or skipped a file (the
 * manifest may not hold every file as it was statted), nor when the last pass that statted every file began more than
 * `everyMs` ago: an event can be lost without a word (Node's fs.watch drops inotify's IN_Q_OVERFLOW), and a cold CLI
 * command's check would repair such a miss but a warm server alone never would.
 */
export class ChangeLedger {
  private baseline = false;
  private missed = false;
  /** When the last pass that statted every file and ended clean began (null: none yet). */
  private statted: number | null = null;
  /** The latest begin of a pass handed no list among those running: it becomes `statted` if all end clean. */
  private fullBegun: number | null = null;
  private readonly everyMs: number;
  private readonly now: () => number;

  /** Passes begun and not ended (a warm Vault's searches may overlap; the watcher's passes never do). */
  private running = 0;
  /**
   * A pass of overlapping ones failed: no base for the next. One that began while another ran stats every file, so
   * once all end clean the latest begin is a base: every file changed since is in the list.
   */
  private spoiled = false;

  /** `now`: a monotonic clock in ms (tests pass their own). */
  constructor(options: { everyMs?: number; now?: () => number } = {}) {
    this.everyMs = options.everyMs ?? FULL_STAT_EVERY_MS;
    this.now = options.now ?? (() => performance.now());
  }

  /** An event the watcher cannot account file by file, or an error: the next pass stats every file. */
  miss(): void {
    this.missed = true;
  }

  /** A pass begins with `batch`: what to hand it (undefined: stat every file). Changes from here count for the next. */
  begin(batch: readonly string[]): readonly string[] | undefined {
    const at = this.now();
    const due = this.statted === null || at - this.statted >= this.everyMs;
    const vouched = this.baseline && !this.missed && this.running === 0 && !due;
    this.running++;
    this.baseline = false;
    this.missed = false;
    if (!vouched) this.fullBegun = Math.max(this.fullBegun ?? at, at);
    return vouched ? batch : undefined;
  }

  /** The pass ended; `clean`: it finished and skipped no file, so the next pass may start from it. */
  end(clean: boolean): void {
    this.running = Math.max(0, this.running - 1);
    if (!clean) this.spoiled = true;
    if (this.running > 0) return;
    this.baseline = !this.spoiled;
    if (!this.spoiled && this.fullBegun !== null) this.statted = this.fullBegun;
    this.fullBegun = null;
    this.spoiled = false;
  }
}


/** True when a pass's result says it finished having read every file it had to (reindex.ts: `files.skipped`). */
export function passClean(result: unknown): boolean {
  const files = (result as { files?: { skipped?: unknown } } | null | undefined)?.files;
  return files !== undefined && files.skipped === 0;
}
