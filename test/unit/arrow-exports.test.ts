/**
 * The names lance-load.ts gives LanceDB for apache-arrow before loading it (src/indexer/arrow-exports.ts) are the
 * installed one-file build's own, in its order: a name missing there would leave LanceDB without it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARROW_EXPORTS, ARROW_VERSION } from '../../src/indexer/arrow-exports.js';

const fromLance = createRequire(createRequire(import.meta.url).resolve('@lancedb/lancedb'));

describe('the names of apache-arrow given to LanceDB', () => {
  it('are those of the installed one-file build, whose version is the one listed', () => {
    const bundle = fromLance.resolve('apache-arrow/Arrow.esnext.min');
    const { version } = JSON.parse(readFileSync(path.join(path.dirname(bundle), 'package.json'), 'utf8')) as { version: string };
    // The lockfile pins it: another version would take the eager load, and this list would need making again.
    expect(version).toBe(ARROW_VERSION);
    expect([...ARROW_EXPORTS]).toEqual(Object.keys(fromLance(bundle) as object));
  });
});
