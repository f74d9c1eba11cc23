/**
 * Small talk (issue 25): a turn with nothing durable in it ("Catch ya later!", "Thanks, Mel!", "How was
 * it?") is no statement about anyone, so it stays off entity pages, where it would bury what is known. It is
 * still cited, so coverage holds and search still reaches it through its words: on a record page per month,
 * `4_Resources/Small talk/Small talk 2023-05.md`, one line per exchange (a log batch) naming who took part
 * and citing each turn. The turns themselves are one click away in their logs.
 */
import type { Fact } from '../logs/factlog.js';
import { citedIds } from '../text/citation.js';
import { dateWords, monthWords } from '../text/date-words.js';
import { cite } from './generate.js';
import { Page } from './page.js';
import { RECORDS_DIR as RECORDS_FOLDER } from '../vault/layout.js';

export const RECORDS_DIR = RECORDS_FOLDER.replace(/\/$/u, '');
const TITLE = 'Small talk';

export const recordRel = (date: string): string => `${RECORDS_DIR}/${TITLE} ${date.slice(0, 7)}.md`;
export const isRecordPage = (rel: string): boolean => rel.startsWith(`${RECORDS_DIR}/`);

export interface Chatter {
  fact: Fact;
  /** Who said it (a speaker label), if known. */
  speaker: string | null;
}

/**
 * Files the batch's small talk on its record pages: one line per exchange (date and log batch), made or
 * extended with the new citations. `open` returns the page of a path, making it when new. Returns the pages
 * changed, each with the newest date filed on it.
 */
export function fileChatter(chatter: readonly Chatter[], open: (rel: string, make: () => Page) => Page): Map<Page, string> {
  const exchanges = new Map<string, Chatter[]>();
  for (const item of chatter) {
    const key = `${item.fact.date}\u0000${item.fact.batch}\u0000${item.fact.source}`;
    exchanges.set(key, [...(exchanges.get(key) ?? []), item]);
  }
  const touched = new Map<Page, string>();
  for (const items of exchanges.values()) {
    const { date, source } = items[0]!.fact;
    const page = open(recordRel(date), () => newRecordPage(date));
    const head = `- ${dateWords(date)}, ${source}`;
    const at = page.sectionLines('Notes').find((i) => page.lines[i]!.startsWith(`${head}:`));
    const have = new Set(at === undefined ? [] : citedIds(page.lines[at]!));
    const fresh = items.filter((i) => !have.has(i.fact.id));
    if (fresh.length === 0) continue;
    const cites = fresh.map((i) => cite(i.fact)).join(' ');
    if (at !== undefined) page.lines[at] = `${page.lines[at]!.trimEnd()} ${cites}`;
    else page.append('Notes', `${head}: ${who(items)} ${cites}`);
    if ((touched.get(page) ?? '') < date) touched.set(page, date);
  }
  return touched;
}

function who(items: readonly Chatter[]): string {
  const speakers = [...new Set(items.map((i) => i.speaker).filter((s): s is string => s !== null))];
  const names = speakers.length === 0 ? '' : speakers.length === 1 ? `${speakers[0]} ` : `${speakers.slice(0, -1).join(', ')} and ${speakers.at(-1)} `;
  return `${names}${speakers.length === 1 ? 'said' : 'exchanged'} greetings, thanks and questions (${items.length} ${items.length === 1 ? 'turn' : 'turns'}).`;
}

function newRecordPage(date: string): Page {
  const title = `${TITLE} ${date.slice(0, 7)}`;
  // What the page is says its frontmatter: a line of prose would be a claim citing nothing.
  const summary = `Greetings, thanks, questions and other small talk of ${monthWords(date)}, cited here rather than on entity pages.`;
  const front = ['---', `title: ${JSON.stringify(title)}`, 'type: record', 'tags: [small-talk]', `summary: ${JSON.stringify(summary)}`, 'status: active', `created: ${date}`, `updated: ${date}`, '---', `# ${title}`];
  return new Page(recordRel(date), front, true, '');
}
