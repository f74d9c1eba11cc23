import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { cleanName, expectedEntities } from '../../bench/expected-entities.js';
import type { LocomoConversation } from '../../bench/locomo.js';
import { wrongCurrent } from '../../bench/updates.js';
import { citedIds, currentLines, hasLead, isChatter, isQuestion, measureWiki, statementText } from '../../bench/wiki-metrics.js';

describe('statements as a reader sees them', () => {
  test('no list mark, no citations, links as their text, no marks of the dream', () => {
    expect(statementText('- Caroline: Thanks, [[Melanie]]! See [[Moments 2023-05|May]]. [[2023-05-08#^f-kq8n6cavx4]]')).toBe('Caroline: Thanks, Melanie! See May.');
    expect(statementText('- [ ] standup time: 09:30 [[2026-06-04#^f-abcdefghjk]] (until 2026-06-10)')).toBe('standup time: 09:30');
    expect(citedIds('- a [[2026-06-04#^f-abcdefghjk]] [[2026-06-05#^f-bcdefghjkm]] [[2026-06-04#^f-abcdefghjk]]')).toEqual(['f-abcdefghjk', 'f-bcdefghjkm']);
  });
  test('a lead is anything but "Part of [[…]]." between the H1 and the first section', () => {
    expect(hasLead('---\ntitle: X\n---\n# X\n\nPart of [[Y]].\n\n## Parts\n\n- [[X 2023-05]]\n')).toBe(false);
    expect(hasLead('# X\n\n## Parts\n')).toBe(false);
    expect(hasLead('# X\n\nX is a painter in Berlin.\n\n## Parts\n')).toBe(true);
  });
  test('questions and chatter, a speaker label aside', () => {
    expect(isQuestion('Caroline: Is this your own painting?')).toBe(true);
    expect(isQuestion('Caroline paints.')).toBe(false);
    expect(isChatter('Evan: Catch ya later!')).toBe(true);
    expect(isChatter('Thanks, Mel!')).toBe(true);
    expect(isChatter('Melanie is allergic to peanuts')).toBe(false);
    expect(isChatter('Highlights of the trip: Rome')).toBe(false);
  });
});

describe('expected entities', () => {
  const conv = (texts: string[]): LocomoConversation => ({
    index: 0,
    sampleId: 'conv-x',
    speakers: ['Melanie', 'Caroline'],
    sessions: [{ index: 1, date: '2023-05-08', time: '13:56', turns: texts.map((text, i) => ({ speaker: i % 2 === 0 ? 'Melanie' : 'Caroline', dia_id: `D1:${i + 1}`, text })) }],
    questions: [],
  });
  test('the speakers, names in three turns, nicknames folded into their speaker', () => {
    const found = expectedEntities(
      conv([
        'I met Oliver Stone at the park.',
        'Oliver Stone is nice, Mel!',
        'Did Oliver Stone call you, Mel?',
        'Sarah Connor came once.',
        'Thanks, Mel!',
      ]),
    );
    expect(found.entities.map((e) => e.name)).toEqual(['Melanie', 'Caroline', 'Oliver Stone']);
    expect(found.entities[2]).toMatchObject({ kind: 'person', turns: 3, speaker: false });
    expect(found.nicknames.get('Mel')).toBe('Melanie');
  });
  test('names are cleaned of possessives and need a capital', () => {
    expect(cleanName("Caroline's")).toBe('Caroline');
    expect(cleanName('Tromsø.')).toBe('Tromsø');
    expect(cleanName('mel')).toBeNull();
  });
});

describe('measureWiki on a vault', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'vk-wiki-metrics-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const write = async (files: Record<string, string>): Promise<void> => {
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await writeFile(path.join(root, rel), text);
    }
  };

  test('verbatim statements, entity pages, people merged, hubs without a lead, MEMORY.md lines', async () => {
    await write({
      'logs/2023-05-08.md':
        '# 2023-05-08\n\n## 13:56 · locomo/conv-x/session_1\n' +
        '- [fact] Caroline: Thanks, Melanie! ^f-aaaaaaaaaa\n' +
        '- [fact] Caroline: I adopted a pup yesterday. ^f-bbbbbbbbbb\n' +
        '- [fact] Melanie: How are you? ^f-cccccccccc\n',
      '3_Personal/Caroline.md':
        '---\ntitle: "Caroline"\ntype: person\naliases: ["Caro"]\n---\n# Caroline\n\n## Notes\n\n' +
        '- Caroline: Thanks, [[Melanie]]! [[2023-05-08#^f-aaaaaaaaaa]]\n' +
        '- Caroline adopted a pup on 7 May 2023. [[2023-05-08#^f-bbbbbbbbbb]]\n' +
        '- Both [[2023-05-08#^f-aaaaaaaaaa]] [[2023-05-08#^f-bbbbbbbbbb]]\n\n## Mentions\n\n- Melanie: How are you? [[2023-05-08#^f-cccccccccc]]\n',
      '3_Personal/Melanie Caroline.md': '---\ntitle: "Melanie Caroline"\ntype: person\naliases: ["Mel"]\n---\n# Melanie Caroline\n\nPart of [[Caroline]].\n\n## Parts\n\n- [[Caroline]]\n',
      'MEMORY.md': '# Memory\n\n## Health\n\n- Melanie: How are you? — [[Caroline]]\n- Thanks, Mel! — [[Caroline]]\n- Caroline adopted a pup — [[Caroline]]\n\n## Often recalled\n\n- [[Caroline]]\n',
    });
    const w = await measureWiki(root, {
      entities: [
        { name: 'Caroline', kind: 'person', turns: 0, speaker: true },
        { name: 'Melanie', kind: 'person', turns: 1, speaker: true },
        { name: 'Rome', kind: 'place', turns: 3, speaker: false },
      ],
      nicknames: new Map([['Mel', 'Melanie']]),
    });
    // Two statements citing one fact each (the one citing two and the mention are not counted); one is the log line.
    expect(w.statements).toBe(2);
    expect(w.verbatim).toBe(1);
    // "Melanie Caroline" and "Mel" are not Melanie's page by title or alias.
    expect(w.entities.found).toEqual(['Caroline']);
    expect(w.entities.missing).toEqual(['Melanie', 'Rome']);
    expect(w.merged).toEqual([{ page: '3_Personal/Melanie Caroline.md', names: ['Caroline', 'Melanie'] }]);
    expect(w.hubs).toBe(1);
    expect(w.hubsWithoutLead).toEqual(['3_Personal/Melanie Caroline.md']);
    expect(w.memory).toEqual({ lines: 3, questions: ['Melanie: How are you?'], chatter: ['Thanks, Mel!'] });
  });

  test('Current lines of pages and MEMORY.md, and which subjects show a value that is not the newest', async () => {
    await write({
      '3_Personal/Ana.md': "---\ntitle: Ana\ntype: person\n---\n# Ana\n\n## Current\n\n- Ana's city:: Valencia [[2026-01-02#^f-aaaaaaaaaa]]\n- home:: Lisbon [[2026-01-03#^f-bbbbbbbbbb]]\n",
      'MEMORY.md': "# Memory\n\n## Current\n\n- Ana's role:: designer — [[Ana]]\n",
    });
    const lines = await currentLines(root);
    expect(lines.map((l) => `${l.from} ${l.page} ${l.key}=${l.value}`)).toEqual([
      "page 3_Personal/Ana.md Ana's city=Valencia",
      'page 3_Personal/Ana.md home=Lisbon',
      "memory 3_Personal/Ana.md Ana's role=designer",
    ]);
    const keyed = wrongCurrent(
      [
        { subject: "Ana's city", current: 'Valencia', queries: [], values: ['Oslo', 'Valencia'] },
        { subject: "Ana's role", current: 'engineer', queries: [], values: ['designer', 'engineer'] },
        { subject: "Ana's employer", current: 'Hooli', queries: [] },
      ],
      lines,
    );
    expect(keyed).toMatchObject({ subjects: 3, shown: 2, wrong: 1 });
    // The plain subject "where Ana lives" went Lisbon → Dublin: the page still says Lisbon. Valencia is another subject's value.
    expect(wrongCurrent([{ subject: 'Ana', current: 'Dublin', queries: [], values: ['Lisbon', 'Dublin'], entity: 'Ana' }], lines)).toMatchObject({ shown: 1, wrong: 1 });
    expect(wrongCurrent([{ subject: 'Ana', current: 'Lisbon', queries: [], values: ['Dublin', 'Lisbon'], entity: 'Ana' }], lines)).toMatchObject({ shown: 1, wrong: 0 });
  });
});
