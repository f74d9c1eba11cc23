/**
 * A long rebuild through the CLI has V8 optimize later (src/core/tiering.ts); the library, embedded in someone
 * else's process, leaves V8 as it is. Either way the index is the same, and the CLI's rebuild says nothing on
 * stderr (V8 prints an error there for a flag it does not know).
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BATCH_TIERING_BYTES, batchTieringFlag } from '../../src/core/tiering.js';
import { openVault } from '../../src/vault/vault.js';
import { runCli } from '../helpers/cli.js';
import { makeProjectionVault, projectionState } from '../helpers/projection-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

/** The bytes of the vault's markdown files: what a rebuild projects. */
async function markdownBytes(root: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.md')) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

describe('optimizing later on a long rebuild', () => {
  it('is set only for the V8 versions it was measured on', () => {
    expect(batchTieringFlag('11.3.244.8-node.34')).toBe('--interrupt-budget=270336');
    expect(batchTieringFlag('12.4.254.21-node.33')).toBe('--invocation-count-for-turbofan=12000');
    expect(batchTieringFlag('11.8.172.17-node.19')).toBeNull();
    expect(batchTieringFlag('13.6.233.10-node.24')).toBeNull();
  });

  it('builds through the CLI the index the library builds, and prints nothing on stderr', async () => {
    const cli = await makeProjectionVault(await tempDir(), 450);
    const library = await makeProjectionVault(await tempDir(), 450);
    // Large enough that the CLI's rebuild asks V8 to optimize later.
    expect(await markdownBytes(cli)).toBeGreaterThanOrEqual(BATCH_TIERING_BYTES);

    const result = await runCli(['--vault', cli, 'reindex', '--clear', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);

    const vault = await openVault({ vault: library });
    try {
      await vault.reindex({ clear: true });
    } finally {
      await vault.close();
    }
    const expected = await projectionState(library);
    const actual = await projectionState(cli);
    expect(actual.rows.length).toBeGreaterThan(10_000);
    expect(actual.rows).toEqual(expected.rows);
    expect(actual.manifest).toBe(expected.manifest);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: actual.rows.length });
  }, 180_000);
});
