/**
 * Every Dendron note's frontmatter reads the same through the js-yaml fast path as through `yaml` alone
 * (src/pages/frontmatter-yaml.ts), so every parsed page is the same: parsePage takes nothing else from
 * the YAML. Needs the shared data: `npm run test:data`.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { parse } from 'yaml';
import { normalizeFrontmatter } from '../../src/pages/frontmatter.js';
import { readFast, YAML_OPTIONS } from '../../src/pages/frontmatter-yaml.js';
import { parsePage } from '../../src/pages/parse.js';
import { sourceLines } from '../../src/pages/source.js';
import { dendronDir } from '../helpers/dendron.js';
import { markdownFiles } from '../helpers/outline-diff.js';

test('the frontmatter of every Dendron note, and so its parsed page, is what yaml alone reads', () => {
  const files = markdownFiles(dendronDir());
  expect(files.length).toBeGreaterThan(1000);
  let fast = 0;
  for (const file of files) {
    const bytes = readFileSync(file);
    const lines = sourceLines(bytes);
    const close = lines.findIndex((line, index) => index > 0 && line.trimEnd() === '---');
    expect(lines[0], file).toBe('---');
    const source = `\n${lines.slice(1, close).join('\n')}`;
    if (readFast(source) !== undefined) fast++;
    const page = parsePage(file, bytes);
    const raw = parse(source, YAML_OPTIONS) as Record<string, unknown>;
    expect(page.frontmatter, file).toStrictEqual(normalizeFrontmatter(raw));
    expect(page.frontmatterLines, file).toBe(close + 1);
    expect(page.frontmatterError, file).toBeUndefined();
  }
  // Nearly all take the fast path (4 hold `&` or `**` in text, or a line of only `-` in a block scalar).
  expect(fast).toBeGreaterThan(files.length * 0.95);
});
