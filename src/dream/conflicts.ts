/**
 * Same-day conflicts of a keyed fact on its page. Two values stated on one day are shown as written,
 * both cited, and neither stands under Current until a person decides (DESIGN §7: flag, never guess):
 *
 *   - [ ] **home city**: "Lisbon" [[…]] or "Porto" [[…]], both on 2026-06-04
 *
 * A person resolves one on the page: tick it to keep the later value, or write the right value under
 * `## Current` (a Current line for the subject always wins). The next dream then moves the losing
 * values to History and the ticked line with them (a person's edit is kept, not removed).
 */
import type { Fact } from '../logs/factlog.js';
import { cite } from './generate.js';
import { citationsIn, withoutCitations } from '../text/citation.js';
import { itemBody, subjectOf, type Keyed, type Page } from './page.js';
import type { Conflict } from './consolidator.js';

const LINE_RE = /^\s*- \[( |x|X)\] \*\*(.+?)\*\*: "(.*)" ((?:!?\[\[[^\]]+\]\] ?)+) or "(.*)" ((?:!?\[\[[^\]]+\]\] ?)+), both on (\d{4}-\d{2}-\d{2})/;

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').replace(/"/g, '”');

/** Puts the conflict on the page (the earlier line has left Current) and returns it for the review page. */
export function flagConflict(page: Page, earlier: string, fact: Fact, keyed: Keyed): Conflict {
  const before = subjectOf(withoutCitations(itemBody(earlier)))?.value ?? '';
  const earlierCites = citationsIn(earlier);
  page.append('Conflicts', `- [ ] **${oneLine(keyed.subject)}**: "${oneLine(before)}" ${earlierCites.join(' ')} or "${oneLine(keyed.value)}" ${cite(fact)}, both on ${fact.date}`);
  return {
    subject: keyed.subject,
    fact_ids: [...earlierCites.map((c) => /\^([A-Za-z0-9-]+)/.exec(c)![1]!), fact.id],
    note: `two values on ${fact.date}: "${before}" and "${keyed.value}"; neither is current until a person decides (tick the item on the page to keep the later, or write the value under Current)`,
  };
}

/** Follows the resolutions a person made: ticked conflicts, and conflicts whose subject a person wrote under Current. */
export function resolveConflicts(pages: Iterable<Page>): void {
  for (const page of pages) {
    for (const index of [...page.sectionLines('Conflicts')].reverse()) {
      const line = page.lines[index]!;
      const match = LINE_RE.exec(line);
      if (match === null || match[1] === ' ') continue;
      const [, , subject, first, firstCites, second, secondCites, date] = match as unknown as string[];
      const key = subjectOf(`${subject!}:: x`)?.key;
      const hasCurrent = page.sectionLines('Current').some((i) => subjectOf(itemBody(page.lines[i]!))?.key === key);
      page.lines.splice(index, 1);
      page.dropIfEmpty('Conflicts');
      page.append('History', `- ${subject!}: ${first!} ${firstCites!.trim()} (until ${date!})`);
      if (hasCurrent) page.append('History', `- ${subject!}: ${second!} ${secondCites!.trim()} (until ${date!})`);
      else page.append('Current', `- ${subject!}:: ${second!} ${secondCites!.trim()}`);
      page.append('History', line);
    }
  }
}
