/**
 * The changes of state a log's facts (and a page's dated statements) state (text/state-change.ts), kept with the
 * file's row hashes (manifest.ts): reading one tags its clauses with compromise, whose load and tagging cost the
 * pass after one `remember` ~1 s of CPU at a million facts (issue 31), for a day's log of which one fact was new.
 * A reading depends on the text alone, so a file projected again reads only texts it did not hold before, and
 * loads compromise only when one of them has a cue phrase. Kept by text, not by fact id or line: a fact edited by
 * hand is read again.
 * A change to the reader that changes readings changes rows, which asks for a rebuild (manifest.ts VERSION)
 * whose projection reads every text afresh.
 */
import { readStateChange, stateChangeCued, subjectWords } from '../text/state-change.js';

/** A text's sure reading as a row uses it: the subject key and the words a question about it uses. */
export interface LogReading {
  key: string;
  words: string;
}

/** A file's readings as its shard keeps them: each cued text, its key ('' when no sure reading) and its words. */
export type StoredReadings = Array<[text: string, key: string, words: string]>;

/** One projection's readings of a file: those of its last projection first, then the reader. */
export class ReadingMemo {
  private readonly before = new Map<string, LogReading | null>();
  private readonly now = new Map<string, LogReading | null>();

  constructor(previous?: StoredReadings) {
    for (const [text, key, words] of previous ?? []) this.before.set(text, key === '' ? null : { key, words });
  }

  /** The sure reading of a fact's text, or null. */
  read(text: string): LogReading | null {
    if (!stateChangeCued(text)) return null;
    let reading = this.now.has(text) ? this.now.get(text) : this.before.get(text);
    if (reading === undefined) {
      const change = readStateChange(text);
      reading = change?.sure === true ? { key: change.key, words: subjectWords(change) } : null;
    }
    this.now.set(text, reading);
    return reading;
  }

  /** The readings of the texts read since this memo was made, in the order first read: what the shard keeps now. */
  stored(): StoredReadings {
    return [...this.now].map(([text, reading]) => [text, reading?.key ?? '', reading?.words ?? '']);
  }
}
