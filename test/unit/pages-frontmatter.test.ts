import { isDeepStrictEqual } from 'node:util';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { fieldsOf, normalizeFrontmatter, readFrontmatter } from '../../src/pages/frontmatter.js';
import { readFlat } from '../../src/pages/frontmatter-flat.js';
import { parseFrontmatterYaml, YAML_OPTIONS } from '../../src/pages/frontmatter-yaml.js';
import { parsePage } from '../../src/pages/parse.js';
import { prng } from '../helpers/update-stream.js';
import { flatBlock } from '../helpers/yaml-blocks.js';

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

/**
 * The zod schema the fields were read with up to 0.1 (src/pages/frontmatter.ts reads them by hand now, without
 * loading zod): the reference the hand-written reading must equal, whatever the shapes.
 */
const scalar = z.union([z.string(), z.number(), z.boolean()]).transform((value) => String(value).trim());
const optionalText = scalar
  .pipe(z.string().min(1))
  .optional()
  .catch(() => undefined);
function listOf(separator: RegExp) {
  const item = z.union([z.string(), z.number()]).transform((value) => String(value).split(separator));
  return z
    .union([item, z.array(z.unknown()).transform((values) => values.flatMap((value) => item.safeParse(value).data ?? []))])
    .optional()
    .catch(() => undefined)
    .transform((values) => values ?? []);
}
const REFERENCE = z.object({
  title: optionalText,
  type: optionalText,
  status: optionalText,
  tags: listOf(/[\s,]+/u),
  tag: listOf(/[\s,]+/u),
  aliases: listOf(/,/u),
  alias: listOf(/,/u),
});

describe('the fields read by hand (fieldsOf), as the zod schema read them', () => {
  const PIECES = ['', ' ', 'Coffee', '  padded  ', 'a,b', 'a, b ,c', '#tag', '##two #tags', 'x\ty\nz', ',', ' , ', 'café ☕', '\u00a0nbsp\u00a0', '\u2003em', '名前'];
  const FIELDS = ['title', 'type', 'status', 'tags', 'tag', 'aliases', 'alias'] as const;
  const SCALARS: unknown[] = [null, undefined, 0, 1.5, -0, -7, 1e21, 2 ** 53 + 2, NaN, Infinity, -Infinity, true, false, 12n, Symbol.for('x'), () => 1, new Date(0), { a: 1 }, {}];

  test('5,000 random frontmatters, every field of any shape: strings, numbers, booleans, lists of those and of anything, objects', () => {
    const random = prng(20261124);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const text = (): string => Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(PIECES)).join(pick(['', ' ', ',']));
    const value = (depth: number): unknown => {
      const roll = random();
      if (roll < 0.45) return text();
      if (roll < 0.75) return pick(SCALARS);
      if (depth > 1) return [];
      return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
    };
    const shapes = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const raw: Record<string, unknown> = { id: 'x', updated: 1 };
      for (const field of FIELDS) if (random() < 0.7) raw[field] = value(0);
      for (const field of FIELDS) shapes.add(Array.isArray(raw[field]) ? 'list' : typeof raw[field]);
      const label = JSON.stringify(raw, (_, v: unknown) => (typeof v === 'bigint' || typeof v === 'symbol' || typeof v === 'function' ? String(v) : Number.isNaN(v) ? 'NaN' : v));
      expect(fieldsOf(raw), label).toEqual(REFERENCE.parse(raw));
      expect(normalizeFrontmatter(raw)).toEqual({ ...normalizeFrontmatter({ ...raw }), raw });
    }
    // Every shape was met, so the equality above covered each.
    expect([...shapes].sort()).toEqual(['bigint', 'boolean', 'function', 'list', 'number', 'object', 'string', 'symbol', 'undefined']);
  });
});

/** A value, or the error's message: what the flat reader must give as `yaml` does. */
function outcome(read: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: read() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('a flat block (one `key: value` a line) is read without a YAML parser, as yaml reads it', () => {
  test('3,000 generated flat blocks (seed 20261124): the same value as yaml, and most take the flat path', () => {
    const random = prng(20261124);
    let flat = 0;
    for (let i = 0; i < 3000; i++) {
      const source = flatBlock(random);
      if (readFlat(source) !== undefined) flat++;
      const expected = outcome(() => parse(source, YAML_OPTIONS));
      const actual = outcome(() => parseFrontmatterYaml(source));
      expect(isDeepStrictEqual(actual, expected) ? null : { source, actual, expected }).toBeNull();
    }
    expect(flat).toBeGreaterThan(400);
  });

  test.each([
    ['Dendron', '\nid: c378b702\ntitle: Careers\ndesc: \'\'\nupdated: 1636510026672\ncreated: 1616983302480\nimage: \'https://x.com/i.png\'\nnav_order: 3\n', true],
    ['quoted with a colon, and empty', '\ntitle: \'Greenhouse: Talk\'\ndesc: ""\nempty:\nspaces:   \n', true],
    ['core scalars', '\na: ~\nb: null\nc: True\nd: 0o17\ne: 0x1F\nf: -.inf\ng: .NaN\nh: 1e3\ni: 1.50\nj: +1\nk: 2026-06-09\nl: 10:30\n', true],
    ['a repeated key', '\ntitle: a\ntags: x\ntitle: b\n', true],
    ['a comment', '\ntitle: a # note\n', false],
    ['a block scalar', '\ntitle: >-\n  two\n  lines\n', false],
    ['a flow list', '\ntags: [a, b]\n', false],
    ['an escape', '\ntitle: "a\\tb"\n', false],
    ['a key read as a boolean', '\ntrue: x\n', false],
    ['a key that is a number', '\n1: x\n', false],
    ['a nested key', '\ntitle: a: b\n', false],
    ['no space after the colon', '\ntitle:x\n', false],
    ['a tab', '\ntitle:\tx\n', false],
    ['a trailing no-break space (text to YAML)', '\ntitle: x\u00a0\n', true],
    ['a leading dash', '\na: -1\nb: -.inf\nc: -x\nd: ---\n', true],
    ['a lone dash', '\na: -\n', false],
    ['__proto__', '\n__proto__: x\n', false],
    ['only blank lines', '\n\n  \n', false],
  ])('%s', (_name, source, isFlat) => {
    expect(readFlat(source) !== undefined).toBe(isFlat);
    expect(outcome(() => parseFrontmatterYaml(source))).toEqual(outcome(() => parse(source, YAML_OPTIONS)));
  });
});
