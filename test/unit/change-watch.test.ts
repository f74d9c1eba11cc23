/**
 * ChangeWatch (src/indexer/change-watch.ts) on real folders: what counts as a change the freshness check must see,
 * and what a search itself writes (the recall log), which must not count. Linux only: elsewhere nothing is vouched for.
 */
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangeWatch, watchable } from '../../src/indexer/change-watch.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

async function vault(): Promise<{ root: string; index: string }> {
  const root = await tempDir();
  const index = path.join(root, '.vaultkeeper/index');
  await mkdir(path.join(root, 'logs'), { recursive: true });
  await mkdir(path.join(root, '2_Areas/deep'), { recursive: true });
  await mkdir(path.join(index, 'facts.lance/_versions'), { recursive: true });
  await writeFile(path.join(root, 'logs/2026-05-01.md'), '# 2026-05-01\n');
  await writeFile(path.join(root, '2_Areas/deep/page.md'), '# Page\n');
  await writeFile(path.join(root, '.vaultkeeper/recall.jsonl'), '');
  await writeFile(path.join(root, '.vaultkeeper/index-manifest.json'), '{}');
  return { root, index };
}

describe.runIf(process.platform === 'linux')('ChangeWatch', () => {
  it('counts a change to anything the freshness check reads', async () => {
    const { root, index } = await vault();
    expect(watchable(root)).toBe(true);
    const changes: Array<[string, () => Promise<unknown>]> = [
      ['a log appended to', () => appendFile(path.join(root, 'logs/2026-05-01.md'), '- [fact] x\n')],
      ['a new log', () => writeFile(path.join(root, 'logs/2026-05-02.md'), '# 2026-05-02\n')],
      ['a page in a nested folder', () => writeFile(path.join(root, '2_Areas/deep/page.md'), '# Page\n\nEdited.\n')],
      ['MEMORY.md', () => writeFile(path.join(root, 'MEMORY.md'), '# Memory\n')],
      ['the journal (log.md)', () => writeFile(path.join(root, 'log.md'), '# Log\n')],
      ['the manifest', () => writeFile(path.join(root, '.vaultkeeper/index-manifest.json'), '{"a":1}')],
      ['the tombstones', () => appendFile(path.join(root, '.vaultkeeper/tombstones.jsonl'), '{}\n')],
      ['a file of the index', () => writeFile(path.join(index, 'facts.lance/_versions/2.manifest'), 'x')],
      ['a new page folder', () => mkdir(path.join(root, '3_Personal'))],
    ];
    const watch = new ChangeWatch(root, index);
    try {
      for (const [what, change] of changes) {
        expect(watch.arm(), what).toBe(true);
        const before = watch.generation;
        await change();
        await watch.settle();
        expect(watch.generation, what).toBeGreaterThan(before);
      }
    } finally {
      watch.close();
    }
  });

  it("does not count what a search writes (the recall log) or the program's locks", async () => {
    const { root, index } = await vault();
    const watch = new ChangeWatch(root, index);
    try {
      expect(watch.arm()).toBe(true);
      const before = watch.generation;
      await appendFile(path.join(root, '.vaultkeeper/recall.jsonl'), '{"q":"coffee"}\n');
      await mkdir(path.join(root, '.vaultkeeper/locks'), { recursive: true });
      await writeFile(path.join(root, '.vaultkeeper/locks/write.lock'), '1');
      await watch.settle();
      expect(watch.generation).toBe(before);
    } finally {
      watch.close();
    }
  });

  it('sees a page in a folder made after it was armed once armed again', async () => {
    const { root, index } = await vault();
    const watch = new ChangeWatch(root, index);
    try {
      watch.arm();
      await mkdir(path.join(root, '4_Resources'));
      await watch.settle();
      // The folder's creation counts; the check that follows arms again, which watches the new folder.
      expect(watch.arm()).toBe(true);
      const before = watch.generation;
      await writeFile(path.join(root, '4_Resources/new.md'), '# New\n');
      await watch.settle();
      expect(watch.generation).toBeGreaterThan(before);
    } finally {
      watch.close();
    }
  });
});
