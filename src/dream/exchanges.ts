/**
 * A reply that only makes sense with the question before it, stated with that question (issue 25): in a
 * two-person exchange, "Three times a week; it keeps us on track." said by John right after Maria asked
 * "How often do you guys work out?" becomes "Asked “How often do you guys work out?”, John said: Three
 * times a week; it keeps us on track." A bare "Yes! It was amazing." to "Did you go to the concert?"
 * says something once the question is with it, so it is no longer small talk. The question is quoted as
 * asked ("you" is then right; the asker is not named: the exchange has two people, and their name would
 * draw searches about them), and the statement cites both lines (offline.ts).
 * Pure and deterministic.
 */
import type { Fact } from '../logs/factlog.js';
import type { Page } from './page.js';
import { cite } from './generate.js';

/**
 * A reply this long or shorter needs its question to be understood ("Three times a week; it keeps us on
 * track."). Longer ones mostly stand alone, and quoting the question only lengthens them: on LoCoMo 0–6, also
 * taking replies up to 160 characters that open with "it", "they" or "that" cost answers within a reading
 * budget (415 of 762 found against 420).
 */
const SHORT_REPLY_CHARS = 80;
/** A question longer than this is not quoted (it would outweigh the reply). */
const MAX_QUESTION_CHARS = 120;
/** A reply opening with one of these answers a yes/no question. */
const YES_NO_RE = /^(?:yes|yeah|yep|yup|no|nope|definitely|absolutely|of course|sure|totally)\b/iu;
/** A question that asks yes or no: it opens with an auxiliary verb. */
const YES_NO_QUESTION_RE = /^(?:do|does|did|is|are|was|were|have|has|had|can|could|will|would|should|shall)\b/iu;

export interface Exchange {
  /** The question's fact (cited with the reply). */
  question: Fact;
  /** The statement that replaces the reply's. */
  text: string;
}

export interface Spoken {
  /** The statement writer's text: for small talk, the turn as said without its label and interjections. */
  text: string;
  speaker: string | null;
  chatter: boolean;
}

/** The fact's turn as said, without its `Name: ` label. */
const bodyOf = (fact: Fact, speaker: string): string => fact.text.slice(fact.text.indexOf(`${speaker}:`) + speaker.length + 1).trim();

/** The last sentence of a turn, when it asks. */
function lastQuestion(text: string): string | null {
  const sentences = text.trim().split(/(?<=[.!?…])\s+/u);
  const last = sentences.at(-1)?.trim() ?? '';
  if (!last.endsWith('?') || last.length > MAX_QUESTION_CHARS || last.split(/\s+/u).length < 3) return null;
  return last;
}

/**
 * For each reply in `facts` (in log order) that needs the question asked just before it by the other
 * speaker of the same exchange (same day, batch and source), the statement with its question.
 */
export function statedExchanges(facts: readonly Fact[], spoken: ReadonlyMap<string, Spoken>): Map<string, Exchange> {
  const out = new Map<string, Exchange>();
  const exchange = (fact: Fact): string => `${fact.date}\u0000${fact.batch}\u0000${fact.source}`;
  for (let i = 1; i < facts.length; i++) {
    const [before, reply] = [facts[i - 1]!, facts[i]!];
    const asked = spoken.get(before.id);
    const said = spoken.get(reply.id);
    if (asked === undefined || said === undefined || asked.speaker === null || said.speaker === null) continue;
    if (asked.speaker === said.speaker || exchange(before) !== exchange(reply)) continue;
    const question = lastQuestion(bodyOf(before, asked.speaker));
    if (question === null) continue;
    const body = bodyOf(reply, said.speaker);
    if (body.endsWith('?')) continue;
    let answer: string | null = null;
    if (!said.chatter) {
      if (said.text.length <= SHORT_REPLY_CHARS) answer = said.text;
    } else if (YES_NO_QUESTION_RE.test(question) && YES_NO_RE.test(body) && !/\?/u.test(body)) {
      answer = body;
    }
    if (answer === null) continue;
    out.set(reply.id, { question: before, text: `Asked “${question}”, ${said.speaker} said: ${answer}` });
  }
  return out;
}

/** The reply's new line on `page` also cites the question it answers. */
export function citeQuestion(page: Page, line: string, question: Fact): void {
  const i = page.lines.lastIndexOf(line);
  if (i >= 0) page.lines[i] = `${line} ${cite(question)}`;
}
