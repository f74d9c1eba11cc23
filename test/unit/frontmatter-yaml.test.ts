/**
 * The frontmatter's YAML fast path (src/pages/frontmatter-yaml.ts) must read every block as `yaml.parse`
 * does: the same value, or the same error. Checked on hand-written edge cases and on a fixed sample of
 * generated blocks (test/helpers/yaml-blocks.ts); test/data/ checks every Dendron note's frontmatter.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, test } from 'vitest';
import { parse, YAMLError } from 'yaml';
import { readFrontmatter } from '../../src/pages/frontmatter.js';
import { parseFrontmatterYaml, readFast, YAML_OPTIONS } from '../../src/pages/frontmatter-yaml.js';
import { prng } from '../helpers/update-stream.js';
import { yamlBlock } from '../helpers/yaml-blocks.js';

type Outcome = { value: unknown } | { error: string; yamlError: boolean };

/** `yaml` makes a fresh symbol for a `!!merge` value, so symbols compare by their description. */
function comparable(value: unknown): unknown {
  if (typeof value === 'symbol') return `symbol ${value.description}`;
  if (Array.isArray(value)) return value.map(comparable);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, comparable(item)]));
  return value;
}

function outcome(read: () => unknown): Outcome {
  try {
    return { value: comparable(read()) };
  } catch (error) {
    return { error: (error as Error).message, yamlError: error instanceof YAMLError };
  }
}

/** The sources on which the fast path's outcome is not `yaml`'s, each with both outcomes; and how many `yaml` refused. */
function compare(sources: readonly string[]) {
  let invalid = 0;
  const mismatches = sources.flatMap((source) => {
    const expected = outcome(() => parse(source, YAML_OPTIONS));
    const actual = outcome(() => parseFrontmatterYaml(source));
    if ('error' in expected) invalid++;
    return isDeepStrictEqual(actual, expected) ? [] : [{ source, expected, actual }];
  });
  return { mismatches, invalid };
}

const EDGE_CASES: Record<string, string> = {
  'ordinary Dendron frontmatter': 'id: 4dj5w4b7e4ru4appw1nx1xi\ntitle: Intro\ndesc: ""\nupdated: 1657639733426\ncreated: 1657638736288\nstub: false',
  'lists of tags and aliases': 'tags: [a, "#b", 3]\naliases:\n  - Coffee Beans\n  - Joe\ntag: x y',
  'timestamps stay text': 'created: 2026-06-09\nat: 2001-12-14t21:59:43.10-05:00\nspaced: 2001-12-14 21:59:43.10 -5\ntime: 10:30\nsexagesimal: 190:20:30',
  'infinities and not-a-numbers': 'a: .inf\nb: -.Inf\nc: +.INF\nd: .nan\ne: .NaN\nf: .NAN\ng: inf\nh: nan\ni: .Nan',
  'octal, hex and binary': 'a: 0o17\nb: 0O17\nc: 0o8\nd: 017\ne: 0x1F\nf: 0X1F\ng: -0x1F\nh: 0b101\ni: 0xg',
  'signs, zeros, separators': 'a: +1\nb: -0\nc: +0\nd: 007\ne: 1_000\nf: 1,000\ng: 12345678901234567890\nh: -.5\ni: +.5\nj: 1.\nk: 1e3\nl: 1.5E-3\nm: .5e1\nn: 1e\no: 1.0\np: 1.50',
  'booleans and nulls of YAML 1.2 and 1.1': 'a: true\nb: True\nc: TRUE\nd: tRUE\ne: yes\nf: No\ng: on\nh: ~\ni: null\nj: Null\nk: NULL\nl: nULL\nm:\nn: ""',
  'quoted scalars and escapes': `a: "tab\\tand \\u00e9 \\x41 \\U0001F600"\nb: 'it''s'\nc: "123"\nd: 'true'\ne: "~"\nf: "\\/ \\0 \\_ \\N"`,
  'block scalars': 'a: |\n  one\n  two\nb: >\n  folded\n  text\n\n  para\nc: |-\n  strip\nd: >-\n  x',
  'block scalars with kept breaks and indentation indicators': 'a: |+\n  keep\n\nb: |2\n   indented\nc: >+\n  x\n  ',
  'a plain scalar over lines': 'desc: a long\n  description that\n  goes on\ntitle: t',
  'nested mappings and sequences': 'a:\n  b:\n    - 1\n    - c: d\n      e: [f, [g, h]]\n  i: j\nk:\n- level\n- with key',
  'comments': '# lead\ntitle: x # trailing\ntags: [a, b] # after a list\n#tail',
  'non-ASCII keys and values': 'café: ☕\n名前: 日本語のテキスト\nemoji😀: 😀 text\nnbsp: \u00a0x',
  'repeated keys (the last wins)': 'title: a\ntitle: b\ntags: [x]\ntags: [y]',
  'odd but string keys': '__proto__: x\nconstructor: y\ntoString: z\n"a,b": 1\n"[object Object]": 2\n"null": 3\n<<: 4\n1: one\ntrue: yes\n1.5: f\n0x1F: h',
  'a null key': '~: x\ntitle: t',
  'a null key spelt out': 'null: x\nNull: y',
  'an empty key': ': x\ntitle: t',
  'a flow sequence as a key': '[a, b]: x',
  'a flow mapping as a key, and one with a null key': '{a: 1}: x\nm: { ~ }\nn: {[a], b}',
  'an explicit key': '? [a, b]\n: x\n? ~\n? plain\n: y',
  'anchors and aliases, as values and keys': 'base: &b {a: 1}\ncopy: *b\n&k key: v\n*k : w\nlist: &l [1, 2]\n*l : z',
  'a merge key': 'base: &b {a: 1}\nchild:\n  <<: *b\n  c: 2',
  'tags': 'a: !!str 123\nb: !!int "5"\nc: !!float 1\nd: !!bool true\ne: !!null ""\nf: !custom x\ng: ! 12\nh: !!binary aGk=\ni: !!timestamp 2026-06-09\nj: !!set {a, b}',
  'a tag and an anchor before a compact mapping': 'type: &a0 x: y',
  'a comment right after a quote or a bracket': 'a: "x"# c\nb: [1]# c',
  'a flow sequence over lines, not indented': 'b: [2026-06-09,\n[x]]\nc: [a,\n  b]',
  'a comment right after an opening bracket or a comma': 'a: [#\ntag, 1]\nb: [1,#c\n 2]',
  'an empty nested sequence item': 'a:\n  - - # comment\n  - b\n  -',
  'a quoted scalar over lines, indented': 'a: "multi\n  line"\nb: \'single\n  line\'',
  'a quoted scalar over lines, not indented': 'a:\n  - b: "multi\n  line"\nc: "x\nd: y"',
  'a YAML 1.1 directive': '%YAML 1.1\n---\na: yes\nb: 0o17',
  'two documents': 'a: 1\n...\nb: 2',
  'a document end': 'a: 1\n...',
  'tabs': 'a:\tx\nb: [1,\t2]\n\tc: d',
  'a byte-order mark inside': 'a: 1\n\ufeffb: 2\nc: \ufeffd',
  'line endings CRLF and CR': 'a: 1\r\nb: "x\ry"\r\nc: 3',
  'a long key': `${'k'.repeat(1100)}: v`,
  'a long value': `v: ${'word '.repeat(300)}`,
  'reserved characters': 'a: @at\nb: `tick\nc: %pct',
  'unclosed collections and quotes': 'a: [1, 2\nb: {c: d\ne: "f',
  'bad indentation': 'a:\n  b: 1\n c: 2',
  'a mapping in a compact mapping': 'a: b: c',
  'a block that is a list or a scalar': '- a\n- b',
  'only comments': '# one\n# two',
  empty: '',
};

describe('the js-yaml fast path reads frontmatter as yaml does', () => {
  test.each(Object.entries(EDGE_CASES))('%s', (_name, block) => {
    expect(compare([`\n${block}`]).mismatches).toEqual([]);
  });

  test('ordinary frontmatter takes the fast path; shapes where the two part take yaml', () => {
    for (const name of ['ordinary Dendron frontmatter', 'lists of tags and aliases', 'timestamps stay text', 'signs, zeros, separators', 'nested mappings and sequences', 'odd but string keys']) {
      expect(readFast(`\n${EDGE_CASES[name]!}`), name).toBeDefined();
    }
    for (const name of ['a null key', 'an empty key', 'a flow sequence as a key', 'an explicit key', 'anchors and aliases, as values and keys', 'a YAML 1.1 directive', 'a long key', 'a quoted scalar over lines, not indented']) {
      expect(readFast(`\n${EDGE_CASES[name]!}`), name).toBeUndefined();
    }
  });

  test('3,000 generated blocks (seed 20261124)', () => {
    const random = prng(20261124);
    const blocks = Array.from({ length: 3000 }, () => yamlBlock(random));
    const { mismatches, invalid } = compare(blocks);
    expect(mismatches).toEqual([]);
    // Both paths are exercised: many blocks are read by js-yaml, and many are not valid YAML at all.
    const fast = blocks.filter((block) => readFast(block) !== undefined).length;
    expect(fast).toBeGreaterThan(500);
    expect(invalid).toBeGreaterThan(500);
  });

  test('invalid frontmatter gives yaml’s one-line error with the file line', () => {
    const lines = '---\ntitle: ok\n\nbad: [unclosed\n---'.split('\n');
    let yamlMessage = '';
    try {
      parse(`\n${lines.slice(1, -1).join('\n')}`, YAML_OPTIONS);
    } catch (error) {
      yamlMessage = (error as Error).message;
    }
    const { error } = readFrontmatter(lines);
    expect(error).toBe(`invalid YAML: ${yamlMessage.split('\n')[0]!.replace(/:$/u, '')}`);
    expect(error).toMatch(/line 4/u);
  });
});
