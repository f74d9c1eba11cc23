/**
 * The facts a page's lines cite, read from their logs (read only): a citation counts only when its log
 * holds a fact with that id, so a made-up `[[2026-06-01#^f-anything]]` cites nothing.
 */
import { readLog, type Fact } from '../logs/factlog.js';
import { CITATION_RE } from '../text/citation.js';

/** Reads logs once per date for one run's checks. */
export class CitedFacts {
  private readonly logs = new Map<string, Promise<Map<string, Fact>>>();

  constructor(private readonly root: string) {}

  /** The facts `text` cites that exist in the log of the date each citation names. */
  async of(text: string): Promise<Fact[]> {
    const out: Fact[] = [];
    for (const match of text.matchAll(CITATION_RE)) {
      const fact = (await this.log(match[1]!)).get(match[2]!);
      if (fact !== undefined) out.push(fact);
    }
    return out;
  }

  private log(date: string): Promise<Map<string, Fact>> {
    let held = this.logs.get(date);
    if (held === undefined) {
      held = readLog(this.root, date).then(
        (log) => new Map(log.facts.map((f) => [f.id, f])),
        () => new Map<string, Fact>(),
      );
      this.logs.set(date, held);
    }
    return held;
  }
}
