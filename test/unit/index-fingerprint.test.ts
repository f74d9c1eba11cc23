/**
 * The index folder's fingerprint (src/indexer/fresh.ts): names, sizes and mtimes of every file under it, so a
 * search skips its checks only for the folder that passed them. It lists the folder with a hand walk; held here
 * to what Node's recursive readdir lists, and to changing with any file at any depth.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { indexFingerprint } from '../../src/indexer/fresh.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();

/** The fingerprint as it was made before the hand walk: Node's recursive readdir, then a stat of each file. */
async function readdirFingerprint(dir: string): Promise<string> {
  const names = (await readdir(dir, { recursive: true })).sort();
  const hash = createHash('sha256');
  for (const name of names) {
    const info = await stat(path.join(dir, name));
    if (info.isFile()) hash.update(`${name}\u0000${info.size}\u0000${info.mtimeMs}\n`);
  }
  return hash.digest('base64url');
}

/** A folder laid out as LanceDB lays out a table, nested three deep, with an empty folder. */
async function indexLike(): Promise<string> {
  const dir = path.join(await tempDir(), 'index');
  await writeTree(dir, {
    'rows.lance/_versions/1.manifest': 'v1',
    'rows.lance/_versions/2.manifest': 'v2 longer',
    'rows.lance/data/a b.lance': 'data',
    'rows.lance/_indices/3f2a/part_0.lance': 'postings',
    'rows.lance/_indices/3f2a/metadata.lance': 'meta',
    'rows.lance/_transactions/0-x.txn': 'txn',
  });
  await mkdir(path.join(dir, 'rows.lance', 'empty'));
  return dir;
}

describe('indexFingerprint', () => {
  test('lists what the recursive readdir lists, so it equals the fingerprint made that way', async () => {
    const dir = await indexLike();
    expect(await indexFingerprint(dir)).toBe(await readdirFingerprint(dir));
  });

  test('is the same for an unchanged folder, and changes when a file at any depth is added, grown, renamed or removed', async () => {
    const dir = await indexLike();
    const seen = new Set([await indexFingerprint(dir)]);
    expect(await indexFingerprint(dir)).toBe([...seen][0]);
    const deep = path.join(dir, 'rows.lance', '_indices', '3f2a');
    const changes = [
      () => writeFile(path.join(deep, 'part_1.lance'), 'more'),
      () => writeFile(path.join(deep, 'part_0.lance'), 'postings, rewritten longer'),
      () => rename(path.join(deep, 'metadata.lance'), path.join(deep, 'metadata.old')),
      () => rm(path.join(dir, 'rows.lance', '_transactions', '0-x.txn')),
    ];
    for (const change of changes) {
      await change();
      const now = await indexFingerprint(dir);
      expect(seen.has(now)).toBe(false);
      seen.add(now);
      expect(now).toBe(await readdirFingerprint(dir));
    }
  });

  test('lists a link to a folder without walking into it, so what lies behind the link is not fingerprinted', async () => {
    const dir = await indexLike();
    const outside = path.join(await tempDir(), 'outside');
    await writeTree(outside, { 'a.txt': 'a' });
    await symlink(outside, path.join(dir, 'rows.lance', 'link'));
    const before = await indexFingerprint(dir);
    await writeFile(path.join(outside, 'b.txt'), 'b, not the index');
    expect(await indexFingerprint(dir)).toBe(before);
    // A loop of links ends too (the walk never enters a link), and a link to a folder is no file to fingerprint.
    await symlink(dir, path.join(dir, 'rows.lance', 'data', 'loop'));
    expect(await indexFingerprint(dir)).toBe(before);
  });

  test('says missing for no folder and unreadable for a file in its place', async () => {
    const root = await tempDir();
    expect(await indexFingerprint(path.join(root, 'none'))).toBe('missing');
    await writeFile(path.join(root, 'file'), 'x');
    expect(await indexFingerprint(path.join(root, 'file'))).toBe('unreadable ENOTDIR');
  });
});
