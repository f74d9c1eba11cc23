/**
 * The index pass after `forget` is given the files the forget changed (tombstones/forget.ts `forgetChanged`) and
 * stats only those (indexer/reindex.ts `changed`). What must hold: the forgotten fact's rows leave the index in
 * that pass; a person's edit of another file made before the forget, which that pass does not stat, is indexed by
 * the next command's pass (the manifest keeps the file's old stat); a crash between the forget's commit and its
 * pass, or in it, still ends with the fact out of the index; and a warm process's change tracker (the MCP server)
 * still names the person's edit to its next pass.
 */
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openVault, type Vault } from '../../src/vault/vault.js';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { git, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const PAGE = '2_Areas/music.md';
const FORGOTTEN = 'The spare key is under the blue flowerpot';

interface RememberJson {
  facts: { id: string }[];
}

/** A vault of three logs and a page, indexed; returns the id of the fact to forget. */
async function indexedVault(): Promise<{ root: string; id: string }> {
  const root = await initVault(await tempDir());
  const first = await runJson<RememberJson>(['--vault', root, 'remember', '--stdin', '--date', '2026-06-01'], { input: `${FORGOTTEN}\nLikes green tea` });
  await runJson(['--vault', root, 'remember', 'Walked the dog in the rain', '--date', '2026-06-02']);
  await runJson(['--vault', root, 'remember', 'Repaired the garden fence', '--date', '2026-06-03']);
  await writeTree(root, { [PAGE]: '# Music\n\nPlays the oboe in a quartet.\n' });
  await runJson(['--vault', root, 'reindex']);
  return { root, id: first.facts[0]!.id };
}

/**
 * A person's edits made before the forget, to files the index knows and the forget does not change: a page, and
 * another day's log (a new fact, and a repeat of the fact about to be forgotten, which its tombstone hides).
 */
async function personEdits(root: string): Promise<void> {
  await appendFile(path.join(root, PAGE), '\nLearning the theremin on Tuesdays.\n');
  await appendFile(path.join(root, 'logs/2026-06-03.md'), `- Bought a yellow kayak\n- ${FORGOTTEN}\n`);
}

async function cliSearch(root: string, query: string): Promise<string> {
  const hits = await runJson<{ results: Array<{ text: string }> }>(['--vault', root, 'search', query]);
  return hits.results.map((hit) => hit.text).join('\n');
}

/** The index as the last pass left it: no freshness check, no pass. */
async function indexed(vault: Vault, query: string): Promise<string> {
  return (await vault.search(query, { refresh: false, recordRecall: false })).map((hit) => hit.text).join('\n');
}

describe("forget's pass over the files it changed", { timeout: 120_000 }, () => {
  it('takes the fact out of the index at once, and leaves an earlier edit to the next pass, which indexes it', async () => {
    const { root, id } = await indexedVault();
    expect(await cliSearch(root, 'spare key blue flowerpot')).toMatch(/flowerpot/);
    await personEdits(root);
    const result = await runJson<{ tombstoned: { id: string }[] }>(['--vault', root, 'forget', id]);
    expect(result.tombstoned).toEqual([expect.objectContaining({ id })]);

    const vault = await openVault({ vault: root });
    try {
      // The forget's own pass removed the fact's row: the index, read without a pass, no longer holds it.
      expect(await indexed(vault, 'spare key blue flowerpot')).not.toMatch(/flowerpot/);
      expect(await indexed(vault, 'green tea')).toMatch(/green tea/);
      // That pass statted only what the forget changed: the person's edits are not in the index yet.
      expect(await indexed(vault, 'theremin')).toBe('');
      expect(await indexed(vault, 'yellow kayak')).toBe('');
    } finally {
      await vault.close();
    }
    // The next command's freshness check sees them (the manifest kept their old stats) and its pass indexes them,
    // with the new tombstone hiding the person's repeat of the forgotten fact.
    expect(await cliSearch(root, 'theremin')).toMatch(/theremin/);
    expect(await cliSearch(root, 'yellow kayak')).toMatch(/kayak/);
    expect(await cliSearch(root, 'spare key blue flowerpot')).not.toMatch(/flowerpot/);
  });

  for (const failpoint of ['reindex:full-pass', 'reindex:after-dirty']) {
    it(`a forget killed at ${failpoint} (after its commit) still ends with the fact out of the index`, async () => {
      const { root, id } = await indexedVault();
      await personEdits(root);
      const killed = await runCli(['--vault', root, 'forget', id], { env: { VAULTKEEPER_FAILPOINT: failpoint } });
      expect(killed.code).not.toBe(0);
      // Killed after its commit: the tombstone is committed, the index not yet brought up to date.
      expect(await git(root, ['log', '-1', '--format=%s'])).toMatch(/^forget: 1 fact/);
      expect(await cliSearch(root, 'spare key blue flowerpot')).not.toMatch(/flowerpot/);
      expect(await cliSearch(root, 'theremin')).toMatch(/theremin/);
      expect(await cliSearch(root, 'yellow kayak')).toMatch(/kayak/);
    });
  }

  // The tracker is inotify's (change-watch.ts `watchable`): Linux only.
  it.runIf(process.platform === 'linux')("in a warm process with a change tracker, the tracker's next pass still names the edit the forget's pass left", async () => {
    const { root, id } = await indexedVault();
    const vault = await openVault({ vault: root });
    try {
      await vault.trackChanges();
      // A pass through the tracker (it stats every file, and makes the base the next pass's list starts from).
      await vault.remember([{ text: 'Ordered new guitar strings', date: '2026-06-04' }]);
      expect((await vault.reindex()).statted).toBeUndefined();
      await personEdits(root);
      await vault.forget({ id });
      expect(await indexed(vault, 'spare key blue flowerpot')).not.toMatch(/flowerpot/);
      expect(await indexed(vault, 'theremin')).toBe('');
      const next = await vault.reindex();
      // The tracker vouched for its list (only named files statted), and the list held the person's edits.
      expect(next.statted).toBeGreaterThan(0);
      expect(await indexed(vault, 'theremin')).toMatch(/theremin/);
      expect(await indexed(vault, 'yellow kayak')).toMatch(/kayak/);
      expect(await indexed(vault, 'spare key blue flowerpot')).not.toMatch(/flowerpot/);
    } finally {
      vault.stopTracking();
      await vault.close();
    }
  });
});
