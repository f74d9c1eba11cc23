import { describe, expect, test } from 'vitest';
import { readFrontmatter } from '../../src/pages/frontmatter.js';
import { parsePage } from '../../src/pages/parse.js';

const read = (text: string) => readFrontmatter(text.split('\n'));

describe('readFrontmatter', () => {
  test('reads the known fields and keeps every property raw', () => {
    const result = read('---\ntitle: Coffee\ntype: topic\nstatus: active\ntags: [drinks, "#morning"]\naliases: [Joe]\nrating: 5\n---\nbody');
    expect(result).toEqual({
      frontmatter: {
        title: 'Coffee',
        type: 'topic',
        status: 'active',
        tags: ['drinks', 'morning'],
        aliases: ['Joe'],
        raw: { title: 'Coffee', type: 'topic', status: 'active', tags: ['drinks', '#morning'], aliases: ['Joe'], rating: 5 },
      },
      lineCount: 8,
    });
  });

  test('no block, an empty block, a block of comments', () => {
    expect(read('# Title\n---\n')).toEqual({ frontmatter: { tags: [], aliases: [], raw: {} }, lineCount: 0 });
    expect(read('---\n---\nbody')).toEqual({ frontmatter: { tags: [], aliases: [], raw: {} }, lineCount: 2 });
    expect(read('---\n# just a comment\n---')).toMatchObject({ lineCount: 3 });
    expect(read('\n---\ntitle: x\n---').lineCount).toBe(0);
  });

  test.each([
    ['a list', 'tags: [a, b]', ['a', 'b']],
    ['a block list', 'tags:\n  - a\n  - "#b"', ['a', 'b']],
    ['a comma separated string', 'tags: "a, b"', ['a', 'b']],
    ['a space separated string with #', 'tags: "#a #b"', ['a', 'b']],
    ['a single word', 'tags: solo', ['solo']],
    ['a number', 'tags: 2024', ['2024']],
    ['the singular key', 'tag: [a]', ['a']],
    ['both keys, repeated', 'tags: [a, b]\ntag: b c', ['a', 'b', 'c']],
    ['nulls and empties in a list', 'tags: [a, null, "", "#"]', ['a']],
    ['a mapping (wrong shape, dropped)', 'tags: {a: 1}', []],
    ['null', 'tags:', []],
  ])('tags as %s', (_name, yaml, tags) => {
    expect(read(`---\n${yaml}\n---`).frontmatter.tags).toEqual(tags);
  });

  test.each([
    ['a list', 'aliases: [Coffee Beans, Joe]', ['Coffee Beans', 'Joe']],
    ['a comma separated string', 'aliases: Coffee Beans, Joe', ['Coffee Beans', 'Joe']],
    ['the singular key', 'alias: Java', ['Java']],
  ])('aliases as %s', (_name, yaml, aliases) => {
    expect(read(`---\n${yaml}\n---`).frontmatter.aliases).toEqual(aliases);
  });

  test('scalars of another type become text; lists where text belongs are dropped', () => {
    const { frontmatter } = read('---\ntitle: 2024\nstatus: true\ntype: [a, b]\n---');
    expect(frontmatter.title).toBe('2024');
    expect(frontmatter.status).toBe('true');
    expect(frontmatter.type).toBeUndefined();
  });

  test('dates stay text and a repeated key keeps its last value', () => {
    expect(read('---\ncreated: 2026-06-09\ntitle: a\ntitle: b\n---').frontmatter).toMatchObject({ title: 'b', raw: { created: '2026-06-09' } });
  });

  test('YAML that does not parse is an error with the file line', () => {
    const result = read('---\ntitle: ok\n\nbad: [unclosed\n---');
    expect(result.lineCount).toBe(0);
    expect(result.frontmatter).toEqual({ tags: [], aliases: [], raw: {} });
    expect(result.error).toMatch(/invalid YAML: .*line 4/u);
    expect(read('---\n\ttitle: x\n---').error).toMatch(/line 2/u);
  });

  test('a block that is not a mapping, never closed, or with an early --- line is an error', () => {
    expect(read('---\njust text\n---').error).toMatch(/key: value/u);
    expect(read('---\n- a\n- b\n---').error).toMatch(/key: value/u);
    expect(read('---\ntitle: x\nbody').error).toMatch(/never closed/u);
    expect(read('---\ntitle: x\n--- more\ny: 1\n---').error).toMatch(/line 3/u);
  });

  test('runs no code: other languages are not frontmatter, YAML tags are plain values', () => {
    const marker = '__vaultkeeper_frontmatter_eval__';
    const js = `---js\n{ title: (globalThis.${marker} = 'ran') }\n---\n# Page\n`;
    const page = parsePage('a.md', js);
    expect((globalThis as Record<string, unknown>)[marker]).toBeUndefined();
    expect(page.frontmatterLines).toBe(0);
    const tagged = read('---\nx: !!js/function "function () { return 1 }"\ny: !!python/object:os.system "ls"\n---');
    expect(typeof tagged.frontmatter.raw.x).toBe('string');
  });

  test('a long run of blank lines is refused rather than parsed slowly', () => {
    const started = performance.now();
    const result = read(`---\n${'\n'.repeat(100_000)}title: x\n---`);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(result.error).toMatch(/blank lines/u);
  });

  test('an alias bomb is an error, not a hang', () => {
    const bomb = ['---', 'a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 12; i++) bomb.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`);
    bomb.push('---');
    const started = performance.now();
    const result = readFrontmatter(bomb);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(result.error).toMatch(/alias/iu);
  });
});
