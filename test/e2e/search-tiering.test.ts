/**
 * A CLI search answered in process runs without V8's optimizing compiler (src/core/tiering.ts `quickTiering`), and
 * an index pass it has to run first turns the compiler on again, since a pass can run for minutes. V8's own trace of
 * what it optimizes (`--trace-opt`, on stdout before the JSON) says which way each run went; the answers are the
 * same either way.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { quickTieringFlags } from '../../src/core/tiering.js';
import { CLI, runJson } from '../helpers/cli.js';
import { changeProjectionVault, makeProjectionVault } from '../helpers/projection-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

/** The built CLI under `node --trace-opt`: how many functions V8 finished optimizing, and the JSON it printed. */
function tracedSearch(root: string, query: string): Promise<{ optimized: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, VAULTKEEPER_VAULT: undefined, NO_COLOR: '1' };
    const child = spawn(process.execPath, ['--trace-opt', CLI, '--vault', root, 'search', query, '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`search exited ${code}: ${stderr}`));
      const traced = stdout.split('\n').filter((line) => line.startsWith('['));
      const json = stdout.slice(stdout.indexOf('\n{') + 1);
      resolve({ optimized: traced.filter((line) => line.startsWith('[completed optimizing')).length, json: JSON.parse(json) });
    });
  });
}

describe('a CLI search and V8 optimizing', () => {
  it('is set only for the V8 versions it was measured on', () => {
    expect(quickTieringFlags('11.3.244.8-node.38')).toEqual(['--no-turbofan', '--turbofan']);
    expect(quickTieringFlags('12.4.254.21-node.33')).toBeNull();
  });

  it.runIf(quickTieringFlags(process.versions.v8) !== null)('optimizes nothing when the index is unchanged, and optimizes again for a pass', async () => {
    const root = await makeProjectionVault(await tempDir(), 450);
    await runJson(['--vault', root, 'reindex']);

    const unchanged = await tracedSearch(root, 'harbour cello');
    expect(unchanged.optimized).toBe(0);

    // An update as big as the vault: the search's pass projects every page again, and V8 optimizes its hot code.
    await changeProjectionVault(root, 450);
    const changed = await tracedSearch(root, 'harbour cello');
    expect(changed.optimized).toBeGreaterThan(0);

    // The same answers as a search of the same files by the CLI without the trace.
    expect(changed.json).toEqual(await runJson(['--vault', root, 'search', 'harbour cello']));
    const again = await tracedSearch(root, 'harbour cello');
    expect(again.optimized).toBe(0);
    expect(again.json).toEqual(changed.json);
  }, 180_000);
});
