/**
 * A new file's rows are hashed after they are written (project-chunk.ts, `unhashed`): the hashes, the rows
 * written and their order must be those of hashing at once, as a file with earlier rows is. Pages whose rows are
 * made after the logs (`preparePages`), from the passages the logs hand over, get the rows of pages that read
 * the logs themselves.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../src/dream/journal.js';
import { vaultFiles } from '../../src/indexer/fresh.js';
import { ChunkProjector, hashesOf, loadPages, rowHashing, type ChunkFile } from '../../src/indexer/project-chunk.js';
import { rowHash } from '../../src/indexer/row-hash.js';
import { sourceKind } from '../../src/indexer/sources.js';
import { readTombstones } from '../../src/tombstones/tombstones.js';
import { makeProjectionVault } from '../helpers/projection-vault.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();

const PAGE = [
  '---',
  'title: Espresso',
  'tags: [coffee]',
  '---',
  '# Espresso',
  '',
  '- Prefers a double ristretto [[2026-05-01#^f-aaaaaaaaaa]]',
  '- Grinds fresh every morning',
  '',
  '## Places',
  '',
  'A café in Lisbon, Tōkyō on trips.',
  '',
].join('\n');
const LOG = ['# 2026-05-01', '', '## 08:00 · cli', '- [preference] Prefers a double ristretto #coffee ^f-aaaaaaaaaa', '- [fact] Owns a grinder ^f-bbbbbbbbbb', ''].join('\n');
const JOURNAL = { watermark: null, skipped: new Set<string>(), skips: new Map() };

async function setUp(): Promise<{ projector: ChunkProjector; files: ChunkFile[] }> {
  const root = await tempDir();
  await writeTree(root, { '2_Areas/espresso.md': PAGE, 'logs/2026-05-01.md': LOG, 'MEMORY.md': '# Memory\n\n- Likes coffee\n' });
  const files = await Promise.all(['2_Areas/espresso.md', 'MEMORY.md', 'logs/2026-05-01.md'].map(async (rel) => ({ rel, content: await readFile(path.join(root, rel)) })));
  return { projector: new ChunkProjector({ root, journal: JOURNAL, tombstones: [], cited: [] }), files };
}

// The projection hashes rows once xxhash-wasm has loaded, as its loaders wait for (reindex.ts, project-worker.ts).
await rowHashing;
await loadPages(); // pages are projected here: the page projection loads on demand (project-chunk.ts)

describe('ChunkProjector: the hashes of a new file', () => {
  it('are left for later, and are then those of hashing at once; the same rows are written in the same order', async () => {
    const { projector, files } = await setUp();
    const later = projector.project(files, 'rows');
    // A file with earlier rows (none of them these) is hashed at once, since its hashes decide what is written.
    const now = projector.project(files.map((file) => ({ ...file, previous: new Map<string, string>() })), 'rows');
    expect(later.files.every((file) => file.unhashed !== undefined && file.hashes === undefined)).toBe(true);
    expect(now.files.every((file) => file.unhashed === undefined && file.hashes !== undefined)).toBe(true);
    expect(later.rows!.length).toBeGreaterThan(3);
    expect(later.rows).toEqual(now.rows);
    const hashes = later.files.map((file) => hashesOf(file));
    expect(hashes).toEqual(now.files.map((file) => file.hashes));
    expect(hashes.flatMap((h) => [...h.keys()])).toEqual(later.rows!.map((row) => row.key));
    expect(hashes.flatMap((h) => [...h.values()])).toEqual(later.rows!.map((row) => rowHash(row)));
    // Hashed once: a second call gives the same object, and the rows are no longer held.
    expect(hashesOf(later.files[0]!)).toBe(hashes[0]);
    expect(later.files[0]!.unhashed).toBeUndefined();
  });

  it('a worker (packing its hashes) still hashes at once, with the same hashes', async () => {
    const { projector, files } = await setUp();
    const packed = projector.project(files, 'encoded', true);
    const later = projector.project(files, 'encoded');
    expect(packed.files.every((file) => file.packed !== undefined && file.unhashed === undefined)).toBe(true);
    expect(packed.files.map(hashesOf)).toEqual(later.files.map(hashesOf));
    const rows = (result: typeof packed): number => result.batches!.reduce((sum, batch) => sum + batch.length, 0);
    expect(rows(packed)).toBe(rows(later));
    expect(rows(packed)).toBeGreaterThan(3);
  });

  it('a new file without rows has no hashes, encoded or as rows, packed or not', async () => {
    const { projector, files } = await setUp();
    const empty = { rel: '2_Areas/empty.md', content: new TextEncoder().encode('---\ntitle: Empty\n---\n') };
    for (const [output, pack] of [['encoded', false], ['encoded', true], ['rows', false]] as const) {
      const result = projector.project([empty, ...files, empty], output, pack);
      const hashes = result.files.map(hashesOf);
      expect(hashes[0]).toEqual(new Map());
      expect(hashes.at(-1)).toEqual(new Map());
      expect(hashes[1]!.size).toBeGreaterThan(0);
      // Alone: no rows to encode at all.
      expect(projector.project([empty], output, pack).files.map(hashesOf)).toEqual([new Map()]);
    }
  });
});

describe('ChunkProjector: a log read for a page citation', () => {
  it('is projected from the facts read for the page when its bytes are the same, and parsed again when they are not', async () => {
    const { projector, files } = await setUp();
    const [page, core, log] = files as [ChunkFile, ChunkFile, ChunkFile];
    const alone = new ChunkProjector({ root: await tempDir(), journal: JOURNAL, tombstones: [], cited: [] }); // reads no log of its own
    // Pages first (the log is read and parsed for the citation), then the log: the rows of projecting it alone.
    const reused = projector.project([page, core, log], 'rows').rows!.filter((row) => row.kind === 'fact');
    expect(reused.map((row) => row.text)).toEqual(['Prefers a double ristretto', 'Owns a grinder']);
    expect(reused).toEqual(alone.project([log], 'rows').rows);
    // The log grew since the page's citation read it: its rows are those of the bytes given, not of the read.
    const grown = { ...log, content: Buffer.concat([log.content, Buffer.from('- [fact] Bought a scale ^f-cccccccccc\n')]) };
    const fresh = projector.project([grown], 'rows').rows!;
    expect(fresh.map((row) => row.text)).toEqual(['Prefers a double ristretto', 'Owns a grinder', 'Bought a scale']);
    expect(fresh).toEqual(alone.project([grown], 'rows').rows);
  });
});

describe('ChunkProjector: a forgotten fact in a log read for a page citation', () => {
  it('stays out of the log rows taken from that read, as from a read of its own', async () => {
    const { files } = await setUp();
    const [page, core, log] = files as [ChunkFile, ChunkFile, ChunkFile];
    const root = await tempDir();
    const tombstones = [{ id: 'f-bbbbbbbbbb', text: 'Owns a grinder', at: '2026-05-02T00:00:00Z' }];
    const projector = new ChunkProjector({ root, journal: JOURNAL, tombstones, cited: [] });
    await writeTree(root, { 'logs/2026-05-01.md': LOG });
    const rows = projector.project([page, core, log], 'rows').rows!.filter((row) => row.kind === 'fact');
    expect(rows.map((row) => row.text)).toEqual(['Prefers a double ristretto']);
    expect(rows.every((row) => !String(row.context).includes('grinder'))).toBe(true);
  });
});

describe('ChunkProjector: pages whose rows are made after the logs', () => {
  it('get the rows of pages that read the logs they cite themselves, without reading them again', async () => {
    const root = await makeProjectionVault(await tempDir());
    const rels = await vaultFiles(root);
    const read = async (rel: string): Promise<ChunkFile> => ({ rel, content: await readFile(path.join(root, rel)) });
    const pages = await Promise.all(rels.filter((rel) => sourceKind(rel) !== 'log').map(read));
    const logs = await Promise.all(rels.filter((rel) => sourceKind(rel) === 'log').map(read));
    const inputs = { root, journal: await readJournal(root), tombstones: (await readTombstones(root)).entries, cited: [] };

    // The pages alone: each reads the logs it cites from the vault.
    const alone = new ChunkProjector(inputs).project(pages, 'rows');
    const cited = alone.files.flatMap((file) => file.cited);
    expect(cited.length).toBeGreaterThan(100);

    // Parsed first, then the logs (which hand over the passages), then the pages' rows, with the logs gone from
    // the disk: a page that read a log now would find nothing and lose its passages.
    const projector = new ChunkProjector(inputs);
    const prepared = projector.preparePages(pages);
    expect(prepared.flatMap((page) => page.cited)).toEqual(cited);
    const logRows = projector.withCited(cited).project(logs, 'rows');
    expect(logRows.rows!.length).toBeGreaterThan(100);
    await rm(path.join(root, 'logs'), { recursive: true });
    const after = projector.project(pages, 'rows', false, prepared);
    expect(after.rows).toEqual(alone.rows);
    expect(after.files.map(hashesOf)).toEqual(alone.files.map(hashesOf));

    // The passages count: without the logs, a fresh projector's pages differ.
    const without = new ChunkProjector(inputs).project(pages, 'rows');
    expect(without.rows!.map((row) => row.context)).not.toEqual(alone.rows!.map((row) => row.context));
  });
});
