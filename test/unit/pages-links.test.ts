import { describe, expect, test } from 'vitest';
import { isAttachmentTarget, linkResolver } from '../../src/pages/links.js';
import { citedFactId, splitWikiLink } from '../../src/pages/wikilink.js';

const PAGES = [
  { path: '2_Areas/Coffee.md', aliases: ['Joe', 'Java'] },
  { path: '5_Archives/2_Areas/Coffee.md' },
  { path: '2_Areas/Brewing/Pour Over.md' },
  { path: '3_Personal/Pour Over.md' },
  { path: '1_Projects/roast/Notes.md' },
  { path: '4_Resources/roast/Notes.md' },
  { path: 'Notes.md' },
  { path: '0_Inbox/2026-06-10.md' },
  { path: 'Café.md' },
  { path: '4_Resources/Java.md' },
  { path: 'Z/Long/Path/Joe.md', aliases: [] },
];

describe('linkResolver', () => {
  const resolve = linkResolver(PAGES, ['2026-06-09', '2026-06-10']);

  test.each([
    ['Coffee', '2_Areas/Coffee.md'],
    ['coffee', '2_Areas/Coffee.md'],
    ['COFFEE.md', '2_Areas/Coffee.md'],
    ['  Coffee  ', '2_Areas/Coffee.md'],
    ['Pour Over', '3_Personal/Pour Over.md'],
    ['Brewing/Pour Over', '2_Areas/Brewing/Pour Over.md'],
    ['2_Areas/Brewing/Pour Over', '2_Areas/Brewing/Pour Over.md'],
    ['/2_Areas/Brewing/Pour Over.md', '2_Areas/Brewing/Pour Over.md'],
    ['5_Archives/2_Areas/Coffee', '5_Archives/2_Areas/Coffee.md'],
    ['Notes', 'Notes.md'],
    ['roast/Notes', '1_Projects/roast/Notes.md'],
    ['Café', 'Café.md'],
    ['Cafe\u0301', 'Café.md'],
    ['Java', '4_Resources/Java.md'],
    ['Joe', 'Z/Long/Path/Joe.md'],
    ['2026-06-09', 'logs/2026-06-09.md'],
    ['logs/2026-06-09', 'logs/2026-06-09.md'],
    ['2026-06-10', 'logs/2026-06-10.md'],
    ['0_Inbox/2026-06-10', '0_Inbox/2026-06-10.md'],
    ['Coffee#History', '2_Areas/Coffee.md'],
    ['Coffee|shown', '2_Areas/Coffee.md'],
  ])('%s → %s', (target, expected) => {
    expect(resolve(target)).toBe(expected);
  });

  test.each([['Missing'], ['2026-06-11'], ['Brew/Pour Over'], ['oast/Notes'], ['photo.png'], ['../Coffee']])('%s is broken', (target) => {
    expect(resolve(target)).toBeNull();
  });

  test('aliases resolve when no file has the name', () => {
    const only = linkResolver([{ path: '2_Areas/Coffee.md', aliases: ['Joe', ' Morning Brew '] }]);
    expect(only('joe')).toBe('2_Areas/Coffee.md');
    expect(only('Morning Brew')).toBe('2_Areas/Coffee.md');
    expect(only('Tea')).toBeNull();
  });

  test('relative links resolve from the linking page and may not leave the vault', () => {
    expect(resolve('./Pour Over', '2_Areas/Brewing/Other.md')).toBe('2_Areas/Brewing/Pour Over.md');
    expect(resolve('../Coffee', '2_Areas/Brewing/Other.md')).toBe('2_Areas/Coffee.md');
    expect(resolve('../../../Coffee', '2_Areas/Brewing/Other.md')).toBeNull();
    expect(resolve('./Nothing', '2_Areas/Other.md')).toBeNull();
  });

  test('a link into the same page resolves to the linking page', () => {
    expect(resolve('', '2_Areas/Coffee.md')).toBe('2_Areas/Coffee.md');
    expect(resolve('#Heading', '2_Areas/Coffee.md')).toBe('2_Areas/Coffee.md');
    expect(resolve('')).toBeNull();
  });

  test('the answer does not depend on the order pages are listed in', () => {
    const reversed = linkResolver([...PAGES].reverse(), ['2026-06-10', '2026-06-09']);
    for (const target of ['Coffee', 'Pour Over', 'Notes', 'roast/Notes', 'Joe', 'Java', '2026-06-10']) {
      expect(reversed(target)).toBe(resolve(target));
    }
  });
});

describe('wikilink parts', () => {
  test.each([
    ['Note', undefined, { target: 'Note' }],
    ['Note#Heading', undefined, { target: 'Note', heading: 'Heading' }],
    ['Note#H1#H2', 'shown', { target: 'Note', heading: 'H1#H2', alias: 'shown' }],
    ['Note#^block-1', undefined, { target: 'Note', block: 'block-1' }],
    ['#^b', undefined, { target: '', block: 'b' }],
    ['#Local', undefined, { target: '', heading: 'Local' }],
    ['Note\\', 'alias', { target: 'Note', alias: 'alias' }],
    [' Spaced Name ', ' shown ', { target: 'Spaced Name', alias: 'shown' }],
    ['Note#', undefined, { target: 'Note' }],
  ])('%s | %s', (value, alias, parts) => {
    expect(splitWikiLink(value, alias)).toEqual(parts);
  });

  test('only a dated block link with a fact id is a citation', () => {
    const cite = (value: string) => citedFactId(splitWikiLink(value));
    expect(cite('2026-06-09#^f-7k2m9q0a1b')).toBe('f-7k2m9q0a1b');
    expect(cite('logs/2026-06-09#^f-7k2m9q0a1b')).toBe('f-7k2m9q0a1b');
    expect(cite('2026-06-09.md#^f-7k2m9q0a1b')).toBe('f-7k2m9q0a1b');
    expect(cite('#^f-7k2m9q0a1b')).toBeNull();
    expect(cite('Coffee#^f-7k2m9q0a1b')).toBeNull();
    expect(cite('2026-06-09#^f-7K2M9Q0A1B')).toBeNull();
    expect(cite('2026-06-09#^f-7k2m9q0a1')).toBeNull();
    expect(cite('2026-06-09#f-7k2m9q0a1b')).toBeNull();
  });

  test('attachments are told from pages by extension', () => {
    expect(isAttachmentTarget('photo.PNG')).toBe(true);
    expect(isAttachmentTarget('Board.canvas')).toBe(true);
    expect(isAttachmentTarget('paper.pdf')).toBe(true);
    expect(isAttachmentTarget('v1.2 release notes')).toBe(false);
    expect(isAttachmentTarget('Coffee')).toBe(false);
  });
});
