/**
 * summaries.ts: the grammar of a summary of lists — which clauses gather (a finite verb with the entity's name as
 * its subject and a noun phrase after it), what the item is (the noun phrase without determiners, trailing words or
 * dates), its date (the one its sentence names, else the day said), and which gather nothing.
 */
import { describe, expect, it } from 'vitest';
import { Page } from '../../src/dream/page.js';
import { summarize, writeSummaries } from '../../src/dream/summaries.js';

const source = (body: string, date: string, order: number): { body: string; cites: string[]; date: string; order: number } => ({ body, cites: [`[[${date}#^f-${order}]]`], date, order });

describe('summarize', () => {
  it('gathers one verb with its preposition, first said first, with the date each sentence names', () => {
    const lines = summarize('Caroline', [
      source('So much happened - Caroline went to an LGBTQ conference two days ago (10 July 2023) and it was special.', '2023-07-12', 2),
      source('Hi. The week of 26 June 2023 Caroline went to an LGBTQ+ pride parade. Everyone was happy.', '2023-07-03', 1),
      source('Caroline went to a council meeting.', '2023-08-01', 3),
    ]);
    expect(lines).toEqual([
      '- Caroline went to: LGBTQ pride parade (the week of 26 June 2023), LGBTQ conference (10 July 2023), council meeting (1 August 2023). [[2023-07-03#^f-1]] [[2023-07-12#^f-2]] [[2023-08-01#^f-3]]',
    ]);
  });

  it('needs two things from two statements', () => {
    expect(summarize('Melanie', [source('Melanie plays clarinet.', '2023-05-01', 1)])).toEqual([]);
    expect(summarize('Melanie', [source('Melanie plays clarinet.', '2023-05-01', 1), source('Melanie plays the violin too.', '2023-06-01', 2)])).toEqual([
      '- Melanie plays: clarinet (1 May 2023), violin (1 June 2023). [[2023-05-01#^f-1]] [[2023-06-01#^f-2]]',
    ]);
  });

  it('a thing said twice is listed once, citing both statements', () => {
    const lines = summarize('Melanie', [source('Melanie plays clarinet.', '2023-05-01', 1), source('Melanie plays violin.', '2023-06-01', 2), source('Melanie plays clarinet in a band.', '2023-07-01', 3)]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('clarinet (1 May 2023), violin (1 June 2023).');
  });

  it('light verbs, negations, auxiliaries, possessives and pronoun objects gather nothing', () => {
    const bodies = ['Melanie had a quiet weekend.', 'Melanie had a long week.', 'Melanie did not visit Paris.', 'Melanie never visited Rome.', "Melanie's kids visited the zoo.", "Melanie's kids visited the farm.", 'Melanie is going to a concert.', 'Melanie is going to a fair.', 'Melanie loves it.', 'Melanie loves them.'];
    expect(summarize('Melanie', bodies.map((b, i) => source(b, '2023-05-01', i)))).toEqual([]);
  });
});

describe('writeSummaries', () => {
  const page = (lines: string[]): Page => new Page('3_Personal/Melanie.md', lines, true, '');
  const head = ['---', 'title: "Melanie"', 'type: person', '---', '# Melanie', '', '**Melanie** is a person with 2 statements in this vault.', ''];

  it('puts the section after the lead, before the other sections, and rewrites it in place', () => {
    const p = page([...head, '## Notes', '', '- Melanie plays clarinet. [[2023-05-01#^f-1]]', '- Melanie plays violin. [[2023-06-01#^f-2]]']);
    writeSummaries(p, []);
    const at = p.lines.indexOf('## At a glance');
    expect(at).toBeGreaterThan(p.lines.indexOf(head[6]!));
    expect(at).toBeLessThan(p.lines.indexOf('## Notes'));
    const once = p.lines.join('\n');
    writeSummaries(p, []);
    expect(p.lines.join('\n')).toBe(once);
  });

  it('drops the section once nothing gathers, and leaves a part or an untyped page alone', () => {
    const p = page([...head, '## At a glance', '', '- Melanie plays: a, b. [[2023-05-01#^f-1]]', '', '## Notes', '', '- Melanie plays clarinet. [[2023-05-01#^f-1]]']);
    writeSummaries(p, []);
    expect(p.lines).not.toContain('## At a glance');
    const part = page(['---', 'type: person', 'part_of: "[[Melanie]]"', '---', '# Melanie — Hobbies', '## Notes', '- Melanie plays clarinet. [[2023-05-01#^f-1]]', '- Melanie plays violin. [[2023-06-01#^f-2]]']);
    const before = part.lines.join('\n');
    writeSummaries(part, []);
    expect(part.lines.join('\n')).toBe(before);
  });

  it("a hub gathers its parts' statements", () => {
    const hub = page([...head, '## Parts', '', '- [[Melanie — Hobbies]]']);
    const part = new Page('3_Personal/Melanie — Hobbies.md', ['---', 'type: person', 'part_of: "[[Melanie]]"', '---', '# Melanie — Hobbies', '', '## Notes', '', '- Melanie plays clarinet. [[2023-05-01#^f-1]]', '- Melanie plays violin. [[2023-06-01#^f-2]]'], true, '');
    writeSummaries(hub, [part]);
    expect(hub.lines).toContain('- Melanie plays: clarinet (1 May 2023), violin (1 June 2023). [[2023-05-01#^f-1]] [[2023-06-01#^f-2]]');
  });
});
