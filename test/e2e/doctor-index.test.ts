/** doctor's checks of pages and of the index, on real vaults. */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/doctor/doctor.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();
const env = { ...process.env, VAULTKEEPER_EMBEDDER: undefined };
const codes = (problems: Array<{ code: string }>): string[] => problems.map((p) => p.code).sort();

describe('doctor: pages and index', () => {
  it('reports broken frontmatter and broken wikilinks with their lines', async () => {
    const vault = await makeVault(await tempDir(), {
      files: {
        '2_Areas/Coffee.md': '# Coffee\n\nSee [[Tea]].\n',
        '2_Areas/Tea.md': '---\ntitle: [unclosed\n---\n# Tea\n\nNot [[Mate]], but [[Coffee]] and [[2026-06-01]].\n',
        'logs/2026-06-01.md': '# 2026-06-01\n\n## 09:00 · cli\n- [fact] Drinks tea ^f-aaaaaaaaa1\n',
      },
    });
    execGit(vault.root);
    const report = await runDoctor(vault.root, env);
    expect(report.ok).toBe(false);
    expect(report.problems).toContainEqual(expect.objectContaining({ code: 'PAGE_FRONTMATTER', path: '2_Areas/Tea.md', line: 1 }));
    expect(report.problems).toContainEqual(expect.objectContaining({ code: 'BROKEN_LINK', path: '2_Areas/Tea.md', line: 6, message: expect.stringContaining('[[Mate]]') }));
    expect(report.problems.filter((p) => p.code === 'BROKEN_LINK')).toHaveLength(1);
  });

  it('reports index drift and an embedder that no longer matches, and is healthy after a reindex', async () => {
    const vault = await makeVault(await tempDir(), { config: 'index:\n  embedder: hash\n', files: { 'logs/2026-06-01.md': '# 2026-06-01\n\n## 09:00 · cli\n- [fact] Drinks tea ^f-aaaaaaaaa1\n' } });
    execGit(vault.root);
    await vault.reindex();
    expect(codes((await runDoctor(vault.root, env)).problems)).toEqual([]);
    await writeTree(vault.root, { '2_Areas/New.md': '# New\n\nA page the index has not seen.\n' });
    execGit(vault.root);
    expect(codes((await runDoctor(vault.root, env)).problems)).toEqual(['INDEX_DRIFT']);
    await vault.reindex();
    expect(codes((await runDoctor(vault.root, env)).problems)).toEqual([]);
    await writeFile(path.join(vault.root, '.vaultkeeper/config.yaml'), 'index:\n  embedder: none\n');
    execGit(vault.root);
    expect(codes((await runDoctor(vault.root, env)).problems)).toEqual(['EMBEDDER_MISMATCH']);
  });
});

function execGit(root: string): void {
  // Commit everything so UNCOMMITTED does not mix into what these tests look at.
  execFileSync('git', ['add', '-A'], { cwd: root });
  execFileSync('git', ['commit', '-qm', 'person: edits', '--allow-empty'], { cwd: root });
}
