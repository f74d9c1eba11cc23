/**
 * gatherer (src/dream/gather.ts): new entity pages gather from an index of the sources by their statements'
 * first word, and move exactly what gatherStatements over every source moves, in the same order.
 */
import { describe, expect, it } from 'vitest';
import { gatherer, gatherStatements } from '../../src/dream/gather.js';
import { Page } from '../../src/dream/page.js';

const front = (title: string): string[] => ['---', `title: "${title}"`, 'type: topic', 'tags: []', '---', `# ${title}`, ''];
const cite = (n: number): string => `[[2024-01-0${(n % 9) + 1}#^f-${String(n).padStart(10, '0')}]]`;

function sources(): Page[] {
  const lines = [
    'Diego is allergic to shellfish',
    "Diego's sister lives in Lisbon",
    'Diegoland is a theme park',
    'J. R. Smith plays the piano',
    'J. Doe moved away',
    '[[Ana Lima|Ana]] started a new job',
    'Ana Lima runs on Sundays',
    'Anaïs paints',
    'Zoë — the neighbour — waters the plants',
    '42 Street is closed on Mondays',
    'The team met Diego',
  ];
  // One statement a page (the index picks pages), and one page with them all.
  const one = lines.map((l, i) => new Page(`Topics/Page ${i}.md`, [...front(`Page ${i}`), '## Notes', '', `- ${l} ${cite(i)}`], false, ''));
  const all = new Page('Topics/General.md', [...front('General'), '## Notes', '', ...lines.map((l, i) => `- ${l} ${cite(100 + i)}`), '', '## Mentions', '', `- Diego said hello (see [[X]]) ${cite(999)}`], false, '');
  return [...one, all];
}

const targets: Array<[string, string[]]> = [
  ['Diego', []],
  ['J. R. Smith', ['J. R.']],
  ['Ana Lima', ['Ana']],
  ['Zoë', []],
  ['42 Street', []],
  ['Anaïs', []],
  ['Nobody', ['J. Doe', '→']],
];

const run = (gather: (target: Page, names: readonly string[]) => unknown, made: Page[]): unknown[] => made.map((target, n) => gather(target, [target.title, ...targets[n]![1]]));
const newPages = (): Page[] => targets.map(([title]) => new Page(`People/${title}.md`, front(title), true, ''));

describe('gatherer', () => {
  it('moves what gatherStatements over every source moves, from the same lines, in the same order', () => {
    const a = sources();
    const b = sources();
    const madeA = newPages();
    const madeB = newPages();
    const byIndex = run(gatherer(a), madeA);
    const byScan = run((target, names) => gatherStatements(target, names, b), madeB);
    expect(byIndex).toEqual(byScan);
    expect(a.map((p) => p.text())).toEqual(b.map((p) => p.text()));
    expect(madeA.map((p) => p.text())).toEqual(madeB.map((p) => p.text()));
    // It did move something: Diego's two statements, not Diegoland's nor the one naming him last.
    expect(madeA[0]!.text()).toContain("Diego's sister lives in Lisbon");
    expect(madeA[0]!.text()).not.toContain('Diegoland');
    expect(a[1]!.text()).toContain('- → [[Diego]]');
    expect(a[5]!.text()).toContain('- → [[Ana Lima]]');
    expect(a[3]!.text()).toContain('- → [[J. R. Smith]]');
  });
});
