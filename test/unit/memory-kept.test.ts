/**
 * MEMORY.md keeps each page's durable and topical lines per parse (memory.ts `pageItems`): a page that did not change
 * is not read again, but the day and what the logs say of its facts still decide its lines, as they do the first time.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderMemory } from '../../src/dream/memory.js';

const LOG = 'logs/2026-06-01.md';
const log = (seatCategory: string): string =>
  `# 2026-06-01\n\n## 09:00 · cli\n- [${seatCategory}] Ana likes the window seat ^f-aaaaaaaaa1\n- [commitment] Ana sends the report (due 2026-06-10) ^f-aaaaaaaaa2\n`;
const PAGE = [
  '---',
  'type: person',
  '---',
  '# Ana',
  '',
  '## Notes',
  '',
  '- Ana likes the window seat [[2026-06-01#^f-aaaaaaaaa1]]',
  '',
  '## Open commitments',
  '',
  '- Ana sends the report (due 2026-06-10) [[2026-06-01#^f-aaaaaaaaa2]]',
  '',
].join('\n');

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'vk-memory-kept-'));
  await mkdir(path.join(root, 'logs'), { recursive: true });
  await mkdir(path.join(root, '3_Personal'), { recursive: true });
  await writeFile(path.join(root, LOG), log('preference'));
  await writeFile(path.join(root, '3_Personal/Ana.md'), PAGE);
});
afterEach(async () => rm(root, { recursive: true, force: true }));

const render = (today: string): Promise<string> => renderMemory(root, root, 'r-1', { maxLines: 50, today });

describe('MEMORY.md from pages kept per parse', () => {
  it('follows the day and the logs for a page that did not change', async () => {
    const first = await render('2026-06-05');
    expect(first).toContain('## Preferences\n\n- Ana likes the window seat — [[Ana]]');
    expect(first).toContain('## Open commitments\n\n- Ana sends the report (due 2026-06-10) — [[Ana]]');
    expect(await render('2026-06-05')).toBe(first);

    // The same page, a later day: the commitment is past due and leaves.
    const later = await render('2026-06-20');
    expect(later).not.toContain('sends the report');
    expect(later).toContain('- Ana likes the window seat — [[Ana]]');

    // The same page and day, the log now says the seat is a plain fact: not durable, so not under Preferences.
    await writeFile(path.join(root, LOG), log('fact'));
    const plain = await render('2026-06-20');
    expect(plain).not.toContain('## Preferences');
    expect(plain).not.toContain('sends the report');
  });
});
