import { describe, expect, test } from 'vitest';
import { applyAudit, conversationLogs, normalizeEvidence, parseSessionDate, type AuditEntry, type LocomoConversation } from '../../bench/locomo.js';
import { parseLog } from '../../src/logs/factlog.js';

describe('parseSessionDate', () => {
  test.each([
    ['1:56 pm on 8 May, 2023', { date: '2023-05-08', time: '13:56' }],
    ['7:55 pm on 9 June, 2023', { date: '2023-06-09', time: '19:55' }],
    ['12:09 am on 13 September, 2023', { date: '2023-09-13', time: '00:09' }],
    ['12:30 pm on 1 January, 2024', { date: '2024-01-01', time: '12:30' }],
    ['10:04 am on 19 Oct, 2023', { date: '2023-10-19', time: '10:04' }],
  ])('%s', (input, expected) => {
    expect(parseSessionDate(input)).toEqual(expected);
  });

  test('rejects what it cannot read', () => {
    expect(() => parseSessionDate('yesterday')).toThrow(/unrecognized/);
    expect(() => parseSessionDate('1:56 pm on 8 Smarch, 2023')).toThrow(/month/);
  });
});

describe('normalizeEvidence', () => {
  test('passes clean ids through', () => {
    expect(normalizeEvidence(['D1:3', 'D10:12'])).toEqual(['D1:3', 'D10:12']);
  });
  test('repairs loose spacing and stray colons', () => {
    expect(normalizeEvidence(['D10: 3', 'D:11:26', ' D2 :4 '])).toEqual(['D10:3', 'D11:26', 'D2:4']);
  });
  test('splits lists written in one string', () => {
    expect(normalizeEvidence(['D8:6; D9:17'])).toEqual(['D8:6', 'D9:17']);
    expect(normalizeEvidence(['D9:1 D4:4 D4:6'])).toEqual(['D9:1', 'D4:4', 'D4:6']);
  });
  test('expands ranges within a session', () => {
    expect(normalizeEvidence(['D1:3-5'])).toEqual(['D1:3', 'D1:4', 'D1:5']);
    expect(normalizeEvidence(['D1:3-D1:5'])).toEqual(['D1:3', 'D1:4', 'D1:5']);
    expect(normalizeEvidence(['D1:3 – 4'])).toEqual(['D1:3', 'D1:4']);
  });
  test('keeps both ends of a range across sessions', () => {
    expect(normalizeEvidence(['D1:3-D2:1'])).toEqual(['D1:3', 'D2:1']);
  });
  test('drops ids without a turn, and duplicates', () => {
    expect(normalizeEvidence(['D', 'D1:3', 'D1: 3'])).toEqual(['D1:3']);
    expect(normalizeEvidence([])).toEqual([]);
  });
});

describe('applyAudit', () => {
  const questions = [
    { id: 'locomo_0_qa0', question: 'When?', category: 2, evidence: ['D1:3'] },
    { id: 'locomo_0_qa1', question: 'Who?', category: 1, evidence: ['D1:12'] },
    { id: 'locomo_0_qa2', question: 'What?', category: 3, evidence: ['D1:9'] },
  ];
  const entry = (id: string, question: string, type: string, correct: string[]): AuditEntry => ({
    question_id: id, question, category: 1, error_type: type, cited_evidence: [], correct_evidence: correct,
  });

  test('re-cites wrong citations and drops wrong answers', () => {
    const result = applyAudit(questions, [
      entry('locomo_0_qa1', 'Who?', 'WRONG_CITATION', ['D1:14', 'D3: 1']),
      entry('locomo_0_qa2', 'What?', 'HALLUCINATION', ['D1:9']),
    ]);
    expect(result.questions).toEqual([questions[0], { ...questions[1], evidence: ['D1:14', 'D3:1'] }]);
    expect(result).toMatchObject({ recited: 1, dropped: 1, unmatched: [] });
  });

  test('ignores an entry whose question text does not match', () => {
    const result = applyAudit(questions, [entry('locomo_0_qa1', 'Someone else?', 'WRONG_CITATION', ['D1:14'])]);
    expect(result.questions).toEqual(questions);
    expect(result.unmatched).toEqual(['locomo_0_qa1']);
  });
});

describe('conversationLogs', () => {
  const conv: LocomoConversation = {
    index: 0,
    sampleId: 'conv-x',
    speakers: ['Ann', 'Bo'],
    sessions: [
      { index: 1, date: '2023-05-08', time: '13:56', turns: [
        { speaker: 'Ann', dia_id: 'D1:1', text: 'Hi Bo! #excited' },
        { speaker: 'Bo', dia_id: 'D1:2', text: 'Hi!' },
        { speaker: 'Bo', dia_id: 'D1:3', text: 'Hi!', blip_caption: 'a photo of a dog' },
      ] },
      { index: 2, date: '2023-05-25', time: '09:05', turns: [{ speaker: 'Ann', dia_id: 'D2: 1', text: 'Back again' }] },
    ],
    questions: [],
  };

  test('one log per session date, one fact per turn, ids mapped to dialog ids', () => {
    const logs = conversationLogs(conv);
    expect(logs.map((l) => l.rel)).toEqual(['logs/2023-05-08.md', 'logs/2023-05-25.md']);
    const first = parseLog(logs[0]!.content, '2023-05-08');
    expect(first.skipped).toEqual([]);
    expect(first.facts.map((f) => f.text)).toEqual(['Ann: Hi Bo!', 'Bo: Hi!', 'Bo: Hi!']);
    expect(first.facts[0]!.tags).toEqual(['excited']);
    expect(first.facts.map((f) => logs[0]!.dialogIds.get(f.id))).toEqual(['D1:1', 'D1:2', 'D1:3']);
    const second = parseLog(logs[1]!.content, '2023-05-25');
    expect(second.facts.map((f) => logs[1]!.dialogIds.get(f.id))).toEqual(['D2:1']);
    expect(logs[0]!.content).toContain('## 13:56 · locomo/conv-x/session_1');
  });

  test('captions only when asked for', () => {
    const logs = conversationLogs(conv, { captions: true });
    expect(parseLog(logs[0]!.content, '2023-05-08').facts[2]!.text).toBe('Bo: Hi! [shares a photo of a dog]');
  });
});
