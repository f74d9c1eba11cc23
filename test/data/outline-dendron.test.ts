/**
 * The markdown-it outline equals the remark outline on every note of the public Dendron vault. Needs the
 * shared evaluation data, which is never copied into the repository, so it is not part of `npm test`:
 * run `npm run test:data` (it finds ../shared/data above the repository, or VAULTKEEPER_DENDRON_DATA).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { expectSameOutline, markdownFiles } from '../helpers/outline-diff.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function dendronDir(): string {
  const fromEnv = process.env.VAULTKEEPER_DENDRON_DATA;
  if (fromEnv !== undefined) return fromEnv;
  for (let dir = REPO; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', 'data', 'dendron-vault');
    if (existsSync(candidate)) return candidate;
  }
  throw new Error('no shared/data/dendron-vault above the repository: set VAULTKEEPER_DENDRON_DATA to the Dendron notes');
}

test('the markdown-it outline equals the remark outline on every note of the Dendron vault', () => {
  const files = markdownFiles(dendronDir());
  expect(files.length).toBeGreaterThan(1000);
  for (const file of files) expectSameOutline(readFileSync(file, 'utf8'), file);
});
