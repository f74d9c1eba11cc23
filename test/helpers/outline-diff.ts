/** The differential check of the page outline: markdown-it's (src/pages/outline.ts) against remark's (the parser up to 0.1). */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { exceedsParserBudget } from '../../src/pages/budget.js';
import { readFrontmatter } from '../../src/pages/frontmatter.js';
import { markdownOutline } from '../../src/pages/outline.js';
import { sourceLines } from '../../src/pages/source.js';
import { remarkOutline } from './remark-outline.js';

/** The page body as parsePage hands it to the parser (frontmatter lines blank), or null when the page is read as plain lines. */
function body(content: string): string | null {
  const lines = sourceLines(content);
  const front = readFrontmatter(lines).lineCount;
  if (exceedsParserBudget(lines, front + 1) !== null) return null;
  return lines.map((line, index) => (index < front ? '' : line)).join('\n');
}

export function expectSameOutline(content: string, name: string): void {
  const text = body(content);
  if (text === null) return;
  expect(markdownOutline(text), name).toEqual(remarkOutline(text));
}

export function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...markdownFiles(full));
    else if (entry.name.endsWith('.md')) out.push(full);
  }
  return out.sort();
}
