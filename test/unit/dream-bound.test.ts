/** Bounded pages (src/dream/bound.ts): a hub of numbered parts sends later lines on to its parts. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boundPages, MAX_PAGE_BYTES, wholePages } from '../../src/dream/bound.js';
import { classifyChanges } from '../../src/dream/checks.js';
import { Page } from '../../src/dream/page.js';

const DAY = '2026-01-05';
const note = (n: number): string => `- Caroline: turn ${n}, about the long walk by the river and the garden that needs weeding [[${DAY}#^f-${String(n).padStart(10, '0')}]]`;
const front = (title: string, extra: readonly string[] = []): string[] => ['---', `title: "${title}"`, 'type: person', 'tags: []', ...extra, '---', `# ${title}`, ''];

/** A day hub whose notes were split into numbered parts (2) and (3), as a dream left it; `(3)` holds `inLast` notes. */
function dayHub(inLast: number): Map<string, Page> {
  const title = `Caroline ${DAY}`;
  const pages = new Map<string, Page>();
  const hub = new Page(`3_Personal/${title}.md`, [...front(title), '## Parts', '', `- [[${title} (2)]]`, `- [[${title} (3)]]`], false, '');
  pages.set(hub.rel, hub);
  const part = (k: number, notes: number[]): Page =>
    new Page(`3_Personal/${title} (${k}).md`, [...front(`${title} (${k})`, [`part_of: "[[${title}]]"`]), `Part of [[${title}]].`, '', '## Notes', '', ...notes.map(note)], false, '');
  for (const [k, notes] of [
    [2, Array.from({ length: 60 }, (_, i) => i)],
    [3, Array.from({ length: inLast }, (_, i) => 60 + i)],
  ] as const) {
    const p = part(k, notes);
    pages.set(p.rel, p);
  }
  return pages;
}

describe('boundPages on a hub of numbered parts', () => {
  it('moves a later note from the hub to its last part, not onto the hub', () => {
    const pages = dayHub(5);
    const hub = pages.get(`3_Personal/Caroline ${DAY}.md`)!;
    hub.append('Notes', note(500));
    boundPages(pages);
    expect(hub.text()).not.toContain('turn 500');
    expect(hub.text()).not.toContain('## Notes');
    expect(pages.get(`3_Personal/Caroline ${DAY} (3).md`)!.text()).toContain('turn 500');
    expect(pages.get(`3_Personal/Caroline ${DAY} (2).md`)!.changed()).toBe(false);
    expect(pages.size).toBe(3);
  });

  it('starts the next numbered part when the last is full, links it from the hub, and keeps every part in bounds', () => {
    const pages = dayHub(60);
    const hub = pages.get(`3_Personal/Caroline ${DAY}.md`)!;
    const later = Array.from({ length: 90 }, (_, i) => 1000 + i);
    for (const n of later) hub.append('Notes', note(n));
    boundPages(pages);
    expect(hub.text()).not.toContain('## Notes');
    expect(hub.text()).toMatch(/- \[\[Caroline 2026-01-05 \(3\)\]\]\n- \[\[Caroline 2026-01-05 \(4\)\]\]/);
    const fourth = pages.get(`3_Personal/Caroline ${DAY} (4).md`);
    expect(fourth?.text()).toContain('part_of: "[[Caroline 2026-01-05]]"');
    const all = [...pages.values()].map((p) => p.text()).join('\n');
    for (const n of later) expect(all.split(`turn ${n},`).length - 1, `turn ${n}`).toBe(1);
    for (const page of pages.values()) {
      expect(Buffer.byteLength(page.text()), page.rel).toBeLessThanOrEqual(MAX_PAGE_BYTES);
      expect(page.text().split('\n').length, page.rel).toBeLessThanOrEqual(200);
    }
    // The order of the notes holds across parts: the third part's last note precedes the fourth's first.
    const third = pages.get(`3_Personal/Caroline ${DAY} (3).md`)!.text();
    const lastOfThird = Number([...third.matchAll(/turn (\d+),/g)].at(-1)![1]);
    const firstOfFourth = Number(/turn (\d+),/.exec(fourth!.text())![1]);
    expect(firstOfFourth).toBe(lastOfThird + 1);
  });

  it('moves mentions on a hub to its parts too', () => {
    const pages = dayHub(5);
    const hub = pages.get(`3_Personal/Caroline ${DAY}.md`)!;
    hub.append('Mentions', `- Lunch with Caroline in Berlin (see [[Melanie]]) [[${DAY}#^f-mmmmmmmmmm]]`);
    boundPages(pages);
    expect(hub.text()).not.toContain('## Mentions');
    expect(pages.get(`3_Personal/Caroline ${DAY} (3).md`)!.text()).toMatch(/## Mentions\n\n- Lunch with Caroline in Berlin \(see \[\[Melanie\]\]\)/);
  });

  it("sends a later note of a day on from the top hub, through the day's hub, to its last numbered part: no month part beside the day parts", () => {
    const pages = dayHub(5);
    const top = new Page('3_Personal/Caroline.md', [...front('Caroline'), '## Parts', '', `- [[Caroline ${DAY}]]`, '- [[Caroline 2026-01-06]]'], false, '');
    const nextDay = new Page('3_Personal/Caroline 2026-01-06.md', [...front('Caroline 2026-01-06', ['part_of: "[[Caroline]]"']), '## Notes', '', '- Caroline: hello [[2026-01-06#^f-aaaaaaaaaa]]'], false, '');
    for (const p of [top, nextDay]) pages.set(p.rel, p);
    top.append('Notes', note(700));
    top.append('Notes', '- Caroline: see you tomorrow [[2026-01-06#^f-bbbbbbbbbb]]');
    boundPages(pages);
    expect(top.text()).not.toContain('## Notes');
    expect(pages.get(`3_Personal/Caroline ${DAY} (3).md`)!.text()).toContain('turn 700');
    expect(nextDay.text()).toContain('see you tomorrow');
    expect([...pages.keys()].sort()).toEqual(['3_Personal/Caroline 2026-01-05 (2).md', '3_Personal/Caroline 2026-01-05 (3).md', '3_Personal/Caroline 2026-01-05.md', '3_Personal/Caroline 2026-01-06.md', '3_Personal/Caroline.md']);
  });
});

/**
 * A subject part split by day as a 50k backlog left it (`Project Atlas — Work` with 180 day parts, one link a day
 * under Parts): each later day linked one more part, until the part's own list of links passed 200 lines and the
 * run failed page_size, then its day was skipped.
 */
function dayPartsHub(days: number): { pages: Map<string, Page>; top: Page; part: Page } {
  const pages = new Map<string, Page>();
  const top = new Page('1_Projects/Project Atlas.md', [...front('Project Atlas'), '## Parts', '', '- [[Project Atlas — Work]]'], false, '');
  const dayOf = (d: number): string => new Date(Date.UTC(2024, 0, 1 + d)).toISOString().slice(0, 10);
  const titles = Array.from({ length: days }, (_, d) => `Project Atlas — Work ${dayOf(d)}`);
  const part = new Page('1_Projects/Project Atlas — Work.md', [...front('Project Atlas — Work', ['part_of: "[[Project Atlas]]"']), 'Part of [[Project Atlas]].', '', '## Parts', '', ...titles.map((t) => `- [[${t}]]`)], false, '');
  for (const p of [top, part]) pages.set(p.rel, p);
  titles.forEach((title, d) => {
    const day = new Page(`1_Projects/${title}.md`, [...front(title, ['part_of: "[[Project Atlas — Work]]"']), 'Part of [[Project Atlas — Work]].', '', '## Notes', '', `- The team met the client about project Atlas [[${dayOf(d)}#^f-${String(d).padStart(10, '0')}]]`], false, '');
    pages.set(day.rel, day);
  });
  return { pages, top, part };
}

describe('boundPages on a part whose day parts outgrow its list of links', () => {
  it('keeps every page under the bound: the day parts go under month parts once the list would pass it', () => {
    const { pages, top, part } = dayPartsHub(186);
    // Fourteen later days of work notes, as one run of a backlog places them on the project's page.
    for (let d = 0; d < 14; d++) top.append('Notes', `- The team had a meeting with the client about project Atlas, day ${d} [[2024-07-${String(d + 5).padStart(2, '0')}#^f-later${String(d).padStart(5, '0')}]]`);
    boundPages(pages);
    for (const page of pages.values()) {
      expect(Buffer.byteLength(page.text()), page.rel).toBeLessThanOrEqual(MAX_PAGE_BYTES);
      expect(page.text().split('\n').length, page.rel).toBeLessThanOrEqual(200);
    }
    expect(top.text()).not.toContain('## Notes');
    // Every note stands once, on the part of its day, which hangs under its month's part.
    const all = [...pages.values()].map((p) => p.text()).join('\n');
    for (let d = 0; d < 14; d++) expect(all.split(`day ${d} [[`).length - 1, `day ${d}`).toBe(1);
    const july = pages.get('1_Projects/Project Atlas — Work 2024-07.md');
    expect(july?.text()).toContain('part_of: "[[Project Atlas — Work]]"');
    expect(july?.text()).toContain('- [[Project Atlas — Work 2024-07-05]]');
    expect(pages.get('1_Projects/Project Atlas — Work 2024-07-05.md')?.text()).toContain('day 0 [[');
    // An older day part is linked from its month's part now, which the subject part links; the day part itself
    // is not rewritten (its part_of still names the subject part, the hub above its month).
    const older = pages.get('1_Projects/Project Atlas — Work 2024-01-01.md')!;
    expect(older.changed()).toBe(false);
    expect(pages.get('1_Projects/Project Atlas — Work 2024-01.md')!.text()).toContain('- [[Project Atlas — Work 2024-01-31]]');
    expect(part.text()).toContain('- [[Project Atlas — Work 2024-01]]');
    expect(part.text()).not.toContain('- [[Project Atlas — Work 2024-01-01]]');
    // The next run's notes of a new day go through the month parts, not back onto the subject part's list.
    top.append('Notes', '- The team met the client about project Atlas again [[2024-07-20#^f-nextnext01]]');
    boundPages(pages);
    expect(pages.get('1_Projects/Project Atlas — Work 2024-07.md')!.text()).toContain('- [[Project Atlas — Work 2024-07-20]]');
    expect(pages.get('1_Projects/Project Atlas — Work 2024-07-20.md')?.text()).toContain('part_of: "[[Project Atlas — Work 2024-07]]"');
    expect(part.text()).not.toContain('2024-07-20');
  });

  it('leaves a part with a short list of day parts as it was', () => {
    const { pages, top, part } = dayPartsHub(20);
    top.append('Notes', '- The team met the client about project Atlas [[2024-01-21#^f-later00001]]');
    boundPages(pages);
    expect(part.text()).toContain('- [[Project Atlas — Work 2024-01-21]]');
    expect(pages.has('1_Projects/Project Atlas — Work 2024-01.md')).toBe(false);
  });
});

describe('boundPages on a page of a few very long lines', () => {
  it('fills numbered parts by size instead of splitting a part of a part without end (issue 30: "Maximum call stack size exceeded")', () => {
    const long = (n: number): string => `- Caroline said ${'buffalo '.repeat(900).trim()} ${n} [[${DAY}#^f-${String(n).padStart(10, '0')}]]`;
    const page = new Page('3_Personal/Caroline.md', [...front('Caroline'), '## Notes', '', long(1), long(2), long(3)], true, '');
    const pages = new Map([[page.rel, page]]);
    expect(() => boundPages(pages)).not.toThrow();
    for (const p of pages.values()) expect(p.title.split('(').length, p.title).toBeLessThanOrEqual(2);
    const all = [...pages.values()].map((p) => p.text()).join('\n');
    for (const n of [1, 2, 3]) expect(all).toContain(` ${n} [[${DAY}`);
    for (const p of pages.values()) expect(Buffer.byteLength(p.text()), p.rel).toBeLessThanOrEqual(MAX_PAGE_BYTES);
  });
});

describe('wholePages: a page and its parts count once toward dream.max_changed_pages', () => {
  it('maps a month part of a subject part to the person page at the top, and counts the run by it', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'vk-whole-'));
    try {
      await mkdir(path.join(root, '3_Personal'), { recursive: true });
      const write = (title: string, partOf: string | null): Promise<void> =>
        writeFile(path.join(root, '3_Personal', `${title}.md`), [...front(title, partOf === null ? [] : [`part_of: "[[${partOf}]]"`]), 'text', ''].join('\n'));
      await write('Ivan', null);
      await write('Ivan — Work', 'Ivan');
      await write('Ivan — Work 2024-03', 'Ivan — Work');
      await write('Dana', null);
      const rels = ['3_Personal/Ivan.md', '3_Personal/Ivan — Work.md', '3_Personal/Ivan — Work 2024-03.md', '3_Personal/Dana.md', '3_Personal/Gone.md'];
      const whole = await wholePages(root, rels);
      expect(rels.map((r) => whole.get(r))).toEqual(['3_Personal/Ivan.md', '3_Personal/Ivan.md', '3_Personal/Ivan.md', '3_Personal/Dana.md', '3_Personal/Gone.md']);
      const changes = rels.map((p) => ({ status: 'M' as const, path: p }));
      const limits = { max_changed_pages: 3, max_archived_pages: 10 } as Parameters<typeof classifyChanges>[1];
      expect(classifyChanges(changes, limits, whole).failure).toBeNull();
      // Counted file by file, the same run is past the limit.
      expect(classifyChanges(changes, limits).failure?.message).toMatch(/^5 pages changed/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
