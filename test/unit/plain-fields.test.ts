/**
 * The tokens and inline states of src/pages/plain-fields.ts must be markdown-it's own but for how their
 * fields are set: the same fields in the same order, the same prototypes, the same tokens from a parse.
 * If a markdown-it upgrade adds or renames a field, this fails rather than the outline drifting.
 */
import MarkdownIt from 'markdown-it';
import { describe, expect, test } from 'vitest';
import { usePlainFields } from '../../src/pages/plain-fields.js';

const SAMPLE = '# Title *em* `code`\n\n- item [link](http://x "t") <b>html</b> ![img](i.png)\n  > quote **strong** \\# esc &amp;\n\n<http://auto.link> text  \nbreak\n\n[ref]: /u\n';

describe('markdown-it with plain fields', () => {
  const plain = new MarkdownIt('commonmark');
  usePlainFields(plain);
  const original = new MarkdownIt('commonmark');

  test('a token has the fields of markdown-it’s, in order, and its prototype', () => {
    const OriginalToken = new original.core.State('', original, {}).Token;
    const token = plain.parse('para', {})[0]!;
    const reference = new OriginalToken('paragraph_open', 'p', 1);
    expect(Object.keys(token)).toEqual(Object.keys(reference));
    expect(token).toBeInstanceOf(OriginalToken);
  });

  test('an inline state has the fields of markdown-it’s, in order, and its prototype', () => {
    const state = new plain.inline.State('text', plain, {}, []);
    const reference = new original.inline.State('text', original, {}, []);
    expect(Object.keys(state)).toEqual(Object.keys(reference));
    expect(state).toBeInstanceOf(original.inline.State);
    expect(Object.keys(state.push('em_open', 'em', 1))).toEqual(Object.keys(reference.push('em_open', 'em', 1)));
  });

  test('a parse gives the same tokens', () => {
    const tokens = plain.parse(SAMPLE, {});
    expect(tokens.length).toBeGreaterThan(15);
    expect(tokens.flatMap((token) => token.children ?? []).length).toBeGreaterThan(25);
    expect(tokens).toEqual(original.parse(SAMPLE, {}));
    expect(plain.render(SAMPLE)).toBe(original.render(SAMPLE));
  });
});
