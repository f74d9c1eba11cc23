/**
 * A dream moves the watermark (log.md): a log's rows change with it (pending or consolidated), a page's do not.
 * The pass after a run projects the logs and the pages the run changed, never every page of the vault (issue 31:
 * on a 50k backlog every late run re-projected ~16,000 unchanged pages), and gives what a rebuild gives.
 */
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readManifest } from '../../src/indexer/manifest.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const HEADER = (date: string): string => `# ${date}\n\n## 09:00 · cli\n`;

describe('the index pass after the watermark moves', () => {
  it('projects the logs and the changed page again, not the unchanged pages, and matches a rebuild', async () => {
    const vault = await makeVault(await tempDir(), {
      config: 'index:\n  embedder: none\n',
      files: {
        'logs/2026-06-01.md': `${HEADER('2026-06-01')}- [fact] Ana moved to Lisbon ^f-aaaaaaaaa1\n- [fact] Ana likes green tea ^f-aaaaaaaaa2\n`,
        'logs/2026-06-02.md': `${HEADER('2026-06-02')}- [fact] Bo plays the cello ^f-aaaaaaaaa3\n`,
        '3_Personal/Ana.md': '---\ntype: person\n---\n# Ana\n\n## Notes\n\n- Ana moved to Lisbon [[2026-06-01#^f-aaaaaaaaa1]]\n',
        '2_Areas/Music.md': '---\ntype: topic\n---\n# Music\n\n## Notes\n\n- Concerts on Fridays\n',
      },
    });
    await vault.reindex();
    const rowsBefore = (await readManifest(vault.root))!.files['2_Areas/Music.md']!.rows;

    // What a run does: one page changed, the journal's watermark moved past the first day.
    await appendFile(path.join(vault.root, '3_Personal/Ana.md'), '- Ana likes green tea [[2026-06-01#^f-aaaaaaaaa2]]\n');
    const journal = path.join(vault.root, 'log.md');
    const before = await readFile(journal, 'utf8').catch(() => '# Dream journal\n');
    await appendFile(journal, `${before.endsWith('\n') ? '' : '\n'}\n- 2026-06-03T06:00:00Z · run r-20260603-060000 · consolidated 2026-06-01..2026-06-01 · watermark=2026-06-01 · pages +0 ~1 · facts 2\n`);
    const pass = await vault.reindex();
    // The two logs and the page the run changed (the journal is not indexed); Music.md and the template's pages stay.
    expect(pass.files.updated + pass.files.indexed).toBe(3);
    expect(pass.files.unchanged).toBeGreaterThan(0);
    const manifest = (await readManifest(vault.root))!;
    expect(manifest.files['2_Areas/Music.md']!.rows).toEqual(rowsBefore);

    // The first day's facts are consolidated now: a search finds them on the page, as a rebuild has it.
    const incremental = Object.fromEntries(Object.entries(manifest.files).map(([rel, entry]) => [rel, entry.rows]));
    await vault.reindex({ clear: true });
    const rebuilt = Object.fromEntries(Object.entries((await readManifest(vault.root))!.files).map(([rel, entry]) => [rel, entry.rows]));
    expect(rebuilt).toEqual(incremental);
    await vault.close();
  });
});
