import { describe, expect, it } from 'vitest';
import { Page } from '../../src/dream/page.js';

describe('Page.changed', () => {
  const text = '# Ivan\n\n## Notes\n\n- Ivan likes tea';
  const read = (): Page => new Page('3_Personal/Ivan.md', text.split('\n'), false, text);

  it('is false for a page no rule touched, true once a line changes, false again when it is put back', () => {
    const page = read();
    expect(page.changed()).toBe(false);
    page.lines[4] = '- Ivan likes coffee';
    expect(page.changed()).toBe(true);
    page.lines[4] = '- Ivan likes tea';
    expect(page.changed()).toBe(false);
  });

  it('compares the text, not the lines: a line break moved into a line is no change, an added line is', () => {
    const page = read();
    page.lines.splice(3, 2, '\n- Ivan likes tea');
    expect(page.changed()).toBe(false);
    page.lines.push('- Ivan likes coffee');
    expect(page.changed()).toBe(true);
  });

  it('is true for a new page', () => {
    expect(new Page('3_Personal/Ivan.md', text.split('\n'), true, '').changed()).toBe(true);
  });

  it('does not see changes made to the array it was given after it was read', () => {
    const lines = text.split('\n');
    const page = new Page('3_Personal/Ivan.md', lines, false, text);
    page.lines = [...lines, '- Ivan likes coffee'];
    expect(page.changed()).toBe(true);
  });
});
