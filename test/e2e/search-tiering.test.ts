/**
 * A CLI search answered in process checks a large vault's files without V8's optimizing compiler (src/core/tiering.ts
 * `quickTiering`, from QUICK_TIERING_FILES files on), and an index pass it has to run first turns the compiler on
 * again, since a pass can run for minutes. V8's own trace of what it optimizes (`--trace-opt`, on stdout before the
 * JSON) says which way each run went; the answers are the same either way.
 */
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUICK_TIERING_FILES, quickTieringFlags } from '../../src/core/tiering.js';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { initVault } from '../helpers/vault.js';

const tempDir = useTempDir();

/** The functions of the freshness check's stat loop, which V8 optimizes when a check stats thousands of files. */
const STAT_PATH = /<JSFunction (statOne|getStatsFromBinding|Stats|StatsBase) /;

/** A day's log of one fact, for each of `days` days from 2020-01-01. */
function logs(days: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let d = 0; d < days; d++) {
    const date = new Date(Date.UTC(2020, 0, 1 + d)).toISOString().slice(0, 10);
    out[`logs/${date}.md`] = `# ${date}\n\n## 09:00 · cli\n- [fact] Walked by the harbour with a cello, day ${d} #t${d % 5}\n`;
  }
  return out;
}

/** The built CLI under `node --trace-opt`: how many functions of the stat loop V8 optimized, and the JSON it printed. */
async function tracedSearch(root: string, query: string): Promise<{ optimized: number; json: unknown }> {
  const result = await runCli(['--vault', root, 'search', query, '--json'], { nodeArgs: ['--trace-opt'] });
  if (result.code !== 0) throw new Error(`search exited ${result.code}: ${result.stderr}`);
  const lines = result.stdout.split('\n');
  // V8's trace lines start with '[' at the line's start; the JSON's own arrays are indented.
  const traced = lines.filter((line) => line.startsWith('['));
  const json = JSON.parse(lines.filter((line) => !line.startsWith('[')).join('\n')) as unknown;
  return { optimized: traced.filter((line) => line.startsWith('[completed optimizing') && STAT_PATH.test(line)).length, json };
}

describe('a CLI search and V8 optimizing', () => {
  it('is set only for the V8 versions it was measured on', () => {
    expect(quickTieringFlags('11.3.244.8-node.38')).toEqual(['--no-turbofan', '--turbofan']);
    expect(quickTieringFlags('12.4.254.21-node.33')).toBeNull();
  });

  it.runIf(quickTieringFlags(process.versions.v8) !== null)('optimizes no stat of a large check of an unchanged index, and optimizes again for a pass', async () => {
    const root = await initVault(await tempDir());
    const days = QUICK_TIERING_FILES + 100;
    await writeTree(root, { ...logs(days), '.vaultkeeper/config.yaml': 'timezone: UTC\nindex:\n  embedder: none\n' });
    await runJson(['--vault', root, 'reindex']);

    // Without the setting the stat loop's functions are optimized at this many files (test: remove quickTiering).
    const unchanged = await tracedSearch(root, 'harbour cello');
    expect(unchanged.optimized).toBe(0);

    // A fact more in every log: the search's pass projects them all again, with the optimizing compiler on.
    for (const rel of Object.keys(logs(days))) await appendFile(path.join(root, rel), '- [fact] A ferry to the harbour at dusk #t9\n');
    const changed = await tracedSearch(root, 'harbour cello');
    expect(changed.optimized).toBeGreaterThan(0);

    // The same answers as a search of the same files by the CLI without the trace.
    expect(changed.json).toEqual(await runJson(['--vault', root, 'search', 'harbour cello']));
    const again = await tracedSearch(root, 'harbour cello');
    expect(again.optimized).toBe(0);
    expect(again.json).toEqual(changed.json);
  }, 300_000);
});
