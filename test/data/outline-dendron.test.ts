/**
 * The markdown-it outline equals the remark outline on every note of the public Dendron vault. Needs the
 * shared evaluation data, which is never copied into the repository, so it is not part of `npm test`:
 * run `npm run test:data` (it finds ../shared/data above the repository, or VAULTKEEPER_DENDRON_DATA).
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { dendronDir } from '../helpers/dendron.js';
import { expectSameOutline, markdownFiles } from '../helpers/outline-diff.js';

test('the markdown-it outline equals the remark outline on every note of the Dendron vault', () => {
  const files = markdownFiles(dendronDir());
  expect(files.length).toBeGreaterThan(1000);
  for (const file of files) expectSameOutline(readFileSync(file, 'utf8'), file);
});
