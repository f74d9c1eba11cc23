/** exchanges.ts: which replies are stated with the question before them. */
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/logs/factlog.js';
import { statedExchanges, type Spoken } from '../../src/dream/exchanges.js';

let line = 0;
const fact = (text: string, batch = 1): Fact => ({ id: `f-${++line}`, date: '2026-03-02', time: '10:00', batch, source: 'test', category: 'fact', text, tags: [], line, explicitId: true });
const spoken = (facts: readonly Fact[], chatter: ReadonlySet<string> = new Set()): Map<string, Spoken> =>
  new Map(facts.map((f) => [f.id, { text: f.text.replace(/^\w+: /u, ''), speaker: /^(\w+):/u.exec(f.text)?.[1] ?? null, chatter: chatter.has(f.id) }]));

describe('statedExchanges', () => {
  it('states a short reply with the question that ends the other speaker\'s turn', () => {
    const facts = [fact('Maria: We started boot camp. How often do you guys work out?'), fact('John: Three times a week; it keeps us on track.')];
    const out = statedExchanges(facts, spoken(facts));
    expect(out.get(facts[1]!.id)).toEqual({ question: facts[0], text: 'Asked “How often do you guys work out?”, John said: Three times a week; it keeps us on track.' });
  });

  it('leaves a long reply, a reply by the same speaker, another batch, and a reply that asks back', () => {
    const long = [fact('Maria: Is there an author whose work inspires you?'), fact(`John: ${'J.K. Rowling is such an inspiring writer, her books are so captivating. '.repeat(2).trim()}`)];
    const same = [fact('Maria: How often do you work out?'), fact('Maria: Three times a week for us.')];
    const batches = [fact('Maria: How often do you work out?', 1), fact('John: Three times a week.', 2)];
    const back = [fact('Maria: How often do you work out?'), fact('John: Three times a week. And you?')];
    for (const facts of [long, same, batches, back]) expect(statedExchanges(facts, spoken(facts)).size).toBe(0);
  });

  it('makes a bare yes to a yes/no question content; a bare reaction to an open question stays small talk', () => {
    const yes = [fact('Maria: Did you go to the Boston concert?'), fact('John: Yes! It was amazing.')];
    expect(statedExchanges(yes, spoken(yes, new Set([yes[1]!.id]))).get(yes[1]!.id)?.text).toBe('Asked “Did you go to the Boston concert?”, John said: Yes! It was amazing.');
    const open = [fact('Maria: What did you think of the concert?'), fact('John: Wow, amazing!')];
    expect(statedExchanges(open, spoken(open, new Set([open[1]!.id]))).size).toBe(0);
  });

  it('is deterministic', () => {
    const facts = [fact('Maria: How often do you guys work out?'), fact('John: Three times a week.')];
    expect([...statedExchanges(facts, spoken(facts))]).toEqual([...statedExchanges(facts, spoken(facts))]);
  });
});
