/**
 * What each fact of a batch says, as the statement a page holds (issue 25): the statement writer
 * (statement.ts) run once per fact, with who "I" and "you" are. A speaker's label names "I"; in a log batch
 * of exactly two speakers (an exchange) "you" is the other one; a fact with no label speaks for the vault's
 * owner (config `owner`), or keeps its first person when no owner is named. A reply that only makes sense
 * with the question before it is stated with that question (exchanges.ts).
 */
import type { Fact } from '../logs/factlog.js';
import { speakerOf } from './entities.js';
import { statedExchanges } from './exchanges.js';
import { loadStatementWriter } from './statement.js';

export interface Said {
  /** The statement, standing alone. */
  text: string;
  speaker: string | null;
  /** Nothing durable in it (a greeting, thanks, a bare question): filed as small talk, not on entity pages. */
  chatter: boolean;
  /** The question this statement answers, cited with it (exchanges.ts). */
  question?: Fact;
}

/** `facts` in log order; `tick` is called between facts: a long batch yields to the event loop there (slice.ts). */
export async function sayAll(facts: readonly Fact[], owner: string | null, tick?: () => Promise<void>): Promise<Map<string, Said>> {
  const write = await loadStatementWriter();
  const speakers = new Map<string, Set<string>>();
  const exchange = (fact: Fact): string => `${fact.date}\u0000${fact.batch}\u0000${fact.source}`;
  const labels = new Map<string, string | null>();
  for (const fact of facts) {
    const speaker = speakerOf(fact.text);
    labels.set(fact.id, speaker);
    if (speaker === null) continue;
    const set = speakers.get(exchange(fact)) ?? new Set<string>();
    set.add(speaker);
    speakers.set(exchange(fact), set);
  }
  const out = new Map<string, Said>();
  for (const fact of facts) {
    const speaker = labels.get(fact.id) ?? null;
    const present = [...(speakers.get(exchange(fact)) ?? [])];
    const listener = speaker !== null && present.length === 2 ? (present.find((s) => s !== speaker) ?? null) : null;
    const statement = write(fact.text, { date: fact.date, owner, listener });
    out.set(fact.id, { text: statement.text, speaker: statement.speaker, chatter: statement.chatter });
    await tick?.();
  }
  for (const [id, { question, text }] of statedExchanges(facts, out)) out.set(id, { ...out.get(id)!, text, chatter: false, question });
  return out;
}
