/** The statements of a page section: the units page rows hold. */
import { describe, expect, it } from 'vitest';
import { MAX_STATEMENT_CHARS, splitStatements } from '../../src/indexer/statements.js';

describe('splitStatements', () => {
  it('makes a list item with its indented continuation one statement, a paragraph another, and skips headings and blanks', () => {
    const lines = ['## Notes', '', '- Grows tomatoes', '  and chard', '- Keeps bees', '1. First step', 'A paragraph that', 'runs on', '', 'Another one'];
    expect(splitStatements(lines)).toEqual([
      { start: 2, end: 3, text: '- Grows tomatoes\n  and chard' },
      { start: 4, end: 4, text: '- Keeps bees' },
      { start: 5, end: 5, text: '1. First step' },
      { start: 6, end: 7, text: 'A paragraph that\nruns on' },
      { start: 9, end: 9, text: 'Another one' },
    ]);
  });

  it('splits a long paragraph into its lines, and keeps only list items when asked', () => {
    const long = 'x'.repeat(MAX_STATEMENT_CHARS / 2);
    expect(splitStatements([long, long, long]).map((s) => [s.start, s.end])).toEqual([[0, 0], [1, 1], [2, 2]]);
    expect(splitStatements(['Template prose.', '', '- a memory', '_Nothing yet._'], { listOnly: true }).map((s) => s.text)).toEqual(['- a memory']);
  });
});
