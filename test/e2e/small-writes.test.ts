/**
 * Small writes cost small work (issue 31): a new tombstone re-projects only the files it can change, and the index
 * then holds what a rebuild holds; `forget` finds an id without parsing every log, a derived id (a line written
 * without one) included; `status` counts pending facts from the index as it counts them from the logs.
 */
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MANIFEST_FILE } from '../../src/indexer/manifest.js';
import { readLog } from '../../src/logs/factlog.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { dumpTable } from '../helpers/table-dump.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

/** The table's rows by key: an incremental pass appends the rows it rewrites, a rebuild writes them in file order. */
async function rowsByKey(root: string): Promise<Array<Record<string, unknown>>> {
  return (await dumpTable(root)).sort((a, b) => (String(a.key) < String(b.key) ? -1 : 1));
}

const day = (n: number): string => `2026-05-${String(n).padStart(2, '0')}`;
const FILES: Record<string, string> = { 'logs/2026-05-09.md': `# ${day(9)}\n\n## 09:00 · cli\n- [fact] Repotted the fig tree on the balcony\n` };
for (let n = 1; n <= 8; n++) {
  FILES[`logs/${day(n)}.md`] = `# ${day(n)}\n\n## 09:00 · cli\n- [fact] Day ${n} walk along the river ^f-aaaaaaaa${n}a\n- [fact] Day ${n} read a chapter of a novel ^f-aaaaaaaa${n}b\n`;
}
FILES[`logs/${day(3)}.md`] += '- [fact] Drinks oolong tea in the morning ^f-aaaaaaaa3c\n';
FILES[`logs/${day(6)}.md`] += '- [fact] Still drinks Oolong tea in the morning, every day ^f-aaaaaaaa6c\n';
FILES['2_Areas/reading.md'] = `---\ntype: topic\n---\n# Reading\n\n## Books\n- Reads a chapter most days [[${day(7)}#^f-aaaaaaaa7b]]\n`;

describe('small writes', () => {
  it('a new tombstone re-projects the files it can change, and the index ends as a rebuild leaves it', async () => {
    const vault = await makeVault(await tempDir(), { config: 'index:\n  embedder: none\n', files: FILES });
    await vault.reindex({ clear: true });
    // Appended by hand, as forget appends it: the log holding the id, and the log repeating its words on one line.
    await appendFile(path.join(vault.root, '.vaultkeeper/tombstones.jsonl'), `${JSON.stringify({ id: 'f-aaaaaaaa3c', text: 'drinks oolong tea in the morning', at: '2026-06-01T00:00:00Z' })}\n`);
    const pass = await vault.reindex();
    expect(pass.files).toMatchObject({ updated: 2, unchanged: 9 });
    expect(pass.removed).toBeGreaterThanOrEqual(2); // the two facts, and their neighbours' passages
    const incremental = await rowsByKey(vault.root);
    expect(incremental.some((row) => String(row.content).includes('oolong'))).toBe(false);
    await vault.reindex({ clear: true });
    expect(await rowsByKey(vault.root)).toEqual(incremental);

    // A second tombstone of a fact a page's cited passage holds: its log and that page, nothing else.
    await appendFile(path.join(vault.root, '.vaultkeeper/tombstones.jsonl'), `${JSON.stringify({ id: 'f-aaaaaaaa7a', text: 'day 7 walk along the river', at: '2026-06-01T00:00:00Z' })}\n`);
    const second = await vault.reindex();
    expect(second.files).toMatchObject({ updated: 2, unchanged: 9 });
    const after = await rowsByKey(vault.root);
    await vault.reindex({ clear: true });
    expect(await rowsByKey(vault.root)).toEqual(after);
  });

  it('forget finds a fact by its id, a derived id too, and status counts as the logs do', async () => {
    const vault = await makeVault(await tempDir(), { config: 'index:\n  embedder: none\n', files: FILES });
    await vault.reindex();
    const now = new Date('2026-06-02T12:00:00Z');
    const before = await vault.status(now);
    expect(before.facts_pending).toBe(19);
    // The fig tree line has no id: its id is derived (factlog.ts), and not in the file's bytes.
    const derived = (await readLog(vault.root, day(9))).facts[0]!.id;
    expect(await readFile(path.join(vault.root, `logs/${day(9)}.md`), 'utf8')).not.toContain(derived);
    const result = await vault.forget({ id: derived });
    expect(result.tombstoned.map((f) => f.path)).toEqual([`logs/${day(9)}.md`]);
    expect((await vault.forget({ id: 'f-aaaaaaaa5b' })).tombstoned.map((f) => f.text)).toEqual(['Day 5 read a chapter of a novel']);
    await expect(vault.forget({ id: 'f-zzzzzzzzzz' })).rejects.toThrow(/no fact with id f-zzzzzzzzzz/);
    // Counted from the index (forget reindexed), and from the logs without a manifest: the same figures.
    const indexed = await vault.status(now);
    expect(indexed.facts_pending).toBe(17);
    await rm(path.join(vault.root, MANIFEST_FILE));
    expect(await vault.status(now)).toMatchObject({ facts_pending: 17, pending: indexed.pending });
    await vault.reindex();
    // A log changed since the pass is parsed again.
    await writeFile(path.join(vault.root, `logs/${day(2)}.md`), `# ${day(2)}\n\n## 09:00 · cli\n- [fact] Only one fact now ^f-aaaaaaaa2z\n`);
    expect((await vault.status(now)).facts_pending).toBe(16);
  });
});
