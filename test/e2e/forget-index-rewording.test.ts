/**
 * The index leaves out a forgotten fact however a page words it (issue 30): a page line that restates a tombstoned
 * fact in another word order, or reflowed over two lines, is not searchable, while the page's other lines are.
 * The index's line filter uses the same rewording matcher as the dream's scrub (tombstones/match.ts).
 */
import { describe, expect, it } from 'vitest';
import { runJson } from '../helpers/cli.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const env = { VAULTKEEPER_TIMEZONE: 'UTC', LANCE_CPU_THREADS: '2' };

interface Search {
  results: { path: string; text: string; kind: string }[];
}

describe('the index after a forget', () => {
  it('leaves out page lines that restate the forgotten fact reworded or reflowed, and keeps the rest', async () => {
    const root = await initVault(await tempDir(), { env });
    await writeTree(root, { '.vaultkeeper/config.yaml': 'timezone: UTC\nindex:\n  embedder: none\n' });
    const remembered = await runJson<{ facts: { id: string }[] }>(['--vault', root, 'remember', 'Ana is allergic to peanuts', '--date', '2026-06-01'], { env });
    await runJson(['--vault', root, 'forget', remembered.facts[0]!.id], { env });
    // Written after the forget, as a person or a tool might: forget's scrub never saw these lines.
    await writeTree(root, {
      '2_Areas/Ana.md': '---\ntitle: Ana\n---\n# Ana\n\n- To peanuts Ana is allergic, says her mother\n- Ana plays chess at the harbour club\n\nAna is allergic\nto peanuts since she was small.\n',
    });
    await runJson(['--vault', root, 'reindex'], { env });
    const found = await runJson<Search>(['--vault', root, 'search', 'Ana allergic peanuts', '--k', '20'], { env });
    expect(found.results.map((r) => r.text).join('\n')).not.toMatch(/peanut/i);
    const chess = await runJson<Search>(['--vault', root, 'search', 'chess harbour club'], { env });
    expect(chess.results.map((r) => r.text).join('\n')).toContain('plays chess');
  }, 120_000);
});
