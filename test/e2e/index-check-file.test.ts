/**
 * The freshness check reads CHECK_FILE instead of the manifest when the manifest on disk is the one it was made from
 * (check-file.ts): used when current, never when stale (a pass killed between the manifest and it), and an edit made
 * after the pass is still in the next search's answer. Through the built CLI; the failpoint `reindex:full-pass` tells
 * a command that answered from the check from one that went through the full pass.
 */
import { appendFile, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECK_FILE } from '../../src/indexer/check-file.js';
import { vaultFiles } from '../../src/indexer/fresh.js';
import { MANIFEST_FILE, readManifestSummary } from '../../src/indexer/manifest.js';
import { sortSources } from '../../src/indexer/sources.js';
import { runCli, runJson } from '../helpers/cli.js';
import { twoFactVault } from '../helpers/cli-vault.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();
const env = { LANCE_CPU_THREADS: '2' };
const noFullPass = { ...env, VAULTKEEPER_FAILPOINT: 'reindex:full-pass' };
const LOG = 'logs/2026-06-02.md';

const verifiedVault = async (): Promise<string> => twoFactVault(await tempDir(), env);

async function searchTexts(root: string, query: string, runEnv: Record<string, string> = env): Promise<string> {
  const found = await runJson<{ results: Array<{ text: string }> }>(['--vault', root, 'search', query], { env: runEnv });
  return found.results.map((r) => r.text).join('\n');
}

async function tagOf(root: string, rel: string): Promise<string> {
  const text = await readFile(path.join(root, rel), 'utf8');
  return (JSON.parse(text) as { check?: string; tag?: string })[rel === CHECK_FILE ? 'tag' : 'check']!;
}

describe('the check file beside the manifest', () => {
  it('is used while the manifest is the one it names (opening, size, mtime): a manifest damaged past its first bytes is not read', async () => {
    const root = await verifiedVault();
    await runJson(['--vault', root, 'reindex'], { env });
    expect(await tagOf(root, CHECK_FILE)).toBe(await tagOf(root, MANIFEST_FILE));
    // Read as a summary, the manifest does not carry the tag on: a writer of what it read cannot bind the check file to it.
    expect(Object.keys((await readManifestSummary(root))!)).not.toContain('check');

    // Every file entry's fingerprint made a number of the same length: the manifest no longer reads as one, its
    // opening and size are intact. Its mtime moved: the check file names another manifest, which is read.
    const manifest = path.join(root, MANIFEST_FILE);
    const text = await readFile(manifest, 'utf8');
    const damaged = text.replace(/"fingerprint":"[^"]*"/g, (field) => `"fingerprint":${'1'.repeat(field.length - 14)}`);
    expect(damaged.length).toBe(text.length);
    await writeFile(manifest, damaged);
    expect(await readManifestSummary(root)).toBeNull();
    const moved = await runCli(['--vault', root, 'reindex'], { env: noFullPass });
    expect(moved.code).toBe(-1);

    // The check file pointed at it (its mtime): nothing changed, and `reindex` and `search` answer from the check
    // file, without the full pass (armed, it would kill them).
    const check = JSON.parse(await readFile(path.join(root, CHECK_FILE), 'utf8')) as { manifest: { mtimeMs: number } };
    check.manifest.mtimeMs = (await stat(manifest)).mtimeMs;
    await writeFile(path.join(root, CHECK_FILE), JSON.stringify(check));
    const again = await runCli(['--vault', root, 'reindex'], { env: noFullPass });
    expect(again.code, again.stderr).toBe(0);
    expect(await searchTexts(root, 'cello Sundays', noFullPass)).toContain('Plays the cello on Sundays');

    // Without the check file, the same command reads the manifest, finds it unreadable and goes to the full pass.
    await writeFile(path.join(root, CHECK_FILE), '{}');
    const full = await runCli(['--vault', root, 'reindex'], { env: noFullPass });
    expect(full.code).toBe(-1);
  }, 120_000);

  it('is not used after a pass killed between the manifest and it: the manifest it was not made from decides', async () => {
    const root = await verifiedVault();
    // The first reindex wrote rows: its manifest is not `verified`, and neither is the check file made with it.
    const before = await tagOf(root, CHECK_FILE);
    const killed = await runCli(['--vault', root, 'reindex'], { env: { ...env, VAULTKEEPER_FAILPOINT: 'reindex:before-check-file' } });
    expect(killed.code, killed.stderr).toBe(-1);
    // The new manifest (verified: this pass probed every index and wrote no row) is on disk; the check file is the one before it.
    expect(await tagOf(root, CHECK_FILE)).toBe(before);
    expect(await tagOf(root, MANIFEST_FILE)).not.toBe(before);
    expect(JSON.parse(await readFile(path.join(root, MANIFEST_FILE), 'utf8')).verified).toBe(true);
    expect(JSON.parse(await readFile(path.join(root, CHECK_FILE), 'utf8')).verified).toBe(false);

    // `reindex` wants a verified index: the stale check file says it is not (a full pass), the manifest says it is.
    const next = await runCli(['--vault', root, 'reindex'], { env: noFullPass });
    expect(next.code, next.stderr).toBe(0);
    expect(await searchTexts(root, 'Porto spring', noFullPass)).toContain('Visits Porto every spring');
  }, 120_000);

  it('an edit after the pass is in the next search, and the pass it brings writes a check file for its manifest', async () => {
    const root = await verifiedVault();
    const before = await tagOf(root, CHECK_FILE);
    await appendFile(path.join(root, LOG), '- [fact] Adopted a greyhound called Comet #pets\n');
    expect(await searchTexts(root, 'greyhound Comet')).toContain('Adopted a greyhound called Comet');
    const after = await tagOf(root, CHECK_FILE);
    expect(after).not.toBe(before);
    expect(await tagOf(root, MANIFEST_FILE)).toBe(after);

    // An edit of the same size, the mtime moved: found too.
    const log = path.join(root, LOG);
    const text = await readFile(log, 'utf8');
    await writeFile(log, text.replace('called Comet', 'called Vixen'));
    expect(await searchTexts(root, 'greyhound Vixen')).toContain('Adopted a greyhound called Vixen');
  }, 120_000);

  it("lists the files in the listing's order, checked by position; one elsewhere in the list is looked up, one renamed in place of another is new", async () => {
    const root = await verifiedVault();
    await writeTree(root, {
      '2_Areas/Music.md': '# Music\n\nThe cello, on Sundays, with the quartet.\n',
      '1_Projects/Zebra Garden.md': '# Zebra Garden\n\nStriped tulips along the fence.\n',
      'aardvark notes.md': '# Aardvark notes\n\nA lowercase page at the root, after the logs by code unit.\n',
      'MEMORY.md': '# Memory\n\n- Plays the cello\n',
    });
    await runJson(['--vault', root, 'reindex'], { env });
    const check = JSON.parse(await readFile(path.join(root, CHECK_FILE), 'utf8')) as { paths: string[]; sizes: number[]; mtimes: number[] };
    const listed = await vaultFiles(root);
    expect(listed).toContain('aardvark notes.md');
    expect(check.paths).toEqual(listed);
    expect(check.paths).toEqual(sortSources(check.paths));
    expect(check.paths.at(-1)).toBe('MEMORY.md');
    expect(check.paths.slice(0, 2)).toEqual(['logs/2026-06-01.md', 'logs/2026-06-02.md']);

    // In another order (as an older version wrote it), each file is found by name: nothing changed, no pass.
    const order = check.paths.map((_, i) => i).reverse();
    const reversed = { ...check, paths: order.map((i) => check.paths[i]), sizes: order.map((i) => check.sizes[i]), mtimes: order.map((i) => check.mtimes[i]) };
    await writeFile(path.join(root, CHECK_FILE), JSON.stringify(reversed));
    expect(await searchTexts(root, 'striped tulips', noFullPass)).toContain('Striped tulips along the fence');

    // A page renamed: as many files as indexed, one of them new. The check sends the search to the full pass (armed,
    // it kills the search), and the search without the failpoint finds the page under its new name.
    await rename(path.join(root, '1_Projects/Zebra Garden.md'), path.join(root, '1_Projects/Yak Garden.md'));
    expect((await runCli(['--vault', root, 'search', 'striped tulips'], { env: noFullPass })).code).toBe(-1);
    const found = await runJson<{ results: Array<{ path: string }> }>(['--vault', root, 'search', 'striped tulips'], { env });
    expect(found.results.map((r) => r.path)).toContain('1_Projects/Yak Garden.md');
    expect(found.results.map((r) => r.path)).not.toContain('1_Projects/Zebra Garden.md');
  }, 120_000);
});
